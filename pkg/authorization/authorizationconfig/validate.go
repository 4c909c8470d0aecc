package authorizationconfig

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// knownTypes are the types an entry may have, sorted as kube-apiserver
// lists them in its message.
var knownTypes = []string{TypeABAC, TypeAlwaysAllow, TypeAlwaysDeny, TypeNode, TypeRBAC, TypeWebhook}

// maxMatchConditions is kube-apiserver's limit per webhook.
const maxMatchConditions = 64

// Validate checks c as kube-apiserver does and compiles the match
// conditions, returning each webhook's matcher by entry index. Every
// problem is reported, with kube-apiserver's field paths (a webhook's
// fields are reported under its entry, authorizers[i].timeout, as
// kube-apiserver has them) and messages.
func Validate(c *AuthorizationConfiguration) (map[int]*Matcher, field.ErrorList) {
	var errs field.ErrorList
	root := field.NewPath("authorizers")
	if len(c.Authorizers) == 0 {
		errs = append(errs, field.Required(root, "at least one authorization mode must be defined"))
	}
	matchers := map[int]*Matcher{}
	seenTypes := sets.New[string]()
	seenNames := sets.New[string]()
	for i, a := range c.Authorizers {
		p := root.Index(i)
		if a.Type == "" {
			errs = append(errs, field.Required(p.Child("type"), ""))
			continue
		}
		if !slices.Contains(knownTypes, a.Type) {
			errs = append(errs, field.NotSupported(p.Child("type"), a.Type, knownTypes))
			continue
		}
		// Only webhooks may repeat: one RBAC is all RBAC can be.
		if seenTypes.Has(a.Type) && a.Type != TypeWebhook {
			errs = append(errs, field.Duplicate(p.Child("type"), a.Type))
			continue
		}
		seenTypes.Insert(a.Type)

		switch {
		case a.Name == "":
			errs = append(errs, field.Required(p.Child("name"), ""))
		case seenNames.Has(a.Name):
			errs = append(errs, field.Duplicate(p.Child("name"), a.Name))
		default:
			if msgs := utilvalidation.IsDNS1123Subdomain(a.Name); len(msgs) > 0 {
				errs = append(errs, field.Invalid(p.Child("name"), a.Name, "authorizer name is invalid: "+strings.Join(msgs, ", ")))
			}
		}
		seenNames.Insert(a.Name)

		if a.Type != TypeWebhook {
			if a.Webhook != nil {
				errs = append(errs, field.Invalid(p.Child("webhook"), "non-null", "may only be specified when type=Webhook"))
			}
			continue
		}
		if a.Webhook == nil {
			errs = append(errs, field.Required(p.Child("webhook"), "required when type=Webhook"))
			continue
		}
		m, werrs := validateWebhook(p, a.Webhook)
		errs = append(errs, werrs...)
		if m != nil {
			matchers[i] = m
		}
	}
	return matchers, errs
}

func validateWebhook(p *field.Path, w *WebhookConfiguration) (*Matcher, field.ErrorList) {
	var errs field.ErrorList
	switch d := w.Timeout.Duration; {
	case d == 0:
		errs = append(errs, field.Required(p.Child("timeout"), ""))
	case d < 0 || d > 30*time.Second:
		errs = append(errs, field.Invalid(p.Child("timeout"), d.String(), "must be > 0s and <= 30s"))
	}
	for _, ttl := range []struct {
		name string
		d    time.Duration
	}{{"authorizedTTL", w.AuthorizedTTL.Duration}, {"unauthorizedTTL", w.UnauthorizedTTL.Duration}} {
		switch {
		case ttl.d == 0:
			errs = append(errs, field.Required(p.Child(ttl.name), ""))
		case ttl.d < 0:
			errs = append(errs, field.Invalid(p.Child(ttl.name), ttl.d.String(), "must be > 0s"))
		}
	}
	switch w.SubjectAccessReviewVersion {
	case "":
		errs = append(errs, field.Required(p.Child("subjectAccessReviewVersion"), ""))
	case "v1", "v1beta1":
	default:
		errs = append(errs, field.NotSupported(p.Child("subjectAccessReviewVersion"), w.SubjectAccessReviewVersion, []string{"v1", "v1beta1"}))
	}
	switch w.MatchConditionSubjectAccessReviewVersion {
	case "":
		if len(w.MatchConditions) > 0 {
			errs = append(errs, field.Required(p.Child("matchConditionSubjectAccessReviewVersion"), "required if match conditions are specified"))
		}
	case "v1":
	default:
		errs = append(errs, field.NotSupported(p.Child("matchConditionSubjectAccessReviewVersion"), w.MatchConditionSubjectAccessReviewVersion, []string{"v1"}))
	}
	switch w.FailurePolicy {
	case "":
		errs = append(errs, field.Required(p.Child("failurePolicy"), ""))
	case FailurePolicyNoOpinion, FailurePolicyDeny:
	default:
		errs = append(errs, field.NotSupported(p.Child("failurePolicy"), w.FailurePolicy, []string{FailurePolicyNoOpinion, FailurePolicyDeny}))
	}
	errs = append(errs, validateConnection(p.Child("connectionInfo"), w.ConnectionInfo)...)
	m, merrs := compileMatchConditions(p.Child("matchConditions"), w.MatchConditions)
	return m, append(errs, merrs...)
}

func validateConnection(p *field.Path, c WebhookConnectionInfo) field.ErrorList {
	var errs field.ErrorList
	switch c.Type {
	case "":
		errs = append(errs, field.Required(p.Child("type"), ""))
	case ConnectionInClusterConfig:
		if c.KubeConfigFile != nil {
			errs = append(errs, field.Invalid(p.Child("kubeConfigFile"), *c.KubeConfigFile, "can only be set when type=KubeConfigFile"))
		}
	case ConnectionKubeConfigFile:
		f := p.Child("kubeConfigFile")
		switch {
		case c.KubeConfigFile == nil || *c.KubeConfigFile == "":
			errs = append(errs, field.Required(f, ""))
		case !filepath.IsAbs(*c.KubeConfigFile):
			errs = append(errs, field.Invalid(f, *c.KubeConfigFile, "must be an absolute path"))
		default:
			info, err := os.Stat(*c.KubeConfigFile)
			switch {
			case err != nil:
				errs = append(errs, field.Invalid(f, *c.KubeConfigFile, fmt.Sprintf("error loading file: %v", err)))
			case !info.Mode().IsRegular():
				errs = append(errs, field.Invalid(f, *c.KubeConfigFile, "must be a regular file"))
			}
		}
	default:
		// kube-apiserver shows the whole connection info here, with its
		// Go field names.
		shown := struct {
			Type           string
			KubeConfigFile *string
		}{c.Type, c.KubeConfigFile}
		errs = append(errs, field.NotSupported(p.Child("type"), shown, []string{ConnectionInClusterConfig, ConnectionKubeConfigFile}))
	}
	return errs
}

func compileMatchConditions(p *field.Path, conditions []WebhookMatchCondition) (*Matcher, field.ErrorList) {
	if len(conditions) > maxMatchConditions {
		return nil, field.ErrorList{field.TooMany(p, len(conditions), maxMatchConditions)}
	}
	var errs field.ErrorList
	m := &Matcher{}
	seen := sets.New[string]()
	for i, c := range conditions {
		f := p.Index(i).Child("expression")
		switch {
		case strings.TrimSpace(c.Expression) == "":
			errs = append(errs, field.Required(f, ""))
			continue
		case seen.Has(c.Expression):
			errs = append(errs, field.Duplicate(f, c.Expression))
			continue
		}
		seen.Insert(c.Expression)
		prg, msg := compile(c.Expression)
		if msg != "" {
			errs = append(errs, field.Invalid(f, c.Expression, msg))
			continue
		}
		m.programs = append(m.programs, prg)
		m.expressions = append(m.expressions, c.Expression)
	}
	if len(m.programs) == 0 {
		return nil, errs
	}
	return m, errs
}

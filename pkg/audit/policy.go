package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

// RequestConfig is what the policy decided for one request.
type RequestConfig struct {
	Level             Level
	OmitStages        []Stage
	OmitManagedFields bool
}

// Omits reports whether events of stage are left out.
func (c RequestConfig) Omits(stage Stage) bool { return slices.Contains(c.OmitStages, stage) }

// Evaluator decides how a request is audited.
type Evaluator interface {
	Evaluate(attrs authorizer.Attributes) RequestConfig
}

// LoadPolicyFile reads, decodes and validates a --audit-policy-file. A
// nil logger discards the warning about lenient decoding.
func LoadPolicyFile(path string, logger *slog.Logger) (*Policy, error) {
	if path == "" {
		return nil, errors.New("file path not specified")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("failed to read file path %q: %+v", path, err)
	}
	p, err := LoadPolicy(data, logger)
	if err != nil {
		return nil, fmt.Errorf("%v: from file %v", err.Error(), path)
	}
	return p, nil
}

// LoadPolicy decodes and validates a policy, in YAML or JSON. As in
// kube-apiserver, decoding is strict first: a policy with unknown or
// duplicate fields is decoded leniently instead, with a warning, so that
// a policy written for a newer server still loads.
func LoadPolicy(data []byte, logger *slog.Logger) (*Policy, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, fmt.Errorf("failed decoding: %w", err)
	}
	var tm struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := json.Unmarshal(js, &tm); err != nil {
		return nil, fmt.Errorf("failed decoding: %w", err)
	}
	switch {
	case tm.Kind == "":
		return nil, fmt.Errorf("failed decoding: Object 'Kind' is missing in '%s'", data)
	case tm.APIVersion != APIVersion || tm.Kind != "Policy":
		// kube-apiserver's scheme names itself after the file that made it.
		return nil, fmt.Errorf("failed decoding: no kind %q is registered for version %q in scheme %q", tm.Kind, tm.APIVersion, "pkg/runtime/scheme.go:111")
	}
	p := &Policy{}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if strictErr := dec.Decode(p); strictErr != nil {
		p = &Policy{}
		if err := json.Unmarshal(js, p); err != nil {
			return nil, fmt.Errorf("failed lenient decoding: %w", err)
		}
		logger.Warn("Audit policy contains errors, falling back to lenient decoding: strict decoding error: " + strings.TrimPrefix(strictErr.Error(), "json: "))
	}
	if errs := ValidatePolicy(p); len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	if len(p.Rules) == 0 {
		return nil, errors.New("loaded illegal policy with 0 rules")
	}
	return p, nil
}

var (
	validLevels     = []string{string(LevelNone), string(LevelMetadata), string(LevelRequest), string(LevelRequestResponse)}
	validOmitStages = []string{string(StageRequestReceived), string(StageResponseStarted), string(StageResponseComplete), string(StagePanic)}
)

// ValidatePolicy returns kube-apiserver's validation errors of p.
func ValidatePolicy(p *Policy) field.ErrorList {
	errs := validateOmitStages(p.OmitStages, field.NewPath("omitStages"))
	rules := field.NewPath("rules")
	for i, r := range p.Rules {
		path := rules.Index(i)
		switch r.Level {
		case LevelNone, LevelMetadata, LevelRequest, LevelRequestResponse:
		case "":
			errs = append(errs, field.Required(path.Child("level"), ""))
		default:
			errs = append(errs, field.NotSupported(path.Child("level"), r.Level, validLevels))
		}
		for j, url := range r.NonResourceURLs {
			if url == "*" {
				continue
			}
			p := path.Child("nonResourceURLs").Index(j)
			if !strings.HasPrefix(url, "/") {
				errs = append(errs, field.Invalid(p, url, "non-resource URL rules must begin with a '/' character"))
			}
			if url != "" && strings.ContainsRune(url[:len(url)-1], '*') {
				errs = append(errs, field.Invalid(p, url, "non-resource URL wildcards '*' must be the final character of the rule"))
			}
		}
		for _, gr := range r.Resources {
			if gr.Group != "" && gr.Group != "*" {
				if msgs := validation.IsDNS1123Subdomain(gr.Group); len(msgs) > 0 {
					errs = append(errs, field.Invalid(path.Child("resources").Child("group"), gr.Group, strings.Join(msgs, ",")))
				}
			}
			if len(gr.ResourceNames) > 0 && len(gr.Resources) == 0 {
				errs = append(errs, field.Invalid(path.Child("resources").Child("resourceNames"), gr.ResourceNames, "using resourceNames requires at least one resource"))
			}
		}
		errs = append(errs, validateOmitStages(r.OmitStages, path.Child("omitStages"))...)
		if len(r.NonResourceURLs) > 0 && (len(r.Resources) > 0 || len(r.Namespaces) > 0) {
			errs = append(errs, field.Invalid(path.Child("nonResourceURLs"), r.NonResourceURLs, "rules cannot apply to both regular resources and non-resource URLs"))
		}
	}
	return errs
}

func validateOmitStages(stages []Stage, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, s := range stages {
		if !slices.Contains(validOmitStages, string(s)) {
			errs = append(errs, field.Invalid(path.Index(i), string(s), "allowed stages are "+strings.Join(validOmitStages, ",")))
		}
	}
	return errs
}

// NewEvaluator returns the evaluator of a validated policy. Each rule's
// stages to omit include the policy's.
func NewEvaluator(p *Policy) Evaluator {
	e := &policyEvaluator{omitStages: p.OmitStages, omitManagedFields: p.OmitManagedFields}
	for _, r := range p.Rules {
		r.OmitStages = unionStages(p.OmitStages, r.OmitStages)
		e.rules = append(e.rules, r)
	}
	return e
}

// FixedEvaluator audits every request at one level.
func FixedEvaluator(level Level, omitStages ...Stage) Evaluator {
	return fixed{RequestConfig{Level: level, OmitStages: omitStages}}
}

type fixed struct{ c RequestConfig }

func (f fixed) Evaluate(authorizer.Attributes) RequestConfig { return f.c }

type policyEvaluator struct {
	rules             []PolicyRule
	omitStages        []Stage
	omitManagedFields bool
}

func unionStages(a, b []Stage) []Stage {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// Evaluate returns the level of the first rule that matches attrs, or
// None.
func (e *policyEvaluator) Evaluate(attrs authorizer.Attributes) RequestConfig {
	for i := range e.rules {
		r := &e.rules[i]
		if ruleMatches(r, attrs) {
			omit := e.omitManagedFields
			if r.OmitManagedFields != nil {
				omit = *r.OmitManagedFields
			}
			return RequestConfig{Level: r.Level, OmitStages: r.OmitStages, OmitManagedFields: omit}
		}
	}
	return RequestConfig{Level: LevelNone, OmitStages: e.omitStages, OmitManagedFields: e.omitManagedFields}
}

func ruleMatches(r *PolicyRule, attrs authorizer.Attributes) bool {
	u := attrs.GetUser()
	if len(r.Users) > 0 && (u == nil || !slices.Contains(r.Users, u.GetName())) {
		return false
	}
	if len(r.UserGroups) > 0 {
		if u == nil || !slices.ContainsFunc(u.GetGroups(), func(g string) bool { return slices.Contains(r.UserGroups, g) }) {
			return false
		}
	}
	if len(r.Verbs) > 0 && !slices.Contains(r.Verbs, attrs.GetVerb()) {
		return false
	}
	if len(r.Namespaces) > 0 || len(r.Resources) > 0 {
		return resourceMatches(r, attrs)
	}
	if len(r.NonResourceURLs) > 0 {
		if attrs.IsResourceRequest() {
			return false
		}
		return slices.ContainsFunc(r.NonResourceURLs, func(spec string) bool { return pathMatches(attrs.GetPath(), spec) })
	}
	return true
}

// pathMatches matches a non-resource path with "*", an exact path, or a
// prefix ending in "*".
func pathMatches(path, spec string) bool {
	if spec == "*" || spec == path {
		return true
	}
	return strings.HasSuffix(spec, "*") && strings.HasPrefix(path, strings.TrimRight(spec, "*"))
}

func resourceMatches(r *PolicyRule, attrs authorizer.Attributes) bool {
	if !attrs.IsResourceRequest() {
		return false
	}
	// Cluster-scoped resources have the namespace "".
	if len(r.Namespaces) > 0 && !slices.Contains(r.Namespaces, attrs.GetNamespace()) {
		return false
	}
	if len(r.Resources) == 0 {
		return true
	}
	resource, sub := attrs.GetResource(), attrs.GetSubresource()
	combined := resource
	if sub != "" {
		combined += "/" + sub
	}
	for _, gr := range r.Resources {
		if gr.Group != attrs.GetAPIGroup() && gr.Group != "*" {
			continue
		}
		if len(gr.Resources) == 0 {
			return true
		}
		if len(gr.ResourceNames) > 0 && !slices.Contains(gr.ResourceNames, attrs.GetName()) {
			continue
		}
		for _, res := range gr.Resources {
			switch {
			case res == combined || res == "*":
				return true
			case sub != "" && strings.HasPrefix(res, "*/") && sub == res[2:]:
				return true
			case strings.HasSuffix(res, "/*") && resource == strings.TrimSuffix(res, "/*"):
				return true
			}
		}
	}
	return false
}

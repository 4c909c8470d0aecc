// Package review holds what the access reviews of authorization.k8s.io
// share: turning a review's spec into the attributes an authorizer
// judges, and the authorizer's answer into the review's status.
package review

import (
	"context"
	"fmt"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/selection"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

// Kind is the group-qualified kind of the review errors: kube-apiserver
// names no kind in them, only the group (`.authorization.k8s.io "" is
// invalid`), and kapi says the same.
var Kind = schema.GroupKind{Group: authorizationv1.GroupName}

// Base is what every review storage has: a kind, no state, no scope of
// its own beyond what it declares.
type Base struct {
	NewFunc  func() runtime.Object
	Singular string
}

// New returns an empty review.
func (b Base) New() runtime.Object { return b.NewFunc() }

// Destroy releases nothing: reviews are never stored.
func (Base) Destroy() {}

// GetSingularName is the singular name in discovery.
func (b Base) GetSingularName() string { return b.Singular }

// ResourceAttributes are the attributes of a question about a resource.
// An empty version matches every version ("*"), and the selectors are
// parsed as kube-apiserver parses them: requirements it cannot express
// are dropped, with an error that goes into the status.
func ResourceAttributes(u user.Info, in authorizationv1.ResourceAttributes) authorizer.AttributesRecord {
	a := authorizer.AttributesRecord{
		User: u, Verb: in.Verb, Namespace: in.Namespace, APIGroup: in.Group, APIVersion: in.Version,
		Resource: in.Resource, Subresource: in.Subresource, Name: in.Name, ResourceRequest: true,
	}
	if a.APIVersion == "" {
		a.APIVersion = "*"
	}
	if ls := in.LabelSelector; ls != nil {
		if ls.RawSelector != "" {
			if sel, err := labels.Parse(ls.RawSelector); err != nil {
				a.LabelSelectorParsingErr = err
			} else {
				a.LabelSelectorRequirements, _ = sel.Requirements()
			}
		}
		if len(ls.Requirements) > 0 {
			a.LabelSelectorRequirements, a.LabelSelectorParsingErr = labelRequirements(ls.Requirements)
		}
	}
	if fs := in.FieldSelector; fs != nil {
		if fs.RawSelector != "" {
			if sel, err := fields.ParseSelector(fs.RawSelector); err != nil {
				a.FieldSelectorParsingErr = err
			} else {
				a.FieldSelectorRequirements = sel.Requirements()
			}
		}
		if len(fs.Requirements) > 0 {
			a.FieldSelectorRequirements, a.FieldSelectorParsingErr = fieldRequirements(fs.Requirements)
		}
	}
	return a
}

var labelOps = map[metav1.LabelSelectorOperator]selection.Operator{
	metav1.LabelSelectorOpIn: selection.In, metav1.LabelSelectorOpNotIn: selection.NotIn,
	metav1.LabelSelectorOpExists: selection.Exists, metav1.LabelSelectorOpDoesNotExist: selection.DoesNotExist,
}

func labelRequirements(in []metav1.LabelSelectorRequirement) (labels.Requirements, error) {
	var out labels.Requirements
	var errs []error
	for _, r := range in {
		op, ok := labelOps[r.Operator]
		if !ok {
			errs = append(errs, fmt.Errorf("%q is not a valid label selector operator", r.Operator))
			continue
		}
		values := r.Values
		if len(values) == 0 {
			values = nil
		}
		req, err := labels.NewRequirement(r.Key, op, values)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, *req)
	}
	return out, utilerrors.NewAggregate(errs)
}

func fieldRequirements(in []metav1.FieldSelectorRequirement) (fields.Requirements, error) {
	var out fields.Requirements
	var errs []error
	for _, r := range in {
		if len(r.Values) > 1 {
			errs = append(errs, fmt.Errorf("fieldSelectors do not yet support multiple values"))
			continue
		}
		switch r.Operator {
		case metav1.FieldSelectorOpIn, metav1.FieldSelectorOpNotIn:
			if len(r.Values) != 1 {
				word := "in"
				if r.Operator == metav1.FieldSelectorOpNotIn {
					word = "not in"
				}
				errs = append(errs, fmt.Errorf("fieldSelectors %s must have one value", word))
				continue
			}
			op := selection.Equals
			if r.Operator == metav1.FieldSelectorOpNotIn {
				op = selection.NotEquals
			}
			out = append(out, fields.Requirement{Field: r.Key, Operator: op, Value: r.Values[0]})
		case metav1.FieldSelectorOpExists, metav1.FieldSelectorOpDoesNotExist:
			errs = append(errs, fmt.Errorf("fieldSelectors do not yet support %v", r.Operator))
		default:
			errs = append(errs, fmt.Errorf("%q is not a valid field selector operator", r.Operator))
		}
	}
	return out, utilerrors.NewAggregate(errs)
}

// Attributes are the attributes of the question spec asks about u.
func Attributes(u user.Info, ra *authorizationv1.ResourceAttributes, nra *authorizationv1.NonResourceAttributes) authorizer.AttributesRecord {
	if ra != nil {
		return ResourceAttributes(u, *ra)
	}
	return authorizer.AttributesRecord{User: u, Verb: nra.Verb, Path: nra.Path}
}

// SubjectOf is the user a SubjectAccessReview asks about.
func SubjectOf(spec authorizationv1.SubjectAccessReviewSpec) user.Info {
	u := &user.DefaultInfo{Name: spec.User, UID: spec.UID, Groups: spec.Groups}
	if spec.Extra != nil {
		u.Extra = map[string][]string{}
		for k, v := range spec.Extra {
			u.Extra[k] = v
		}
	}
	return u
}

// Decide asks a about attrs and writes the answer as a status: allowed
// and denied from the decision, the reason, and in evaluationError the
// authorizer's error and any selector that had to be ignored.
func Decide(ctx context.Context, a authorizer.Authorizer, attrs authorizer.AttributesRecord) authorizationv1.SubjectAccessReviewStatus {
	d, reason, err := a.Authorize(ctx, attrs)
	var evalErrs []string
	if err != nil {
		evalErrs = append(evalErrs, err.Error())
	}
	for _, sel := range []struct {
		name string
		n    int
		err  error
	}{
		{"fieldSelector", len(attrs.FieldSelectorRequirements), attrs.FieldSelectorParsingErr},
		{"labelSelector", len(attrs.LabelSelectorRequirements), attrs.LabelSelectorParsingErr},
	} {
		switch {
		case sel.err == nil:
		case sel.n > 0:
			evalErrs = append(evalErrs, "spec.resourceAttributes."+sel.name+" partially ignored due to parse error")
		default:
			evalErrs = append(evalErrs, "spec.resourceAttributes."+sel.name+" ignored due to parse error")
		}
	}
	return authorizationv1.SubjectAccessReviewStatus{
		Allowed:         d == authorizer.DecisionAllow,
		Denied:          d == authorizer.DecisionDeny,
		Reason:          reason,
		EvaluationError: strings.Join(evalErrs, "; "),
	}
}

// Package authorization holds the validation of authorization.k8s.io
// objects: the access reviews, which are questions rather than stored
// objects, so validation is all there is of them before they are
// answered.
//
// Messages and field paths are kube-apiserver 1.37's. Where it shows a
// value of its internal types (which have no JSON tags), kapi shows the
// same JSON, with Go field names.
package authorization

import (
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// nonResourceShown is NonResourceAttributes as kube-apiserver prints it
// in a field error.
type nonResourceShown struct {
	Path string
	Verb string
}

func shownNonResource(n *authorizationv1.NonResourceAttributes) any {
	if n == nil {
		return nil
	}
	return nonResourceShown{Path: n.Path, Verb: n.Verb}
}

// validateAttributes: exactly one of the two kinds of attributes, and
// selectors that can be read.
func validateAttributes(ra *authorizationv1.ResourceAttributes, nra *authorizationv1.NonResourceAttributes, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if (ra == nil) == (nra == nil) {
		errs = append(errs, field.Invalid(p, shownNonResource(nra), "exactly one of nonResourceAttributes or resourceAttributes must be specified"))
	}
	return errs
}

func validateSelectors(ra *authorizationv1.ResourceAttributes) field.ErrorList {
	if ra == nil {
		return nil
	}
	var errs field.ErrorList
	p := field.NewPath("spec.resourceAttributes")
	if fs := ra.FieldSelector; fs != nil {
		fp := p.Child("fieldSelector")
		errs = append(errs, validateRawOrRequirements(fs.RawSelector, len(fs.Requirements), fp)...)
		// Operators kapi does not know are let through, as kube-apiserver
		// lets them: a newer client may ask about them, and they are
		// dropped (broadening the question) when authorizing.
		opts := metav1validation.FieldSelectorValidationOptions{AllowUnknownOperatorInRequirement: true}
		for i, r := range fs.Requirements {
			errs = append(errs, metav1validation.ValidateFieldSelectorRequirement(r, opts, fp.Child("requirements").Index(i))...)
		}
	}
	if ls := ra.LabelSelector; ls != nil {
		lp := p.Child("labelSelector")
		errs = append(errs, validateRawOrRequirements(ls.RawSelector, len(ls.Requirements), lp)...)
		opts := metav1validation.LabelSelectorValidationOptions{AllowUnknownOperatorInRequirement: true}
		for i, r := range ls.Requirements {
			errs = append(errs, metav1validation.ValidateLabelSelectorRequirement(r, opts, lp.Child("requirements").Index(i))...)
		}
	}
	return errs
}

func validateRawOrRequirements(raw string, requirements int, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if raw != "" && requirements > 0 {
		errs = append(errs, field.Invalid(p.Child("rawSelector"), raw, "may not specified at the same time as requirements"))
	}
	if raw == "" && requirements == 0 {
		errs = append(errs, field.Required(p.Child("requirements"), fmt.Sprintf("when %s is specified, requirements or rawSelector is required", p)))
	}
	return errs
}

func validateStatus(s authorizationv1.SubjectAccessReviewStatus) field.ErrorList {
	if s.Allowed && s.Denied {
		return field.ErrorList{field.Invalid(field.NewPath("status"), authorizationv1.SubjectAccessReviewStatus{Allowed: s.Allowed, Denied: s.Denied},
			"allowed and denied are mutually exclusive")}
	}
	return nil
}

// validateSpec checks what a SubjectAccessReview and a
// LocalSubjectAccessReview ask.
func validateSpec(spec authorizationv1.SubjectAccessReviewSpec) field.ErrorList {
	p := field.NewPath("spec")
	errs := validateAttributes(spec.ResourceAttributes, spec.NonResourceAttributes, p)
	if spec.User == "" && len(spec.Groups) == 0 {
		errs = append(errs, field.Invalid(p.Child("user"), spec.User, "at least one of user or group must be specified"))
	}
	return append(errs, validateSelectors(spec.ResourceAttributes)...)
}

// emptyExceptManagedFields says whether meta carries nothing a client
// set: the managed fields are the server's own bookkeeping of the write.
func emptyExceptManagedFields(meta metav1.ObjectMeta) bool {
	meta.ManagedFields = nil
	return apiequality.Semantic.DeepEqual(metav1.ObjectMeta{}, meta)
}

// ValidateSubjectAccessReview checks a SubjectAccessReview.
func ValidateSubjectAccessReview(r *authorizationv1.SubjectAccessReview) field.ErrorList {
	errs := validateSpec(r.Spec)
	errs = append(errs, validateStatus(r.Status)...)
	if !emptyExceptManagedFields(r.ObjectMeta) {
		errs = append(errs, field.Invalid(field.NewPath("metadata"), r.ObjectMeta, "must be empty"))
	}
	return errs
}

// ValidateSelfSubjectAccessReview checks a SelfSubjectAccessReview: the
// subject is the requester.
func ValidateSelfSubjectAccessReview(r *authorizationv1.SelfSubjectAccessReview) field.ErrorList {
	errs := validateAttributes(r.Spec.ResourceAttributes, r.Spec.NonResourceAttributes, field.NewPath("spec"))
	errs = append(errs, validateSelectors(r.Spec.ResourceAttributes)...)
	errs = append(errs, validateStatus(r.Status)...)
	if !emptyExceptManagedFields(r.ObjectMeta) {
		errs = append(errs, field.Invalid(field.NewPath("metadata"), r.ObjectMeta, "must be empty"))
	}
	return errs
}

// ValidateLocalSubjectAccessReview checks a LocalSubjectAccessReview: a
// question about its own namespace only, so that a namespace's admin may
// be allowed to ask it.
func ValidateLocalSubjectAccessReview(r *authorizationv1.LocalSubjectAccessReview) field.ErrorList {
	errs := validateSpec(r.Spec)
	errs = append(errs, validateStatus(r.Status)...)
	meta := r.ObjectMeta
	meta.Namespace = ""
	if !emptyExceptManagedFields(meta) {
		errs = append(errs, field.Invalid(field.NewPath("metadata"), r.ObjectMeta, "must be empty except for namespace"))
	}
	if ra := r.Spec.ResourceAttributes; ra != nil && ra.Namespace != r.Namespace {
		errs = append(errs, field.Invalid(field.NewPath("spec.resourceAttributes.namespace"), ra.Namespace, "must match metadata.namespace"))
	}
	if nra := r.Spec.NonResourceAttributes; nra != nil {
		errs = append(errs, field.Invalid(field.NewPath("spec.nonResourceAttributes"), shownNonResource(nra), "disallowed on this kind of request"))
	}
	return errs
}

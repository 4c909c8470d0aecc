package apiextensions

import (
	"fmt"
	"net/url"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ApprovalState is where a CRD stands with the Kubernetes API review
// policy (https://github.com/kubernetes/enhancements/pull/1111): groups
// owned by the Kubernetes project need the api-approved.kubernetes.io
// annotation to say where the API was approved.
type ApprovalState int

const (
	// ApprovalNotProtected: the group is not *.k8s.io or *.kubernetes.io,
	// the policy does not apply.
	ApprovalNotProtected ApprovalState = iota
	// Approved: the annotation is the URL of the approval.
	Approved
	// Unapproved: the annotation starts with "unapproved"; the CRD is
	// accepted but not conformant.
	Unapproved
	// ApprovalMissing: the annotation is absent or empty.
	ApprovalMissing
	// ApprovalInvalid: the annotation is neither a URL nor "unapproved...".
	ApprovalInvalid
)

func (s ApprovalState) String() string {
	switch s {
	case ApprovalNotProtected:
		return "NotProtected"
	case Approved:
		return "Approved"
	case Unapproved:
		return "Unapproved"
	case ApprovalMissing:
		return "Missing"
	case ApprovalInvalid:
		return "Invalid"
	}
	return fmt.Sprintf("ApprovalState(%d)", int(s))
}

// IsProtectedGroup reports whether group belongs to the Kubernetes project:
// k8s.io, kubernetes.io and their subdomains.
func IsProtectedGroup(group string) bool {
	return group == "k8s.io" || strings.HasSuffix(group, ".k8s.io") ||
		group == "kubernetes.io" || strings.HasSuffix(group, ".kubernetes.io")
}

// APIApprovalState reports whether a CRD in a protected group is approved,
// with the reason kube-apiserver gives (used as a validation message and as
// the message of the KubernetesAPIApprovalPolicyConformant condition).
// The reason is empty for groups that are not protected.
func APIApprovalState(crd *apiextensionsv1.CustomResourceDefinition) (ApprovalState, string) {
	if !IsProtectedGroup(crd.Spec.Group) {
		return ApprovalNotProtected, ""
	}
	return approvalFromAnnotations(crd.Annotations)
}

// approvalFromAnnotations reads the approval annotation whatever the group:
// validation compares the states of the old and new objects.
func approvalFromAnnotations(annotations map[string]string) (ApprovalState, string) {
	annotation := annotations[apiextensionsv1.KubeAPIApprovedAnnotation]
	switch {
	case annotation == "":
		return ApprovalMissing, fmt.Sprintf("protected groups must have approval annotation %q, see https://github.com/kubernetes/enhancements/pull/1111", apiextensionsv1.KubeAPIApprovedAnnotation)
	case strings.HasPrefix(annotation, "unapproved"):
		return Unapproved, fmt.Sprintf("not approved: %q", annotation)
	case isAbsoluteURL(annotation):
		return Approved, fmt.Sprintf("approved in %v", annotation)
	default:
		return ApprovalInvalid, fmt.Sprintf("protected groups must have approval annotation %q with either a URL or a reason starting with \"unapproved\", see https://github.com/kubernetes/enhancements/pull/1111", apiextensionsv1.KubeAPIApprovedAnnotation)
	}
}

func isAbsoluteURL(s string) bool {
	u, err := url.ParseRequestURI(s)
	return err == nil && u.Host != "" && u.Scheme != ""
}

// APIApprovalCondition is the KubernetesAPIApprovalPolicyConformant
// condition kube-apiserver's approval controller sets on a CRD, or nil for
// groups that are not protected (the controller leaves them alone).
// LastTransitionTime is left for SetCondition to fill.
func APIApprovalCondition(crd *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinitionCondition {
	state, reason := APIApprovalState(crd)
	cond := &apiextensionsv1.CustomResourceDefinitionCondition{
		Type:    apiextensionsv1.KubernetesAPIApprovalPolicyConformant,
		Status:  apiextensionsv1.ConditionFalse,
		Message: reason,
	}
	switch state {
	case ApprovalNotProtected:
		return nil
	case Approved:
		cond.Status, cond.Reason = apiextensionsv1.ConditionTrue, "ApprovedAnnotation"
	case Unapproved:
		cond.Reason = "UnapprovedAnnotation"
	case ApprovalMissing:
		cond.Reason = "MissingAnnotation"
	default:
		cond.Reason = "InvalidAnnotation"
	}
	return cond
}

// validateAPIApproval requires a valid approval annotation on CRDs of
// protected groups. An update that leaves the approval state as it was is
// never rejected, so that controllers that only manage the spec keep
// working on CRDs created before the policy.
func validateAPIApproval(crd, old *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
	if !IsProtectedGroup(crd.Spec.Group) {
		return nil
	}
	state, reason := approvalFromAnnotations(crd.Annotations)
	if old != nil {
		if oldState, _ := approvalFromAnnotations(old.Annotations); oldState == state {
			return nil
		}
	}
	fldPath := field.NewPath("metadata", "annotations").Key(apiextensionsv1.KubeAPIApprovedAnnotation)
	switch state {
	case Approved, Unapproved:
		return nil
	case ApprovalMissing:
		return field.ErrorList{field.Required(fldPath, reason)}
	default:
		return field.ErrorList{field.Invalid(fldPath, crd.Annotations[apiextensionsv1.KubeAPIApprovedAnnotation], reason)}
	}
}

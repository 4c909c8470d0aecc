package apiextensions

import (
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// HasServedVersion reports whether version is one of the CRD's versions and
// is served.
func HasServedVersion(crd *apiextensionsv1.CustomResourceDefinition, version string) bool {
	for _, v := range crd.Spec.Versions {
		if v.Name == version {
			return v.Served
		}
	}
	return false
}

// StorageVersion returns the name of the version marked storage: true.
// A CRD that passed validation has exactly one.
func StorageVersion(crd *apiextensionsv1.CustomResourceDefinition) (string, error) {
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			return v.Name, nil
		}
	}
	return "", fmt.Errorf("invalid CustomResourceDefinition %q: no storage version", crd.Name)
}

// IsStoredVersion reports whether version is listed in
// status.storedVersions: objects may still be persisted in it, so it must
// stay in spec.versions until a storage migration removes it.
func IsStoredVersion(crd *apiextensionsv1.CustomResourceDefinition, version string) bool {
	for _, v := range crd.Status.StoredVersions {
		if v == version {
			return true
		}
	}
	return false
}

// GetCondition returns the condition of the given type, or nil. The result
// points into crd.Status.Conditions.
func GetCondition(crd *apiextensionsv1.CustomResourceDefinition, conditionType apiextensionsv1.CustomResourceDefinitionConditionType) *apiextensionsv1.CustomResourceDefinitionCondition {
	for i := range crd.Status.Conditions {
		if crd.Status.Conditions[i].Type == conditionType {
			return &crd.Status.Conditions[i]
		}
	}
	return nil
}

// IsConditionTrue reports whether the condition is present with status True.
func IsConditionTrue(crd *apiextensionsv1.CustomResourceDefinition, conditionType apiextensionsv1.CustomResourceDefinitionConditionType) bool {
	c := GetCondition(crd, conditionType)
	return c != nil && c.Status == apiextensionsv1.ConditionTrue
}

// SetCondition adds the condition or replaces the one of the same type.
// lastTransitionTime only moves when the status changes (or was never set),
// so that clients can tell how long a CRD has been, say, Established. The
// transition time used is newCondition's, or now when it is zero.
func SetCondition(crd *apiextensionsv1.CustomResourceDefinition, newCondition apiextensionsv1.CustomResourceDefinitionCondition) {
	if newCondition.LastTransitionTime.IsZero() {
		newCondition.LastTransitionTime = metav1.Now()
	}
	existing := GetCondition(crd, newCondition.Type)
	if existing == nil {
		crd.Status.Conditions = append(crd.Status.Conditions, newCondition)
		return
	}
	if existing.Status != newCondition.Status || existing.LastTransitionTime.IsZero() {
		existing.LastTransitionTime = newCondition.LastTransitionTime
	}
	existing.Status = newCondition.Status
	existing.Reason = newCondition.Reason
	existing.Message = newCondition.Message
	existing.ObservedGeneration = newCondition.ObservedGeneration
}

// RemoveCondition removes the condition of the given type, if any.
func RemoveCondition(crd *apiextensionsv1.CustomResourceDefinition, conditionType apiextensionsv1.CustomResourceDefinitionConditionType) {
	// A new slice: the old one may be shared with a cached copy.
	kept := make([]apiextensionsv1.CustomResourceDefinitionCondition, 0, len(crd.Status.Conditions))
	for _, c := range crd.Status.Conditions {
		if c.Type != conditionType {
			kept = append(kept, c)
		}
	}
	crd.Status.Conditions = kept
}

// ConditionsEquivalent reports whether two conditions say the same thing,
// ignoring times: controllers use it to skip status updates that would
// change nothing.
func ConditionsEquivalent(a, b *apiextensionsv1.CustomResourceDefinitionCondition) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Type == b.Type && a.Status == b.Status && a.Reason == b.Reason && a.Message == b.Message
}

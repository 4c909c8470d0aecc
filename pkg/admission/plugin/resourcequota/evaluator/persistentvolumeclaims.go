package evaluator

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	storagehelpers "k8s.io/component-helpers/storage/volume"

	"github.com/kapi-dev/kapi/pkg/admission"
)

var pvcCountName = CountName(corev1.Resource("persistentvolumeclaims"))

// pvcResources are the claim's quota names, which a storage class can
// also qualify: <class>.storageclass.storage.k8s.io/<name>.
var pvcResources = []corev1.ResourceName{corev1.ResourcePersistentVolumeClaims, corev1.ResourceRequestsStorage}

const storageClassSuffix = ".storageclass.storage.k8s.io/"

// PersistentVolumeClaims measures claims: their count and requested
// storage, in total and per storage class, and the VolumeAttributesClass
// scope.
type PersistentVolumeClaims struct{}

func toPVC(obj runtime.Object) (*corev1.PersistentVolumeClaim, error) {
	pvc, ok := obj.(*corev1.PersistentVolumeClaim)
	if !ok {
		return nil, fmt.Errorf("expect *api.PersistentVolumeClaim or *v1.PersistentVolumeClaim, got %T", obj)
	}
	return pvc, nil
}

// Handles creates and updates, and the status updates that may change
// the storage allocated or the volume attributes classes. (kube's test
// of the allocated storage compares two fresh pointers, so every status
// update with both objects is handled; kapi does the same.)
func (PersistentVolumeClaims) Handles(a *admission.Attributes) bool {
	switch a.Subresource {
	case "":
		return a.Operation == admission.Create || a.Operation == admission.Update
	case "status":
		_, err1 := toPVC(a.Object)
		_, err2 := toPVC(a.OldObject)
		return err1 == nil && err2 == nil
	}
	return false
}

func (PersistentVolumeClaims) Constraints([]corev1.ResourceName, runtime.Object) error { return nil }

func (p PersistentVolumeClaims) Matches(quota *corev1.ResourceQuota, obj runtime.Object) (bool, error) {
	return matches(quota, obj, p.MatchingResources, pvcInScope)
}

func (PersistentVolumeClaims) MatchingScopes(obj runtime.Object, selectors []corev1.ScopedResourceSelectorRequirement) ([]corev1.ScopedResourceSelectorRequirement, error) {
	return matchingScopes(obj, selectors, pvcInScope, "error on matching scope %v: %w")
}

func (PersistentVolumeClaims) UncoveredScopes(limited, matched []corev1.ScopedResourceSelectorRequirement) []corev1.ScopedResourceSelectorRequirement {
	return uncoveredScopes(limited, matched)
}

func (PersistentVolumeClaims) MatchingResources(names []corev1.ResourceName) []corev1.ResourceName {
	out := []corev1.ResourceName{}
	for _, name := range names {
		if name == pvcCountName {
			out = append(out, name)
			continue
		}
		for _, r := range pvcResources {
			if name == r || strings.HasSuffix(string(name), storageClassSuffix+string(r)) {
				out = append(out, name)
				break
			}
		}
	}
	return out
}

// Usage is one claim and its requested storage (rounded up to a whole
// byte, or the storage allocated when that is more), also under its
// storage class.
func (PersistentVolumeClaims) Usage(obj runtime.Object) (corev1.ResourceList, error) {
	pvc, err := toPVC(obj)
	if err != nil {
		return corev1.ResourceList{}, err
	}
	out := corev1.ResourceList{
		corev1.ResourcePersistentVolumeClaims: one(),
		pvcCountName:                          one(),
	}
	class := storagehelpers.GetPersistentVolumeClaimClass(pvc)
	if class != "" {
		out[corev1.ResourceName(class+storageClassSuffix+string(corev1.ResourcePersistentVolumeClaims))] = one()
	}
	if storage := storageUsage(pvc); storage != nil {
		out[corev1.ResourceRequestsStorage] = *storage
		if class != "" {
			out[corev1.ResourceName(class+storageClassSuffix+string(corev1.ResourceRequestsStorage))] = *storage
		}
	}
	return out, nil
}

func storageUsage(pvc *corev1.PersistentVolumeClaim) *resource.Quantity {
	roundUp := func(q resource.Quantity) *resource.Quantity {
		r := q.DeepCopy()
		r.RoundUp(0)
		return &r
	}
	request, ok := pvc.Spec.Resources.Requests[corev1.ResourceStorage]
	if !ok {
		return nil
	}
	out := roundUp(request)
	// RecoverVolumeExpansionFailure is GA: storage allocated beyond the
	// request counts.
	if allocated, ok := pvc.Status.AllocatedResources[corev1.ResourceStorage]; ok && allocated.Cmp(*out) > 0 {
		out = roundUp(allocated)
	}
	return out
}

func pvcInScope(selector corev1.ScopedResourceSelectorRequirement, obj runtime.Object) (bool, error) {
	pvc, err := toPVC(obj)
	if err != nil {
		return false, err
	}
	if selector.ScopeName != corev1.ResourceQuotaScopeVolumeAttributesClass {
		return false, nil
	}
	classes := volumeAttributesClasses(pvc)
	if selector.Operator == corev1.ScopeSelectorOpExists {
		return classes.Len() != 0, nil
	}
	return selectorMatches(selector, sets.List(classes)...)
}

// volumeAttributesClasses are the classes a claim asks for, has, or is
// moving to.
func volumeAttributesClasses(pvc *corev1.PersistentVolumeClaim) sets.Set[string] {
	out := sets.New[string]()
	if c := pvc.Spec.VolumeAttributesClassName; c != nil && *c != "" {
		out.Insert(*c)
	}
	if c := pvc.Status.CurrentVolumeAttributesClassName; c != nil && *c != "" {
		out.Insert(*c)
	}
	if m := pvc.Status.ModifyVolumeStatus; m != nil && m.TargetVolumeAttributesClassName != "" {
		out.Insert(m.TargetVolumeAttributesClassName)
	}
	return out
}

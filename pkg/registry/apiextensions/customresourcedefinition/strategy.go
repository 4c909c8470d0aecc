// Package customresourcedefinition is the REST storage of
// apiextensions.k8s.io/v1 CustomResourceDefinitions and of their /status.
package customresourcedefinition

import (
	"context"
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kapi-dev/kapi/pkg/apis/apiextensions"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
)

// CleanupFinalizer holds a deleted CRD until every custom resource of it
// is gone.
const CleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io"

// Strategy is the behaviour of CRDs: metadata.generation counts changes
// of the spec, the status is written only through /status, and the
// storage version of every write joins status.storedVersions, so that the
// versions objects may be stored in are never forgotten.
type Strategy struct {
	generic.DefaultStrategy
	Validation apiextensions.ValidationOptions
}

// NewStrategy returns the strategy of CRDs, validating schemas with opts.
func NewStrategy(opts apiextensions.ValidationOptions) Strategy {
	// As in kube-apiserver, an update of a CRD must name the
	// resourceVersion it was computed from.
	return Strategy{DefaultStrategy: generic.DefaultStrategy{RequireResourceVersionOnUpdate: true}, Validation: opts}
}

func (Strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	crd := obj.(*apiextensionsv1.CustomResourceDefinition)
	crd.Status = apiextensionsv1.CustomResourceDefinitionStatus{}
	crd.Generation = 1
	addStorageVersion(crd)
}

// GetResetFields is the status, written through /status only.
func (Strategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("apiextensions.k8s.io/v1", []string{"status"})
}

func (Strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	crd, oldCRD := obj.(*apiextensionsv1.CustomResourceDefinition), old.(*apiextensionsv1.CustomResourceDefinition)
	crd.Status = oldCRD.Status
	crd.Generation = oldCRD.Generation
	if !apiequality.Semantic.DeepEqual(crd.Spec, oldCRD.Spec) {
		crd.Generation++
	}
	addStorageVersion(crd)
}

// PrepareForDelete marks a CRD whose deletion starts as Terminating; the
// cleanup controller takes it from there.
func (Strategy) PrepareForDelete(_ context.Context, obj runtime.Object) {
	crd := obj.(*apiextensionsv1.CustomResourceDefinition)
	apiextensions.SetCondition(crd, apiextensionsv1.CustomResourceDefinitionCondition{
		Type:    apiextensionsv1.Terminating,
		Status:  apiextensionsv1.ConditionTrue,
		Reason:  "InstanceDeletionPending",
		Message: "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
	})
}

func (s Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return apiextensions.ValidateCustomResourceDefinition(obj.(*apiextensionsv1.CustomResourceDefinition), s.Validation)
}

func (s Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return apiextensions.ValidateCustomResourceDefinitionUpdate(obj.(*apiextensionsv1.CustomResourceDefinition),
		old.(*apiextensionsv1.CustomResourceDefinition), s.Validation)
}

// addStorageVersion records the version objects are now stored in.
func addStorageVersion(crd *apiextensionsv1.CustomResourceDefinition) {
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			if !slices.Contains(crd.Status.StoredVersions, v.Name) {
				crd.Status.StoredVersions = append(crd.Status.StoredVersions, v.Name)
			}
			return
		}
	}
}

// statusStrategy writes the status and nothing else of the object but its
// finalizers, which the cleanup controller removes through /status.
type statusStrategy struct{ Strategy }

// GetResetFields is what /status keeps: the spec, the labels, the
// annotations and the owner references.
func (statusStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("apiextensions.k8s.io/v1", []string{"spec"},
		[]string{"metadata", "labels"}, []string{"metadata", "annotations"}, []string{"metadata", "ownerReferences"})
}

func (statusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	crd, oldCRD := obj.(*apiextensionsv1.CustomResourceDefinition), old.(*apiextensionsv1.CustomResourceDefinition)
	crd.Spec = oldCRD.Spec
	crd.Labels, crd.Annotations = oldCRD.Labels, oldCRD.Annotations
	crd.OwnerReferences = oldCRD.OwnerReferences
	crd.Generation = oldCRD.Generation
}

func (statusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return apiextensions.ValidateCustomResourceDefinitionStatusUpdate(obj.(*apiextensionsv1.CustomResourceDefinition),
		old.(*apiextensionsv1.CustomResourceDefinition))
}

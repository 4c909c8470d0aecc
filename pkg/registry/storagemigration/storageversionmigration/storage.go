// Package storageversionmigration is the REST storage of
// storagemigration.k8s.io/v1 storageversionmigrations and their /status.
package storageversionmigration

import (
	"context"

	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	storagemigrationv1beta1 "k8s.io/api/storagemigration/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kapi-dev/kapi/pkg/apis/storagemigration"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct{ generic.DefaultStrategy }

// Strategy is the behaviour of migrations: the spec is fixed at creation,
// the status (the migrator's progress) is written only through /status,
// and an update must name the resourceVersion it was computed from.
// Nothing counts generations.
var Strategy = strategy{generic.DefaultStrategy{RequireResourceVersionOnUpdate: true}}

func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	obj.(*storagemigrationv1.StorageVersionMigration).Status = storagemigrationv1.StorageVersionMigrationStatus{}
}

// GetResetFields is the status, written through /status only.
func (strategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("storagemigration.k8s.io/v1", []string{"status"})
}

func (strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	svm, oldSVM := obj.(*storagemigrationv1.StorageVersionMigration), old.(*storagemigrationv1.StorageVersionMigration)
	svm.Status = oldSVM.Status
	svm.Generation = oldSVM.Generation
}

func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return storagemigration.ValidateStorageVersionMigration(obj.(*storagemigrationv1.StorageVersionMigration))
}

func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return storagemigration.ValidateStorageVersionMigrationUpdate(obj.(*storagemigrationv1.StorageVersionMigration), old.(*storagemigrationv1.StorageVersionMigration))
}

type statusStrategy struct{ strategy }

// GetResetFields is what /status keeps: the metadata and the spec.
func (statusStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("storagemigration.k8s.io/v1", []string{"metadata"}, []string{"spec"})
}

// PrepareForUpdate keeps the spec and what a status write may not change
// of the metadata: labels, annotations, finalizers, owners, generation and
// deletion timestamp.
func (statusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	svm, oldSVM := obj.(*storagemigrationv1.StorageVersionMigration), old.(*storagemigrationv1.StorageVersionMigration)
	svm.Spec = oldSVM.Spec
	svm.DeletionTimestamp = oldSVM.DeletionTimestamp
	svm.Generation = oldSVM.Generation
	svm.Labels, svm.Annotations = oldSVM.Labels, oldSVM.Annotations
	svm.Finalizers, svm.OwnerReferences = oldSVM.Finalizers, oldSVM.OwnerReferences
}

func (statusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return storagemigration.ValidateStorageVersionMigrationStatusUpdate(obj.(*storagemigrationv1.StorageVersionMigration), old.(*storagemigrationv1.StorageVersionMigration))
}

// Storage is the REST storage of storageversionmigrations and their
// /status.
type Storage struct {
	StorageVersionMigration *generic.Store
	Status                  *generic.SubresourceREST
}

// NewStorage returns the storage of storageversionmigrations.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &storagemigrationv1.StorageVersionMigration{} },
		NewListFunc:               func() runtime.Object { return &storagemigrationv1.StorageVersionMigrationList{} },
		DefaultQualifiedResource:  storagemigrationv1.Resource("storageversionmigrations"),
		SingularQualifiedResource: storagemigrationv1.Resource("storageversionmigration"),
		KeyPrefix:                 "/storageversionmigrations",
		// Stored as v1beta1, as kube-apiserver 1.37 stores them.
		StorageVersionKind: storagemigrationv1beta1.SchemeGroupVersion.WithKind("StorageVersionMigration"),
		CreateStrategy:     Strategy,
		UpdateStrategy:     Strategy,
		DeleteStrategy:     Strategy,
	}
	if err := opts.Complete(s, storagemigrationv1beta1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{StorageVersionMigration: s, Status: generic.NewSubresourceREST(s, statusStrategy{Strategy})}, nil
}

// Map returns the storage by path: "storageversionmigrations" and
// "storageversionmigrations/status".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.StorageVersionMigration.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.StorageVersionMigration, plural + "/status": s.Status}
}

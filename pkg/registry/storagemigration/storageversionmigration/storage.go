// Package storageversionmigration is the REST storage of
// storagemigration.k8s.io/v1 storageversionmigrations and their /status.
package storageversionmigration

import (
	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	storagemigrationv1beta1 "k8s.io/api/storagemigration/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/storagemigration"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Strategy is the behaviour of migrations: the spec is fixed at creation,
// the status (the migrator's progress) is written only through /status,
// and an update must name the resourceVersion it was computed from.
// Nothing counts generations.
var Strategy = generic.SpecStrategy[*storagemigrationv1.StorageVersionMigration]{
	DefaultStrategy: generic.DefaultStrategy{RequireResourceVersionOnUpdate: true},
	APIVersions:     []string{"storagemigration.k8s.io/v1"},
	Spec: generic.FieldPart(func(m *storagemigrationv1.StorageVersionMigration) *storagemigrationv1.StorageVersionMigrationSpec {
		return &m.Spec
	}),
	Status: generic.FieldPart(func(m *storagemigrationv1.StorageVersionMigration) *storagemigrationv1.StorageVersionMigrationStatus {
		return &m.Status
	}),
	ValidateFunc:       storagemigration.ValidateStorageVersionMigration,
	ValidateUpdateFunc: storagemigration.ValidateStorageVersionMigrationUpdate,
}

var statusStrategy = generic.StatusStrategy[*storagemigrationv1.StorageVersionMigration]{
	SpecStrategy:             Strategy,
	KeepMetadata:             metav1.ResetObjectMetaForStatus,
	ResetPaths:               [][]string{{"metadata"}},
	ValidateStatusUpdateFunc: storagemigration.ValidateStorageVersionMigrationStatusUpdate,
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
	return &Storage{StorageVersionMigration: s, Status: generic.NewSubresourceREST(s, statusStrategy)}, nil
}

// Map returns the storage by path: "storageversionmigrations" and
// "storageversionmigrations/status".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.StorageVersionMigration.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.StorageVersionMigration, plural + "/status": s.Status}
}

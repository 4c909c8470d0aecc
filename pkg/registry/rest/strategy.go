package rest

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// CreateStrategy is a resource's behaviour on create.
type CreateStrategy interface {
	NamespaceScoped() bool
	// PrepareForCreate clears what a client may not set (status, usually)
	// and initialises server-owned fields, before validation.
	PrepareForCreate(ctx context.Context, obj runtime.Object)
	// Validate returns the object's errors.
	Validate(ctx context.Context, obj runtime.Object) field.ErrorList
	// WarningsOnCreate returns warnings for a valid object.
	WarningsOnCreate(ctx context.Context, obj runtime.Object) []string
	// Canonicalize normalises a valid object before it is stored.
	Canonicalize(obj runtime.Object)
}

// UpdateStrategy is a resource's behaviour on update.
type UpdateStrategy interface {
	NamespaceScoped() bool
	// AllowCreateOnUpdate lets a PUT to a missing name create the object.
	AllowCreateOnUpdate() bool
	// AllowUnconditionalUpdate lets a PUT without resourceVersion
	// overwrite the current object.
	AllowUnconditionalUpdate() bool
	// PrepareForUpdate carries over what the update may not change (the
	// status on the main resource, the spec on /status).
	PrepareForUpdate(ctx context.Context, obj, old runtime.Object)
	ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList
	WarningsOnUpdate(ctx context.Context, obj, old runtime.Object) []string
	Canonicalize(obj runtime.Object)
}

// DeleteStrategy is a resource's behaviour on delete.
type DeleteStrategy interface {
	// DefaultGarbageCollectionPolicy is the propagation policy used when
	// the client gives none.
	DefaultGarbageCollectionPolicy(ctx context.Context) GarbageCollectionPolicy
}

// GracefulDeleteStrategy is implemented by resources whose objects are
// deleted after a grace period (pods).
type GracefulDeleteStrategy interface {
	// CheckGracefulDelete fills in the grace period of opts and reports
	// whether the delete is graceful.
	CheckGracefulDelete(ctx context.Context, obj runtime.Object, opts *GracefulDeleteOptions) bool
}

// GracefulDeleteOptions is the part of metav1.DeleteOptions a graceful
// delete strategy adjusts.
type GracefulDeleteOptions struct {
	GracePeriodSeconds *int64
}

// GarbageCollectionPolicy is a resource's default propagation policy.
type GarbageCollectionPolicy string

const (
	// DeleteDependents deletes dependents in the background.
	DeleteDependents GarbageCollectionPolicy = "DeleteDependents"
	// OrphanDependents orphans dependents (old extensions/v1beta1 style).
	OrphanDependents GarbageCollectionPolicy = "OrphanDependents"
)

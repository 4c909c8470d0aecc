package generic

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// DefaultStrategy holds the answers most resources give to the strategy
// questions that do not depend on their type. A resource's strategy embeds
// it and adds PrepareForCreate, Validate, PrepareForUpdate and
// ValidateUpdate.
type DefaultStrategy struct {
	// Namespaced is whether the resource lives in namespaces.
	Namespaced bool
	// CreateOnUpdate lets a PUT create a missing object.
	CreateOnUpdate bool
	// RequireResourceVersionOnUpdate forbids unconditional updates.
	RequireResourceVersionOnUpdate bool
}

func (s DefaultStrategy) NamespaceScoped() bool          { return s.Namespaced }
func (s DefaultStrategy) AllowCreateOnUpdate() bool      { return s.CreateOnUpdate }
func (s DefaultStrategy) AllowUnconditionalUpdate() bool { return !s.RequireResourceVersionOnUpdate }
func (DefaultStrategy) Canonicalize(runtime.Object)      {}
func (DefaultStrategy) WarningsOnCreate(context.Context, runtime.Object) []string {
	return nil
}
func (DefaultStrategy) WarningsOnUpdate(context.Context, runtime.Object, runtime.Object) []string {
	return nil
}
func (DefaultStrategy) DefaultGarbageCollectionPolicy(context.Context) rest.GarbageCollectionPolicy {
	return rest.DeleteDependents
}

// ValidatingStrategy is the whole strategy of a resource whose objects are
// plain data: nothing server-owned to prepare, validated by the functions
// of its API package. Kinds with a spec and a status use SpecStrategy and
// StatusStrategy; those with other server-owned fields embed one of these
// and add what they do.
type ValidatingStrategy[T runtime.Object] struct {
	DefaultStrategy
	ValidateFunc       func(obj T) field.ErrorList
	ValidateUpdateFunc func(obj, old T) field.ErrorList
}

func (ValidatingStrategy[T]) PrepareForCreate(context.Context, runtime.Object) {}

// PrepareForUpdate does nothing: the Store has already kept the stored
// generation, as it does for every resource.
func (ValidatingStrategy[T]) PrepareForUpdate(context.Context, runtime.Object, runtime.Object) {}

func (s ValidatingStrategy[T]) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return s.ValidateFunc(obj.(T))
}

func (s ValidatingStrategy[T]) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return s.ValidateUpdateFunc(obj.(T), old.(T))
}

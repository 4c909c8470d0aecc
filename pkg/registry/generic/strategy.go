package generic

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"

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

package generic

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// SubresourceREST serves a subresource that reads the whole object and
// writes a part of it, such as /status: GET returns the object, PUT and
// PATCH update it through the subresource's own update strategy, which
// keeps everything else as it was.
type SubresourceREST struct {
	store *Store
}

// NewSubresourceREST returns the storage of a subresource of store whose
// updates follow strategy.
func NewSubresourceREST(store *Store, strategy rest.UpdateStrategy) *SubresourceREST {
	s := *store
	s.UpdateStrategy = strategy
	s.CreateStrategy = store.CreateStrategy
	return &SubresourceREST{store: &s}
}

var (
	_ rest.Getter  = &SubresourceREST{}
	_ rest.Updater = &SubresourceREST{}
	_ rest.Scoper  = &SubresourceREST{}
)

func (r *SubresourceREST) New() runtime.Object   { return r.store.New() }
func (r *SubresourceREST) Destroy()              {}
func (r *SubresourceREST) NamespaceScoped() bool { return r.store.NamespaceScoped() }

func (r *SubresourceREST) Get(ctx context.Context, name string, opts *metav1.GetOptions) (runtime.Object, error) {
	return r.store.Get(ctx, name, opts)
}

// Update never creates: a subresource exists only with its object.
func (r *SubresourceREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc,
	updateValidation rest.ValidateObjectUpdateFunc, _ bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return r.store.Update(ctx, name, objInfo, createValidation, updateValidation, false, opts)
}

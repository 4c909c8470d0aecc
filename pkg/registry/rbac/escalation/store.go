package escalation

import (
	"context"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// CheckFunc judges an object about to be stored; old is nil on create.
type CheckFunc func(ctx context.Context, obj, old runtime.Object) error

// Store is a generic.Store whose Create and Update first ask Check. The
// check runs before validation and admission, as in kube-apiserver, so a
// user who may not write a role learns that before what is wrong with it.
type Store struct {
	*generic.Store
	Check CheckFunc
}

// Create checks obj, then creates it.
func (s *Store) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, opts *metav1.CreateOptions) (runtime.Object, error) {
	if err := s.Check(ctx, obj, nil); err != nil {
		return nil, err
	}
	return s.Store.Create(ctx, obj, createValidation, opts)
}

// Update checks the updated object against the current one, then stores
// it. An update that only touches what the garbage collector needs
// (owner references, finalizers) is not checked: otherwise deleting a
// namespace could get stuck on a role its deleter does not fully hold.
func (s *Store) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc,
	updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	checked := checkedInfo{UpdatedObjectInfo: objInfo, check: func(ctx context.Context, obj, old runtime.Object) error {
		if old != nil && onlyGCFieldsChanged(obj, old) {
			return nil
		}
		return s.Check(ctx, obj, old)
	}}
	return s.Store.Update(ctx, name, checked, createValidation, updateValidation, forceAllowCreate, opts)
}

type checkedInfo struct {
	rest.UpdatedObjectInfo
	check CheckFunc
}

func (c checkedInfo) UpdatedObject(ctx context.Context, old runtime.Object) (runtime.Object, error) {
	obj, err := c.UpdatedObjectInfo.UpdatedObject(ctx, old)
	if err != nil {
		return nil, err
	}
	if err := c.check(ctx, obj, old); err != nil {
		return nil, err
	}
	return obj, nil
}

// onlyGCFieldsChanged reports whether obj differs from old at most in
// its owner references and finalizers (and the fields the server owns).
func onlyGCFieldsChanged(obj, old runtime.Object) bool {
	a, b := obj.DeepCopyObject(), old.DeepCopyObject()
	ma, err1 := meta.Accessor(a)
	mb, err2 := meta.Accessor(b)
	if err1 != nil || err2 != nil {
		return false
	}
	for _, m := range []metav1.Object{ma, mb} {
		m.SetOwnerReferences(nil)
		m.SetFinalizers(nil)
		m.SetResourceVersion("")
		m.SetManagedFields(nil)
		m.SetGeneration(0)
	}
	return equality.Semantic.DeepEqual(a, b)
}

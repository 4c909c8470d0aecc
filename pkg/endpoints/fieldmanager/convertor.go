package fieldmanager

import (
	"reflect"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// versionedCopies is the convertor the field manager is given. The field
// manager converts every object it compares (the live one, the new one)
// to the version of the endpoint before it types it. kapi's storage
// versions are served versions, so that nearly all these conversions are
// to the version the object is in already, for which a scheme makes a
// deep copy. A shallow copy does: the field manager reads the objects it
// converts and does not change them (what it returns, it builds). The
// copy also leaves the managedFields out: the field manager keeps them
// apart, ignores them in the objects it compares, and typing them by
// reflection is what costs most in an object with many managers.
//
// What the field manager builds (an applied object) is unstructured: an
// object of a kind that has a Go type is made typed first, as a scheme
// does, whatever next would do (the codecs of custom resources take every
// unstructured object for one, the Scale of their scale subresource too).
// Conversions to another version, and of lists, are next's.
type versionedCopies struct {
	next    runtime.ObjectConvertor
	typer   runtime.ObjectTyper
	creater runtime.ObjectCreater
	// unstructuredKind is the endpoint's kind when it has no Go type.
	unstructuredKind schema.GroupVersionKind
}

func (c versionedCopies) Convert(in, out, context any) error { return c.next.Convert(in, out, context) }

func (c versionedCopies) ConvertFieldLabel(gvk schema.GroupVersionKind, label, value string) (string, string, error) {
	return c.next.ConvertFieldLabel(gvk, label, value)
}

func (c versionedCopies) ConvertToVersion(in runtime.Object, target runtime.GroupVersioner) (runtime.Object, error) {
	if u, ok := in.(*unstructured.Unstructured); ok {
		gvk := u.GroupVersionKind()
		if gvk != c.unstructuredKind {
			typed, err := c.typed(u)
			if err != nil {
				return nil, err
			}
			if typed == nil {
				return c.next.ConvertToVersion(in, target)
			}
			in = typed
		} else {
			if to, ok := target.KindForGroupVersionKinds([]schema.GroupVersionKind{gvk}); !ok || to != gvk {
				return c.next.ConvertToVersion(in, target)
			}
			return withoutManagedFields(u), nil
		}
	}
	if _, ok := in.(runtime.Unstructured); ok {
		return c.next.ConvertToVersion(in, target)
	}
	kinds, _, err := c.typer.ObjectKinds(in)
	if err != nil {
		return c.next.ConvertToVersion(in, target)
	}
	to, ok := target.KindForGroupVersionKinds(kinds)
	if !ok || to != kinds[0] {
		return c.next.ConvertToVersion(in, target)
	}
	v := reflect.ValueOf(in)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return c.next.ConvertToVersion(in, target)
	}
	cp := reflect.New(v.Elem().Type())
	cp.Elem().Set(v.Elem())
	out := cp.Interface().(runtime.Object)
	out.GetObjectKind().SetGroupVersionKind(to)
	if m, err := meta.Accessor(out); err == nil {
		// The copy's ObjectMeta is its own: the original keeps its
		// managedFields.
		m.SetManagedFields(nil)
	}
	return out, nil
}

// typed returns u as the Go type of its kind, or nil when its kind has
// none.
func (c versionedCopies) typed(u *unstructured.Unstructured) (runtime.Object, error) {
	if c.creater == nil {
		return nil, nil
	}
	obj, err := c.creater.New(u.GroupVersionKind())
	if err != nil {
		return nil, nil
	}
	if _, ok := obj.(runtime.Unstructured); ok {
		return nil, nil
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj); err != nil {
		return nil, err
	}
	obj.GetObjectKind().SetGroupVersionKind(u.GroupVersionKind())
	return obj, nil
}

// withoutManagedFields is a copy of u sharing all but its top level and its
// metadata, which has no managedFields.
func withoutManagedFields(u *unstructured.Unstructured) *unstructured.Unstructured {
	out := make(map[string]any, len(u.Object))
	for k, v := range u.Object {
		out[k] = v
	}
	if m, ok := u.Object["metadata"].(map[string]any); ok {
		meta := make(map[string]any, len(m))
		for k, v := range m {
			if k != "managedFields" {
				meta[k] = v
			}
		}
		out["metadata"] = meta
	}
	return &unstructured.Unstructured{Object: out}
}

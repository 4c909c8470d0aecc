package webhook

import (
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/admission"
)

// Versioned are a write's objects in the version of the kind a webhook is
// called with. The attributes' objects are in the storage version; a
// webhook sees the version it registered for.
type Versioned struct {
	Attributes *admission.Attributes
	Kind       schema.GroupVersionKind
	Object     runtime.Object
	OldObject  runtime.Object
	// Dirty says a mutating webhook changed Object since it was converted
	// from the attributes: WriteBack must carry the change to them.
	Dirty bool
}

// NewVersioned converts a's objects to the version of kind. The
// attributes' objects are left untouched.
func NewVersioned(a *admission.Attributes, kind schema.GroupVersionKind) (*Versioned, error) {
	v := &Versioned{Attributes: a, Kind: kind}
	var err error
	if v.Object, err = convert(a, a.Object, kind); err != nil {
		return nil, err
	}
	if v.OldObject, err = convert(a, a.OldObject, kind); err != nil {
		return nil, err
	}
	return v, nil
}

// ConvertTo converts the objects, as they are now, to the version of
// kind.
func (v *Versioned) ConvertTo(kind schema.GroupVersionKind) error {
	if kind == v.Kind {
		return nil
	}
	obj, err := convert(v.Attributes, v.Object, kind)
	if err != nil {
		return err
	}
	old, err := convert(v.Attributes, v.OldObject, kind)
	if err != nil {
		return err
	}
	v.Kind, v.Object, v.OldObject = kind, obj, old
	return nil
}

// WriteBack carries the changes the webhooks made to the attributes'
// object, converted back to its version, in place: the handler holds
// that object.
func (v *Versioned) WriteBack() error {
	a := v.Attributes
	if !v.Dirty || v.Object == nil || a.Object == nil {
		return nil
	}
	hubKinds, _, err := a.Objects.Typer.ObjectKinds(a.Object)
	if err != nil {
		return err
	}
	var hub runtime.Object
	if u, ok := a.Object.(*unstructured.Unstructured); ok && u.GroupVersionKind().Version != "" {
		hub, err = a.Objects.Convertor.ConvertToVersion(v.Object.DeepCopyObject(), u.GroupVersionKind().GroupVersion())
	} else {
		hub, err = convertToKind(a.Objects, v.Object.DeepCopyObject(), hubKinds[0])
	}
	if err != nil {
		return err
	}
	if err := replace(a.Object, hub); err != nil {
		return err
	}
	v.Dirty = false
	return nil
}

// replace makes dst hold src's content; both of the same type.
func replace(dst, src runtime.Object) error {
	if du, ok := dst.(runtime.Unstructured); ok {
		su, ok := src.(runtime.Unstructured)
		if !ok {
			return fmt.Errorf("cannot write %T into %T", src, dst)
		}
		du.SetUnstructuredContent(su.UnstructuredContent())
		return nil
	}
	dv, sv := reflect.ValueOf(dst), reflect.ValueOf(src)
	if dv.Type() != sv.Type() || dv.Kind() != reflect.Pointer {
		return fmt.Errorf("cannot write %T into %T", src, dst)
	}
	dv.Elem().Set(sv.Elem())
	return nil
}

// convert is a copy of obj in kind's version, with its apiVersion and
// kind set, as the webhook receives it.
func convert(a *admission.Attributes, obj runtime.Object, kind schema.GroupVersionKind) (runtime.Object, error) {
	if obj == nil {
		return nil, nil
	}
	if a.Objects.Convertor == nil {
		return nil, fmt.Errorf("no converter for %v", kind)
	}
	out, err := convertToKind(a.Objects, obj.DeepCopyObject(), kind)
	if err != nil {
		return nil, err
	}
	if out == obj {
		out = out.DeepCopyObject()
	}
	out.GetObjectKind().SetGroupVersionKind(kind)
	return out, nil
}

// convertToKind converts obj to kind's version; or, for a resource served
// in two groups (core/v1 and events.k8s.io/v1 events, one kind converted
// to the other), to kind itself, which ConvertToVersion does not find
// among obj's kinds.
func convertToKind(o admission.ObjectInterfaces, obj runtime.Object, kind schema.GroupVersionKind) (runtime.Object, error) {
	out, err := o.Convertor.ConvertToVersion(obj, kind.GroupVersion())
	if err == nil || o.Creater == nil || o.Typer == nil {
		return out, err
	}
	kinds, _, terr := o.Typer.ObjectKinds(obj)
	if terr != nil || len(kinds) == 0 || kinds[0].Group == kind.Group {
		return nil, err
	}
	target, nerr := o.Creater.New(kind)
	if nerr != nil {
		return nil, err
	}
	if cerr := o.Convertor.Convert(obj, target, nil); cerr != nil {
		return nil, cerr
	}
	return target, nil
}

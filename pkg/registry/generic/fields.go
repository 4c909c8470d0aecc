package generic

import (
	"fmt"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/storage"
)

// ObjectMetaFieldsSet returns the fields every object can be selected by:
// metadata.name, and metadata.namespace for namespaced objects.
func ObjectMetaFieldsSet(m metav1.Object, namespaced bool) fields.Set {
	if !namespaced {
		return fields.Set{"metadata.name": m.GetName()}
	}
	return fields.Set{"metadata.name": m.GetName(), "metadata.namespace": m.GetNamespace()}
}

// MergeFieldsSets adds the fields of extra to base and returns base.
func MergeFieldsSets(base, extra fields.Set) fields.Set {
	for k, v := range extra {
		base[k] = v
	}
	return base
}

// FieldsFunc returns an object's selectable fields beyond the metadata
// ones. A resource with none leaves it nil.
type FieldsFunc func(obj runtime.Object) fields.Set

// attrFunc builds the storage.AttrFunc of a resource from its extra
// selectable fields.
func attrFunc(namespaced bool, extra FieldsFunc) storage.AttrFunc {
	return func(obj runtime.Object) (labels.Set, fields.Set, error) {
		m, err := meta.Accessor(obj)
		if err != nil {
			return nil, nil, err
		}
		fs := ObjectMetaFieldsSet(m, namespaced)
		if extra != nil {
			MergeFieldsSets(fs, extra(obj))
		}
		return labels.Set(m.GetLabels()), fs, nil
	}
}

// selectableFields lists the field names a resource may be selected by, in
// the order kube-apiserver names them in its error message.
func selectableFields(namespaced bool, extra []string) []string {
	names := []string{"metadata.name"}
	if namespaced {
		names = append(names, "metadata.namespace")
	}
	rest := append([]string(nil), extra...)
	sort.Strings(rest)
	return append(names, rest...)
}

// fieldSelectorRule returns the fields a list or watch of the store's
// resource may select on, and the error for any other (nil: the error
// naming the allowed fields), as kube-apiserver has them. A resource with
// fields of its own (kube-apiserver registers a field label conversion
// for its kind) accepts metadata.name, metadata.namespace when it is
// namespaced, and its fields, and refuses others with "field label not
// supported". A resource without accepts metadata.name and
// metadata.namespace whatever its scope, a cluster-scoped object having
// an empty namespace, and names the two in its refusal.
func (s *Store) fieldSelectorRule() ([]string, func(field string) error) {
	if len(s.SelectableFields) == 0 && s.UnknownFieldSelector == nil {
		return []string{"metadata.name", "metadata.namespace"}, nil
	}
	unknown := s.UnknownFieldSelector
	if unknown == nil {
		unknown = func(field string) error { return fmt.Errorf("field label not supported: %s", field) }
	}
	return selectableFields(s.NamespaceScoped() && !s.NamespaceNotSelectable, s.SelectableFields), unknown
}

// validateFieldSelector rejects a selector on a field the resource cannot
// select on, with unknown's error, or kube-apiserver's for built-in
// resources when unknown is nil.
func validateFieldSelector(sel fields.Selector, allowed []string, unknown func(field string) error) error {
	if sel == nil {
		return nil
	}
	known := make(map[string]bool, len(allowed))
	for _, f := range allowed {
		known[f] = true
	}
	for _, r := range sel.Requirements() {
		if known[r.Field] {
			continue
		}
		if unknown != nil {
			return apierrors.NewBadRequest(unknown(r.Field).Error())
		}
		quoted := make([]string, len(allowed))
		for i, f := range allowed {
			quoted[i] = fmt.Sprintf("%q", f)
		}
		return apierrors.NewBadRequest(fmt.Sprintf("%q is not a known field selector: only %s", r.Field, strings.Join(quoted, ", ")))
	}
	return nil
}

// Package patch applies the mutations of a MutatingAdmissionPolicy to an
// object, as kube-apiserver applies them
// (k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch):
//
//   - ApplyConfiguration: the expression's Object{...} value is merged
//     into the object as server-side apply merges a configuration, against
//     the schema of the object's kind (lists of type map merge by key, so
//     a container or an env var is added or changed by name), except that
//     an apply configuration may not set an atomic list, map or struct,
//     and no field ownership is recorded.
//   - JSONPatch: the expression's list of JSONPatch{...} values is an RFC
//     6902 patch applied to the object's JSON. A failed "test" operation
//     leaves the object unchanged (the whole patch is skipped); the
//     result is decoded strictly, as the object's kind in its version.
//
// The object and the result are in the version of the kind the policy
// matched; the caller converts, defaults and writes the result back.
// Errors are kube-apiserver's words: a *StatusError (an internal error
// decoding a patched object) is the request's answer whatever the
// policy's failurePolicy; any other error is the policy's failure.
package patch

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/cel-go/common/types/ref"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
	"sigs.k8s.io/structured-merge-diff/v6/value"

	"github.com/kapi-dev/kapi/pkg/cel/mutation"
)

// ApplyConfiguration merges result, the value of an ApplyConfiguration
// expression, into obj (which it does not change) and returns the merged
// object, as unstructured content. tc knows obj's kind.
func ApplyConfiguration(tc managedfields.TypeConverter, obj runtime.Object, result ref.Val) (runtime.Object, error) {
	o, ok := result.(*mutation.ObjectVal)
	if !ok {
		return nil, fmt.Errorf("unsupported return type from ApplyConfiguration expression: %v", result.Type())
	}
	if err := o.CheckTypeNames(); err != nil {
		return nil, fmt.Errorf("type mismatch: %w", err)
	}
	content, err := o.Native()
	if err != nil {
		return nil, fmt.Errorf("invalid return type: %w", err)
	}
	cfg := &unstructured.Unstructured{Object: content}
	cfg.SetGroupVersionKind(obj.GetObjectKind().GroupVersionKind())
	merged, err := merge(tc, obj, cfg)
	if err != nil {
		return nil, fmt.Errorf("error applying patch: %w", err)
	}
	return merged, nil
}

// merge merges the apply configuration cfg into obj.
func merge(tc managedfields.TypeConverter, obj runtime.Object, cfg *unstructured.Unstructured) (runtime.Object, error) {
	if tc == nil {
		return nil, errors.New("type converter must not be nil")
	}
	cfgTyped, err := tc.ObjectToTyped(cfg)
	if err != nil {
		return nil, fmt.Errorf("failed to convert patch object to typed object: %w", err)
	}
	if atomics := atomicsSet(cfgTyped); len(atomics) > 0 {
		return nil, fmt.Errorf("invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: %v", strings.Join(atomics, ", "))
	}
	live, err := tc.ObjectToTyped(obj, typed.AllowDuplicates)
	if err != nil {
		return nil, fmt.Errorf("failed to convert original object to typed object: %w", err)
	}
	out, err := live.Merge(cfgTyped)
	if err != nil {
		return nil, fmt.Errorf("failed to merge patch: %w", err)
	}
	merged, err := tc.TypedToObject(out)
	if err != nil {
		return nil, fmt.Errorf("failed to convert typed object to object: %w", err)
	}
	return merged, nil
}

// atomicsSet lists the paths at which the configuration sets an atomic
// list, map or struct: apply would replace it whole, which a mutation
// may not do. Only fields the schema declares are looked into (not the
// values of a map of strings, say).
func atomicsSet(v *typed.TypedValue) []string {
	var out []string
	s := v.Schema()
	var visit func(path string, tr schema.TypeRef, val value.Value)
	visit = func(path string, tr schema.TypeRef, val value.Value) {
		a, ok := s.Resolve(tr)
		if !ok {
			return
		}
		switch {
		case val.IsMap() && a.Map != nil:
			if a.Map.ElementRelationship == schema.Atomic {
				out = append(out, path)
			}
			m := val.AsMap()
			var keys []string
			m.Iterate(func(k string, _ value.Value) bool { keys = append(keys, k); return true })
			slices.Sort(keys)
			for _, k := range keys {
				if f, ok := a.Map.FindField(k); ok {
					fv, _ := m.Get(k)
					visit(path+fieldpath.PathElement{FieldName: &k}.String(), f.Type, fv)
				}
			}
		case val.IsList() && a.List != nil:
			if a.List.ElementRelationship == schema.Atomic {
				out = append(out, path)
			}
			l := val.AsList()
			for i := 0; i < l.Length(); i++ {
				visit(fmt.Sprintf("%s[%d]", path, i), a.List.ElementType, l.At(i))
			}
		}
	}
	visit("", v.TypeRef(), v.AsValue())
	return out
}

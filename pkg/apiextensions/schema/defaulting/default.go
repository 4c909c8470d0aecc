package defaulting

import (
	"fmt"
	"maps"
	"reflect"
	"slices"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apiextensions/schema"
	"github.com/kapi-dev/kapi/pkg/apiextensions/schema/objectmeta"
	"github.com/kapi-dev/kapi/pkg/apiextensions/schema/pruning"
)

// Default applies the schema's default values to x in place, as
// kube-apiserver does on decode and when reading from storage:
//
//   - a property with a default is set when it is missing, or when it is
//     null and the property is not nullable;
//   - null items and null additionalProperties values are replaced by the
//     default of the items / additionalProperties schema when they are not
//     nullable;
//   - defaults are deep-copied, so x never shares memory with s.
//
// Run PruneNonNullableNullsWithoutDefaults first: it removes the nulls that
// have no default to replace them.
func Default(x interface{}, s *schema.Structural) {
	if s == nil {
		return
	}
	switch x := x.(type) {
	case map[string]interface{}:
		for name, prop := range s.Properties {
			if prop.Default == nil {
				continue
			}
			if v, found := x[name]; !found || isNonNullableNull(v, prop) {
				x[name] = runtime.DeepCopyJSONValue(prop.Default)
			}
		}
		for name, v := range x {
			if prop, found := s.Properties[name]; found {
				Default(v, prop)
			} else if s.AdditionalProperties != nil {
				valueSchema := s.AdditionalProperties.Schema
				if isNonNullableNull(v, valueSchema) {
					v = runtime.DeepCopyJSONValue(valueSchema.Default)
					x[name] = v
				}
				Default(v, valueSchema)
			}
		}
	case []interface{}:
		for i, v := range x {
			if isNonNullableNull(v, s.Items) {
				v = runtime.DeepCopyJSONValue(s.Items.Default)
				x[i] = v
			}
			Default(v, s.Items)
		}
	}
}

func isNonNullableNull(x interface{}, s *schema.Structural) bool {
	return x == nil && s != nil && !s.Nullable
}

// PruneNonNullableNullsWithoutDefaults removes, in place, the object fields
// that are null although their schema is not nullable and has no default
// to replace the null (Default handles those that have one). Fields the
// schema does not know are left to pruning.Prune.
func PruneNonNullableNullsWithoutDefaults(x interface{}, s *schema.Structural) {
	switch x := x.(type) {
	case map[string]interface{}:
		for name, v := range x {
			fieldSchema := fieldSchema(s, name)
			if v == nil && fieldSchema != nil && !fieldSchema.Nullable && fieldSchema.Default == nil {
				delete(x, name)
				continue
			}
			PruneNonNullableNullsWithoutDefaults(v, fieldSchema)
		}
	case []interface{}:
		var items *schema.Structural
		if s != nil {
			items = s.Items
		}
		for _, v := range x {
			PruneNonNullableNullsWithoutDefaults(v, items)
		}
	}
}

// fieldSchema is the schema of the object field name: its property, else
// the additionalProperties schema.
func fieldSchema(s *schema.Structural, name string) *schema.Structural {
	if s == nil {
		return nil
	}
	if prop, found := s.Properties[name]; found {
		return prop
	}
	if s.AdditionalProperties != nil {
		return s.AdditionalProperties.Schema
	}
	return nil
}

// PruneDefaults prunes, in place, every default value in s the way the
// value would be pruned in an object (unknown fields dropped, metadata
// coerced). kube-apiserver serves custom resources with the pruned
// defaults; CRD validation rejects unpruned defaults in new schemas, so
// this only changes schemas stored by older servers.
func PruneDefaults(s *schema.Structural) error {
	_, err := pruneDefaults(s, s, SurroundingRoot())
	return err
}

func pruneDefaults(s, root *schema.Structural, surround Surrounding) (changed bool, err error) {
	if s == nil {
		return false, nil
	}
	if s.Default != nil {
		orig := runtime.DeepCopyJSONValue(s.Default)
		obj, access, err := surround(s.Default)
		if err != nil {
			return false, fmt.Errorf("failed to prune default value: %v", err)
		}
		if err, _ := objectmeta.Coerce(nil, obj, root, true, objectmeta.CoerceOptions{DropInvalidFields: true}); err != nil {
			return false, fmt.Errorf("failed to prune default value: %v", err)
		}
		pruning.Prune(obj, root, true)
		if s.Default, _, err = access(obj); err != nil {
			return false, fmt.Errorf("failed to prune default value: %v", err)
		}
		changed = !reflect.DeepEqual(orig, s.Default)
	}

	if s.AdditionalProperties != nil {
		c, err := pruneDefaults(s.AdditionalProperties.Schema, root, surround.Child("*"))
		if err != nil {
			return false, err
		}
		changed = changed || c
	}
	c, err := pruneDefaults(s.Items, root, surround.Index())
	if err != nil {
		return false, err
	}
	changed = changed || c
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		c, err := pruneDefaults(s.Properties[name], root, surround.Child(name))
		if err != nil {
			return false, err
		}
		changed = changed || c
	}
	return changed, nil
}

// Surrounding builds, around a value found at a fixed path, the
// smallest object that holds it there, and an Accessor that reads the
// value back out of that object (after it was pruned, say). It lets a
// default value be pruned or validated in the context of the whole
// resource, which is what decides whether metadata fields are kept.
type Surrounding func(focus interface{}) (map[string]interface{}, Accessor, error)

// Accessor reads the value at the Surrounding's path; found is false
// when it was removed.
type Accessor func(obj map[string]interface{}) (value interface{}, found bool, err error)

// SurroundingRoot is the identity: the value is the object itself.
func SurroundingRoot() Surrounding {
	return func(x interface{}) (map[string]interface{}, Accessor, error) {
		obj, ok := x.(map[string]interface{})
		if !ok {
			return nil, nil, fmt.Errorf("object root default value must be of object type")
		}
		return obj, func(root map[string]interface{}) (interface{}, bool, error) {
			return root, true, nil
		}, nil
	}
}

// WithTypeMeta sets apiVersion and kind on the surrounding object when it
// lacks them, so that it validates as an embedded resource.
func (f Surrounding) WithTypeMeta(apiVersion, kind string) Surrounding {
	return func(x interface{}) (map[string]interface{}, Accessor, error) {
		obj, acc, err := f(x)
		if err != nil {
			return nil, nil, err
		}
		if obj == nil {
			obj = map[string]interface{}{}
		}
		if _, found := obj["kind"]; !found {
			obj["kind"] = kind
		}
		if _, found := obj["apiVersion"]; !found {
			obj["apiVersion"] = apiVersion
		}
		return obj, acc, nil
	}
}

// Child puts the value under field k: x => f({k: x}).
func (f Surrounding) Child(k string) Surrounding {
	return func(x interface{}) (map[string]interface{}, Accessor, error) {
		obj, acc, err := f(map[string]interface{}{k: x})
		if err != nil {
			return nil, nil, err
		}
		return obj, func(obj map[string]interface{}) (interface{}, bool, error) {
			parent, found, err := acc(obj)
			if err != nil {
				return nil, false, fmt.Errorf(".%s%v", k, err)
			}
			if !found {
				return nil, false, nil
			}
			m, ok := parent.(map[string]interface{})
			if !ok {
				return nil, false, fmt.Errorf(".%s must be of object type", k)
			}
			v, found := m[k]
			return v, found, nil
		}, nil
	}
}

// Index puts the value in a one-item list: x => f([x]).
func (f Surrounding) Index() Surrounding {
	return func(x interface{}) (map[string]interface{}, Accessor, error) {
		obj, acc, err := f([]interface{}{x})
		if err != nil {
			return nil, nil, err
		}
		return obj, func(obj map[string]interface{}) (interface{}, bool, error) {
			parent, found, err := acc(obj)
			if err != nil {
				return nil, false, fmt.Errorf("[]%v", err)
			}
			if !found {
				return nil, false, nil
			}
			l, ok := parent.([]interface{})
			if !ok {
				return nil, false, fmt.Errorf("[] must be of array type")
			}
			if len(l) == 0 {
				return nil, false, nil
			}
			return l[0], true, nil
		}, nil
	}
}

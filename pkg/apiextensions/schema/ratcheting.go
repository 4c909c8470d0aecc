package schema

import (
	"fmt"
	"reflect"
	"strings"

	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
)

// ratchetingValidator validates a value the way the plain value validator
// does, but drops its errors when the value is unchanged from the old
// object. It plugs into the value validator's recursion so that every
// property and item whose old value can be found gets its own ratcheting
// validator; below a value with no old counterpart plain validation
// resumes.
type ratchetingValidator struct {
	schema      *spec.Schema
	path        string
	correlation *correlation
}

func newRatchetingValidator(schema *spec.Schema, path string, c *correlation) *ratchetingValidator {
	return &ratchetingValidator{schema: schema, path: path, correlation: c}
}

func (r *ratchetingValidator) Validate(interface{}) *validate.Result {
	hooks := func(o *validate.SchemaValidatorOptions) {
		o.NewValidatorForField = r.validatorForField
		o.NewValidatorForIndex = r.validatorForIndex
	}
	result := validate.NewSchemaValidator(r.schema, nil, r.path, strfmt.Default, hooks).Validate(r.correlation.new)
	if result.IsValid() {
		return result
	}
	if r.correlation.unchanged() {
		ratcheted := &validate.Result{}
		ratcheted.MergeAsWarnings(result)
		return ratcheted
	}
	return result
}

func (r *ratchetingValidator) validatorForField(name string, schema *spec.Schema, rootSchema interface{}, path string, formats strfmt.Registry, opts ...validate.Option) validate.ValueValidator {
	child := r.correlation.field(name)
	// apiVersion and kind of the root are never ratcheted: both objects
	// were converted to the same version, so a change would not show.
	if child == nil || (r.path == "" && (name == "apiVersion" || name == "kind")) {
		return validate.NewSchemaValidator(schema, rootSchema, path, formats, opts...)
	}
	return newRatchetingValidator(schema, path, child)
}

func (r *ratchetingValidator) validatorForIndex(index int, schema *spec.Schema, rootSchema interface{}, path string, formats strfmt.Registry, opts ...validate.Option) validate.ValueValidator {
	child := r.correlation.index(index)
	if child == nil {
		return validate.NewSchemaValidator(schema, rootSchema, path, formats, opts...)
	}
	return newRatchetingValidator(schema, path, child)
}

func (r *ratchetingValidator) SetPath(string) {}

func (r *ratchetingValidator) Applies(interface{}, reflect.Kind) bool { return true }

// correlation pairs a value of the new object with the value at the same
// place in the old object, if there is one. Children are matched by field
// name, and for x-kubernetes-list-type map by their keys; items of other
// lists have no counterpart (their position means nothing).
type correlation struct {
	new, old interface{}
	schema   *spec.Schema

	equal    *bool // cached result of unchanged
	oldItems *keyedItems
	children map[interface{}]*correlation
}

func newCorrelation(new, old interface{}, schema *spec.Schema) *correlation {
	return &correlation{new: new, old: old, schema: schema}
}

// field returns the correlation of object field name, nil if either side
// lacks it or the schema does not describe it.
func (c *correlation) field(name string) *correlation {
	if c == nil || c.schema == nil {
		return nil
	}
	if child, found := c.children[name]; found {
		return child
	}
	oldMap, okOld := c.old.(map[string]interface{})
	newMap, okNew := c.new.(map[string]interface{})
	if !okOld || !okNew {
		return nil
	}
	oldValue, okOld := oldMap[name]
	newValue, okNew := newMap[name]
	if !okOld || !okNew {
		return nil
	}
	var schema *spec.Schema
	if prop, found := c.schema.Properties[name]; found {
		schema = &prop
	} else if ap := c.schema.AdditionalProperties; ap != nil && ap.Schema != nil {
		schema = ap.Schema
	} else {
		return nil
	}
	return c.remember(name, &correlation{new: newValue, old: oldValue, schema: schema})
}

// index returns the correlation of list item i of the new value, nil if it
// has no counterpart in the old list.
func (c *correlation) index(i int) *correlation {
	if c == nil || c.schema == nil {
		return nil
	}
	if child, found := c.children[i]; found {
		return child
	}
	newList, ok := c.new.([]interface{})
	if !ok || len(newList) <= i {
		return nil
	}
	oldList, ok := c.old.([]interface{})
	if !ok || listType(c.schema) != "map" {
		return nil
	}
	if c.oldItems == nil {
		c.oldItems = newKeyedItems(c.schema, oldList)
	}
	oldValue := c.oldItems.get(newList[i])
	if oldValue == nil || c.schema.Items == nil || c.schema.Items.Schema == nil {
		return nil
	}
	return c.remember(i, &correlation{new: newList[i], old: oldValue, schema: c.schema.Items.Schema})
}

func (c *correlation) remember(key interface{}, child *correlation) *correlation {
	if c.children == nil {
		c.children = map[interface{}]*correlation{}
	}
	c.children[key] = child
	return child
}

// unchanged reports whether the new value deep-equals the old one, reusing
// the answers of the children already compared.
func (c *correlation) unchanged() (equal bool) {
	if c == nil {
		return false
	}
	if c.equal != nil {
		return *c.equal
	}
	defer func() { c.equal = &equal }()

	if c.new == nil || c.old == nil {
		return c.new == nil && c.old == nil
	}
	oldList, oldIsList := c.old.([]interface{})
	newList, newIsList := c.new.([]interface{})
	oldMap, oldIsMap := c.old.(map[string]interface{})
	newMap, newIsMap := c.new.(map[string]interface{})
	if oldIsList != newIsList || oldIsMap != newIsMap {
		return false
	}
	switch {
	case oldIsList:
		if len(oldList) != len(newList) {
			return false
		}
		for i := range newList {
			child := c.index(i)
			if child == nil {
				if c.oldItems == nil {
					// not a map list: compare positionally
					return reflect.DeepEqual(oldList, newList)
				}
				return false
			}
			if !child.unchanged() {
				return false
			}
		}
		return true
	case oldIsMap:
		if len(oldMap) != len(newMap) {
			return false
		}
		for name := range newMap {
			child := c.field(name)
			if child == nil || !child.unchanged() {
				return false
			}
		}
		return true
	default:
		return reflect.DeepEqual(c.old, c.new)
	}
}

func listType(s *spec.Schema) string {
	if t, ok := s.Extensions["x-kubernetes-list-type"].(string); ok {
		return t
	}
	return ""
}

func listMapKeys(s *spec.Schema) []string {
	switch keys := s.Extensions["x-kubernetes-list-map-keys"].(type) {
	case []string:
		return keys
	case []interface{}:
		out := make([]string, 0, len(keys))
		for _, k := range keys {
			if ks, ok := k.(string); ok {
				out = append(out, ks)
			}
		}
		return out
	}
	return nil
}

// keyedItems finds the items of an x-kubernetes-list-type map list by key.
// The index is built lazily, as far as lookups need it.
type keyedItems struct {
	keys    []string
	byKey   map[interface{}]interface{}
	pending []interface{}
}

func newKeyedItems(s *spec.Schema, items []interface{}) *keyedItems {
	if len(s.Type) == 0 || s.Type[0] != "array" || listType(s) != "map" || len(listMapKeys(s)) == 0 || len(items) == 0 {
		return &keyedItems{}
	}
	return &keyedItems{keys: listMapKeys(s), byKey: map[interface{}]interface{}{}, pending: items}
}

// get returns the item with the same key values as obj, nil if none.
func (k *keyedItems) get(obj interface{}) interface{} {
	m, ok := obj.(map[string]interface{})
	if !ok || len(k.keys) == 0 {
		return nil
	}
	key, ok := k.keyOf(m)
	if !ok {
		return nil
	}
	if match, found := k.byKey[key]; found {
		return match
	}
	for len(k.pending) > 0 {
		item, ok := k.pending[0].(map[string]interface{})
		k.pending = k.pending[1:]
		if !ok {
			continue
		}
		itemKey, ok := k.keyOf(item)
		if !ok {
			continue
		}
		if _, found := k.byKey[itemKey]; !found {
			k.byKey[itemKey] = item
		}
		if itemKey == key {
			return item
		}
	}
	return nil
}

// keyOf returns a comparable key for the key fields of m; false if one is
// missing or not a scalar.
func (k *keyedItems) keyOf(m map[string]interface{}) (interface{}, bool) {
	if len(k.keys) == 1 {
		v, found := m[k.keys[0]]
		if !found {
			return nil, false
		}
		switch v.(type) {
		case bool, float64, int64, string:
			return v, true
		}
		return nil, false
	}
	var b strings.Builder
	for _, name := range k.keys {
		switch v := m[name].(type) {
		case bool:
			fmt.Fprintf(&b, "\x00%t", v)
		case float64:
			fmt.Fprintf(&b, "\x00%f", v)
		case int64:
			fmt.Fprintf(&b, "\x00%d", v)
		case string:
			fmt.Fprintf(&b, "\x00%q", v)
		default:
			return nil, false // missing or not a scalar
		}
	}
	return b.String(), true
}

// Package ratchet pairs the values of an updated custom resource with
// their old values, so that validation can ratchet: an error on a value
// that did not change is a warning, not a refusal (CRDValidationRatcheting,
// GA and locked on since Kubernetes 1.33), so that tightening a schema
// does not make existing objects impossible to update.
//
// Values are matched old to new as kube-apiserver matches them, and as
// CEL's oldSelf sees them: object members by name, items of
// x-kubernetes-list-type map lists by their keys. Items of other lists
// have no old counterpart: their position means nothing. Both the schema
// value validator and the CEL rules use this one correlation; they differ
// only in what a value without counterpart does (see their packages).
package ratchet

import (
	"fmt"
	"reflect"
	"strings"
)

// Schema is what correlating values needs of the schema of a value.
type Schema interface {
	// Field returns the schema of member name of an object: its property,
	// else its additionalProperties schema; false if it has neither.
	Field(name string) (Schema, bool)
	// Items returns the schema of the items of a list, false if none.
	Items() (Schema, bool)
	// MapKeys returns the x-kubernetes-list-map-keys of an array of
	// x-kubernetes-list-type map, and nothing for any other schema.
	MapKeys() []string
}

// NeverAtRoot reports whether a member of the root of a custom resource
// is never ratcheted: apiVersion and kind, because both the new and the
// old object were converted to the same version and kind, so a change
// cannot be seen.
func NeverAtRoot(name string) bool {
	return name == "apiVersion" || name == "kind"
}

// Correlation pairs a value of the new object with the value at the same
// place in the old one, and caches whether they are equal. A nil
// *Correlation stands for a value without old counterpart. It is not safe
// for concurrent use.
type Correlation struct {
	value, old any
	schema     Schema

	equal    *bool
	children map[any]*Correlation
	oldItems *Items
}

// New returns the correlation of value with old, of schema s.
func New(value, old any, s Schema) *Correlation {
	return &Correlation{value: value, old: old, schema: s}
}

// Value is the new value.
func (c *Correlation) Value() any { return c.value }

// Field returns the correlation of member name of an object or map, nil
// if either side lacks it or the schema does not describe it.
func (c *Correlation) Field(name string) *Correlation {
	if c == nil || c.schema == nil {
		return nil
	}
	if child, ok := c.children[name]; ok {
		return child
	}
	newMap, ok1 := c.value.(map[string]any)
	oldMap, ok2 := c.old.(map[string]any)
	if !ok1 || !ok2 {
		return nil
	}
	newValue, ok1 := newMap[name]
	oldValue, ok2 := oldMap[name]
	if !ok1 || !ok2 {
		return nil
	}
	s, ok := c.schema.Field(name)
	if !ok {
		return nil
	}
	return c.remember(name, &Correlation{value: newValue, old: oldValue, schema: s})
}

// Index returns the correlation of item i of a list: only the items of
// map lists have one, the old item with the same keys.
func (c *Correlation) Index(i int) *Correlation {
	if c == nil || c.schema == nil {
		return nil
	}
	if child, ok := c.children[i]; ok {
		return child
	}
	newList, ok1 := c.value.([]any)
	oldList, ok2 := c.old.([]any)
	if !ok1 || !ok2 || i >= len(newList) {
		return nil
	}
	keys := c.schema.MapKeys()
	items, ok := c.schema.Items()
	if len(keys) == 0 || !ok {
		return nil
	}
	if c.oldItems == nil {
		c.oldItems = NewItems(keys, oldList)
	}
	oldItem := c.oldItems.Get(newList[i])
	if oldItem == nil {
		return nil
	}
	return c.remember(i, &Correlation{value: newList[i], old: oldItem, schema: items})
}

func (c *Correlation) remember(k any, child *Correlation) *Correlation {
	if c.children == nil {
		c.children = map[any]*Correlation{}
	}
	c.children[k] = child
	return child
}

// Unchanged reports whether the new value equals the old one, comparing
// correlated members recursively (and reusing their answers). A nil
// Correlation is never unchanged.
func (c *Correlation) Unchanged() bool {
	if c == nil {
		return false
	}
	if c.equal != nil {
		return *c.equal
	}
	eq := c.compare()
	c.equal = &eq
	return eq
}

func (c *Correlation) compare() bool {
	switch {
	case c.value == nil && c.old == nil:
		return true
	case c.value == nil || c.old == nil:
		return false
	}
	newList, newIsList := c.value.([]any)
	oldList, oldIsList := c.old.([]any)
	newMap, newIsMap := c.value.(map[string]any)
	oldMap, oldIsMap := c.old.(map[string]any)
	if newIsList != oldIsList || newIsMap != oldIsMap {
		return false
	}
	switch {
	case newIsList:
		if len(newList) != len(oldList) {
			return false
		}
		if _, ok := c.schema.Items(); len(c.schema.MapKeys()) == 0 || !ok {
			// Items of other lists do not correlate: they compare in
			// order.
			return reflect.DeepEqual(oldList, newList)
		}
		for i := range newList {
			if child := c.Index(i); child == nil || !child.Unchanged() {
				return false
			}
		}
		return true
	case newIsMap:
		if len(newMap) != len(oldMap) {
			return false
		}
		for k := range newMap {
			if child := c.Field(k); child == nil || !child.Unchanged() {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(c.old, c.value)
}

// Items finds the item of a map list with the same keys as a given item.
// It indexes the list lazily, only as far as lookups need. A nil *Items
// finds nothing.
type Items struct {
	keys []string
	// byKey holds the items indexed so far; pending those not yet
	// looked at.
	byKey   map[any]any
	pending []any
}

// NewItems returns the index of the items of a map list whose keys are
// keys, nil if there are no keys or no items.
func NewItems(keys []string, items []any) *Items {
	if len(keys) == 0 || len(items) == 0 {
		return nil
	}
	return &Items{keys: keys, byKey: map[any]any{}, pending: items}
}

// Get returns the item with the same key values as item, nil if there is
// none or item has no key.
func (m *Items) Get(item any) any {
	if m == nil {
		return nil
	}
	obj, ok := item.(map[string]any)
	if !ok {
		return nil
	}
	key, ok := m.keyOf(obj)
	if !ok {
		return nil
	}
	if match, ok := m.byKey[key]; ok {
		return match
	}
	for len(m.pending) > 0 {
		candidate, ok := m.pending[0].(map[string]any)
		m.pending = m.pending[1:]
		if !ok {
			continue
		}
		ckey, ok := m.keyOf(candidate)
		if !ok {
			continue
		}
		if _, seen := m.byKey[ckey]; !seen {
			m.byKey[ckey] = candidate
		}
		if ckey == key {
			return candidate
		}
	}
	return nil
}

// keyOf returns a comparable key of an item; items lacking a key, or with
// a key that is not a scalar, have none.
func (m *Items) keyOf(obj map[string]any) (any, bool) {
	if len(m.keys) == 1 {
		v, ok := obj[m.keys[0]]
		if !ok {
			return nil, false
		}
		switch v.(type) {
		case bool, float64, int64, string:
			return v, true
		}
		return nil, false
	}
	var b strings.Builder
	for _, k := range m.keys {
		// NUL separates the keys: it cannot occur in a formatted scalar.
		switch v := obj[k].(type) {
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

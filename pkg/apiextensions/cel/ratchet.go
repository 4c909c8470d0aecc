package cel

import (
	"fmt"
	"reflect"
	"strings"
)

// Ratcheting (CRDValidationRatcheting, GA and locked on since 1.33): on
// update, a rule that fails on a value equal to its old value reports a
// warning, not an error. Values are matched old to new as oldSelf is:
// object members by name, map list items by key. Where a value has no old
// counterpart (set and atomic list items), the nearest matched ancestor
// decides.

// correlation pairs a new value with its old value and caches whether they
// are equal. A nil *correlation has no old value.
type correlation struct {
	value, old interface{}
	schema     *node

	equal    *bool
	children map[interface{}]*correlation
	oldItems *mapListIndex
}

func newCorrelation(value, old interface{}, schema *node) *correlation {
	return &correlation{value: value, old: old, schema: schema}
}

// key returns the correlation of member name of an object or map.
func (c *correlation) key(name string) *correlation {
	if c == nil || c.schema == nil {
		return nil
	}
	if child, ok := c.children[name]; ok {
		return child
	}
	newMap, ok1 := c.value.(map[string]interface{})
	oldMap, ok2 := c.old.(map[string]interface{})
	if !ok1 || !ok2 {
		return nil
	}
	newValue, ok1 := newMap[name]
	oldValue, ok2 := oldMap[name]
	if !ok1 || !ok2 {
		return nil
	}
	schema := c.schema.properties[name]
	if schema == nil {
		schema = c.schema.additionalProperties
	}
	if schema == nil {
		return nil
	}
	return c.remember(name, &correlation{value: newValue, old: oldValue, schema: schema})
}

// index returns the correlation of item i of a list: only map list items
// have one, found by key.
func (c *correlation) index(i int) *correlation {
	if c == nil || c.schema == nil || c.schema.items == nil {
		return nil
	}
	if child, ok := c.children[i]; ok {
		return child
	}
	newList, ok1 := c.value.([]interface{})
	oldList, ok2 := c.old.([]interface{})
	if !ok1 || !ok2 || i >= len(newList) || c.schema.listType != "map" {
		return nil
	}
	if c.oldItems == nil {
		c.oldItems = newMapListIndex(c.schema, oldList)
	}
	oldItem := c.oldItems.get(newList[i])
	if oldItem == nil {
		return nil
	}
	return c.remember(i, &correlation{value: newList[i], old: oldItem, schema: c.schema.items})
}

func (c *correlation) remember(k interface{}, child *correlation) *correlation {
	if c.children == nil {
		c.children = map[interface{}]*correlation{}
	}
	c.children[k] = child
	return child
}

// unchanged tells whether the value equals its old value, comparing
// correlated members recursively.
func (c *correlation) unchanged() bool {
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

func (c *correlation) compare() bool {
	switch {
	case c.value == nil && c.old == nil:
		return true
	case c.value == nil || c.old == nil:
		return false
	}
	newList, newIsList := c.value.([]interface{})
	oldList, oldIsList := c.old.([]interface{})
	newMap, newIsMap := c.value.(map[string]interface{})
	oldMap, oldIsMap := c.old.(map[string]interface{})
	if newIsList != oldIsList || newIsMap != oldIsMap {
		return false
	}
	switch {
	case newIsList:
		if len(newList) != len(oldList) {
			return false
		}
		for i := range newList {
			child := c.index(i)
			if child == nil {
				// Items that do not correlate (set and atomic lists)
				// compare in order.
				if c.oldItems == nil || c.schema.listType != "map" {
					return reflect.DeepEqual(oldList, newList)
				}
				return false
			}
			if !child.unchanged() {
				return false
			}
		}
		return true
	case newIsMap:
		if len(newMap) != len(oldMap) {
			return false
		}
		for k := range newMap {
			child := c.key(k)
			if child == nil || !child.unchanged() {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(c.old, c.value)
}

// ratchet is where validation stands in the correlation tree: the
// correlation of the current value, and the nearest ancestor that has one.
type ratchet struct {
	current, nearest *correlation
}

func (r ratchet) key(name string) ratchet {
	if r.current == nil {
		return r
	}
	if r.nearest == nil && (name == "apiVersion" || name == "kind") {
		// Both versions of the object are converted to the same apiVersion
		// and kind, so their changes cannot be seen: never ratchet them.
		return ratchet{}
	}
	return ratchet{current: r.current.key(name), nearest: r.current}
}

func (r ratchet) index(i int) ratchet {
	if r.current == nil {
		return r
	}
	return ratchet{current: r.current.index(i), nearest: r.current}
}

// unchanged tells whether errors at this value ratchet.
func (r ratchet) unchanged() bool {
	if r.current != nil {
		return r.current.unchanged()
	}
	return r.nearest.unchanged()
}

// mapListIndex finds the old item of a map list with the same keys as a
// new item. A nil *mapListIndex finds nothing.
type mapListIndex struct {
	keys []string
	// byKey holds the items indexed so far; pending those not yet looked
	// at, so that a lookup only indexes as far as it needs.
	byKey   map[interface{}]interface{}
	pending []interface{}
}

// newMapListIndex returns the index of old items of a map list, or nil if
// schema is not a map list.
func newMapListIndex(schema *node, items []interface{}) *mapListIndex {
	if schema.typ != "array" || schema.listType != "map" || len(schema.listMapKeys) == 0 || len(items) == 0 {
		return nil
	}
	return &mapListIndex{keys: schema.listMapKeys, byKey: map[interface{}]interface{}{}, pending: items}
}

func (m *mapListIndex) get(item interface{}) interface{} {
	if m == nil {
		return nil
	}
	obj, ok := item.(map[string]interface{})
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
		candidate := m.pending[0]
		m.pending = m.pending[1:]
		cobj, ok := candidate.(map[string]interface{})
		if !ok {
			continue
		}
		ckey, ok := m.keyOf(cobj)
		if !ok {
			continue
		}
		if _, seen := m.byKey[ckey]; !seen {
			m.byKey[ckey] = cobj
		}
		if ckey == key {
			return cobj
		}
	}
	return nil
}

// keyOf returns the composite key of an item; items lacking a key, or with
// a non-scalar key, have none.
func (m *mapListIndex) keyOf(obj map[string]interface{}) (interface{}, bool) {
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
		v, ok := obj[k]
		if !ok {
			return nil, false
		}
		// NUL separates the keys: it cannot occur in a formatted scalar.
		switch v := v.(type) {
		case bool:
			fmt.Fprintf(&b, "\x00%t", v)
		case float64:
			fmt.Fprintf(&b, "\x00%f", v)
		case int64:
			fmt.Fprintf(&b, "\x00%d", v)
		case string:
			fmt.Fprintf(&b, "\x00%q", v)
		default:
			return nil, false
		}
	}
	return b.String(), true
}

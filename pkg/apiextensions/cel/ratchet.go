package cel

import (
	"github.com/kapi-dev/kapi/pkg/apiextensions/schema/ratchet"
)

// Ratcheting (CRDValidationRatcheting, GA and locked on since 1.33): on
// update, a rule that fails on a value equal to its old value reports a
// warning, not an error. Values are matched old to new by package
// ratchet, as oldSelf is. Where a value has no old counterpart (set and
// atomic list items), the nearest matched ancestor decides.

// cursor is where validation stands in the correlation tree: the
// correlation of the current value, and the nearest ancestor that has one.
type cursor struct {
	current, nearest *ratchet.Correlation
}

func (r cursor) key(name string) cursor {
	if r.current == nil {
		return r
	}
	if r.nearest == nil && ratchet.NeverAtRoot(name) {
		return cursor{}
	}
	return cursor{current: r.current.Field(name), nearest: r.current}
}

func (r cursor) index(i int) cursor {
	if r.current == nil {
		return r
	}
	return cursor{current: r.current.Index(i), nearest: r.current}
}

// unchanged tells whether errors at this value ratchet.
func (r cursor) unchanged() bool {
	if r.current != nil {
		return r.current.Unchanged()
	}
	return r.nearest.Unchanged()
}

// Field, Items and MapKeys make a node the schema of package ratchet.

func (n *node) Field(name string) (ratchet.Schema, bool) {
	if s := n.properties[name]; s != nil {
		return s, true
	}
	if n.additionalProperties != nil {
		return n.additionalProperties, true
	}
	return nil, false
}

func (n *node) Items() (ratchet.Schema, bool) {
	if n.items == nil {
		return nil, false
	}
	return n.items, true
}

func (n *node) MapKeys() []string {
	if n.typ != "array" || n.listType != "map" {
		return nil
	}
	return n.listMapKeys
}

// oldItemsOf returns the index of the old items of a map list, by key,
// nil if schema is not a map list.
func oldItemsOf(schema *node, items []interface{}) *ratchet.Items {
	return ratchet.NewItems(schema.MapKeys(), items)
}

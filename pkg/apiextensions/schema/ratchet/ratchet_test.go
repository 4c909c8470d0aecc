package ratchet

import "testing"

// fakeSchema is a schema written out by hand: properties, items, and map
// list keys.
type fakeSchema struct {
	props   map[string]*fakeSchema
	items   *fakeSchema
	mapKeys []string
}

func (f *fakeSchema) Field(name string) (Schema, bool) {
	if p, ok := f.props[name]; ok {
		return p, true
	}
	return nil, false
}

func (f *fakeSchema) Items() (Schema, bool) {
	if f.items == nil {
		return nil, false
	}
	return f.items, true
}

func (f *fakeSchema) MapKeys() []string { return f.mapKeys }

var leaf = &fakeSchema{}

// spec: {ports: map list keyed by name and protocol, args: atomic list}
var podLike = &fakeSchema{props: map[string]*fakeSchema{
	"ports": {items: &fakeSchema{props: map[string]*fakeSchema{"name": leaf, "protocol": leaf, "port": leaf}}, mapKeys: []string{"name", "protocol"}},
	"args":  {items: leaf},
	"name":  leaf,
}}

func port(name, protocol string, number int64) map[string]any {
	return map[string]any{"name": name, "protocol": protocol, "port": number}
}

// Items of a map list pair with the old item of the same keys, wherever it
// was in the old list.
func TestMapListItemsPairByKey(t *testing.T) {
	old := map[string]any{"ports": []any{port("http", "TCP", 80), port("dns", "UDP", 53)}}
	cur := map[string]any{"ports": []any{port("dns", "UDP", 53), port("http", "TCP", 8080)}}
	c := New(cur, old, podLike)
	ports := c.Field("ports")
	if !ports.Index(0).Unchanged() {
		t.Error("dns/UDP moved but did not change: want unchanged")
	}
	if ports.Index(1).Unchanged() {
		t.Error("http/TCP changed its port: want changed")
	}
	if ports.Unchanged() || c.Unchanged() {
		t.Error("the list and the object changed")
	}
	reordered := map[string]any{"ports": []any{port("dns", "UDP", 53), port("http", "TCP", 80)}}
	if !New(reordered, old, podLike).Unchanged() {
		t.Error("a map list in another order is the same list")
	}
}

// Items of other lists have no old counterpart; the lists compare in
// order.
func TestOtherListsCompareInOrder(t *testing.T) {
	old := map[string]any{"args": []any{"a", "b"}}
	if c := New(map[string]any{"args": []any{"a", "b"}}, old, podLike); !c.Unchanged() || c.Field("args").Index(0) != nil {
		t.Error("an equal atomic list is unchanged, and its items have no correlation")
	}
	if New(map[string]any{"args": []any{"b", "a"}}, old, podLike).Unchanged() {
		t.Error("an atomic list in another order changed")
	}
}

// A member only one side has, or that the schema does not describe, has
// no correlation; a nil correlation is never unchanged.
func TestMissingMembersDoNotCorrelate(t *testing.T) {
	c := New(map[string]any{"name": "x", "extra": 1}, map[string]any{"extra": 1}, podLike)
	if c.Field("name") != nil || c.Field("extra") != nil {
		t.Error("want no correlation for a new member or one without schema")
	}
	var none *Correlation
	if none.Unchanged() || none.Field("a") != nil || none.Index(0) != nil {
		t.Error("a nil correlation has no children and is never unchanged")
	}
}

func TestNeverAtRoot(t *testing.T) {
	for name, want := range map[string]bool{"apiVersion": true, "kind": true, "metadata": false, "spec": false} {
		if got := NeverAtRoot(name); got != want {
			t.Errorf("NeverAtRoot(%q) = %v, want %v", name, got, want)
		}
	}
}

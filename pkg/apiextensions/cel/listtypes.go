package cel

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"

	"github.com/kapi-dev/kapi/pkg/cel/schemas"
)

// Lists with x-kubernetes-list-type set or map keep their semantics in
// CEL: equality ignores order, and X + Y is a union (set) or a merge by key
// (map) in which the positions of X are kept and new elements of Y are
// appended in order. The result of + keeps the same semantics.

// setListVal is a JSON array with x-kubernetes-list-type=set.
type setListVal struct {
	*listVal
}

func (l *setListVal) Equal(other ref.Val) ref.Val {
	return setEqual(l, other)
}

func (l *setListVal) Add(other ref.Val) ref.Val {
	return setUnion(l.elements(), other)
}

// setList is the result of + on a set list.
type setList struct {
	traits.Lister
}

func (l *setList) Equal(other ref.Val) ref.Val { return setEqual(l.Lister, other) }
func (l *setList) Add(other ref.Val) ref.Val   { return setUnion(listElements(l.Lister), other) }

func setEqual(l traits.Lister, other ref.Val) ref.Val {
	ol, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	if l.Size() != ol.Size() {
		return types.False
	}
	set := map[interface{}]struct{}{}
	for it := l.Iterator(); it.HasNext() == types.True; {
		k, err := setKey(it.Next())
		if err != nil {
			return err
		}
		set[k] = struct{}{}
	}
	seen := make(map[interface{}]struct{}, len(set))
	for it := ol.Iterator(); it.HasNext() == types.True; {
		k, err := setKey(it.Next())
		if err != nil {
			return err
		}
		if _, ok := set[k]; !ok {
			return types.False
		}
		seen[k] = struct{}{}
	}
	return types.Bool(len(seen) == len(set))
}

func setUnion(elems []ref.Val, other ref.Val) ref.Val {
	ol, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	set := make(map[interface{}]struct{}, len(elems))
	for _, e := range elems {
		k, err := setKey(e)
		if err != nil {
			return err
		}
		set[k] = struct{}{}
	}
	for it := ol.Iterator(); it.HasNext() == types.True; {
		v := it.Next()
		k, err := setKey(v)
		if err != nil {
			return err
		}
		if _, ok := set[k]; !ok {
			set[k] = struct{}{}
			elems = append(elems, v)
		}
	}
	return &setList{Lister: types.NewRefValList(types.DefaultTypeAdapter, elems).(traits.Lister)}
}

// setKey is a Go map key identifying a scalar set element.
func setKey(v ref.Val) (interface{}, ref.Val) {
	switch v.(type) {
	case traits.Lister, traits.Mapper:
		return nil, types.NewErr("listSet operations are only supported on lists of scalar values")
	}
	return comparableKey(v.Value()), nil
}

// comparableKey returns raw if it can be a Go map key, else a string
// rendering that includes its type and so cannot collide with one.
func comparableKey(raw interface{}) interface{} {
	if raw != nil && !reflect.TypeOf(raw).Comparable() {
		return fmt.Sprintf("%#v", raw)
	}
	return raw
}

// mapListVal is a JSON array with x-kubernetes-list-type=map.
type mapListVal struct {
	*listVal
	// keys are the escaped names of x-kubernetes-list-map-keys.
	keys []string
}

func (l *mapListVal) Equal(other ref.Val) ref.Val {
	return mapListEqual(l, other, l.keys)
}

func (l *mapListVal) Add(other ref.Val) ref.Val {
	return mapListMerge(l.elements(), other, l.keys)
}

// mapList is the result of + on a map list.
type mapList struct {
	traits.Lister
	keys []string
}

func (l *mapList) Equal(other ref.Val) ref.Val { return mapListEqual(l.Lister, other, l.keys) }
func (l *mapList) Add(other ref.Val) ref.Val {
	return mapListMerge(listElements(l.Lister), other, l.keys)
}

func mapListEqual(l traits.Lister, other ref.Val, keys []string) ref.Val {
	ol, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	if l.Size() != ol.Size() {
		return types.False
	}
	byKey := map[interface{}]ref.Val{}
	for it := l.Iterator(); it.HasNext() == types.True; {
		e := it.Next()
		byKey[mapListKey(e, keys)] = e
	}
	seen := make(map[interface{}]struct{}, len(byKey))
	for it := ol.Iterator(); it.HasNext() == types.True; {
		v := it.Next()
		k := mapListKey(v, keys)
		e, ok := byKey[k]
		if !ok {
			return types.False
		}
		if eq := e.Equal(v); eq != types.True {
			return eq
		}
		seen[k] = struct{}{}
	}
	return types.Bool(len(seen) == len(byKey))
}

func mapListMerge(elems []ref.Val, other ref.Val, keys []string) ref.Val {
	ol, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	position := make(map[interface{}]int, len(elems))
	for i, e := range elems {
		position[mapListKey(e, keys)] = i
	}
	for it := ol.Iterator(); it.HasNext() == types.True; {
		v := it.Next()
		if i, ok := position[mapListKey(v, keys)]; ok {
			elems[i] = v
		} else {
			elems = append(elems, v)
		}
	}
	return &mapList{Lister: types.NewRefValList(types.DefaultTypeAdapter, elems).(traits.Lister), keys: keys}
}

// mapListKey is a Go map key made of the key fields of a map list element;
// absent keys count as null.
func mapListKey(e ref.Val, keys []string) interface{} {
	get := func(key string) interface{} {
		var v ref.Val
		var found bool
		switch e := e.(type) {
		case traits.Mapper:
			v, found = e.Find(types.String(key))
		case traits.Indexer:
			if tester, ok := e.(traits.FieldTester); ok && tester.IsSet(types.String(key)) == types.True {
				v, found = e.Get(types.String(key)), true
			}
		}
		if !found || v == nil || types.IsUnknownOrError(v) {
			return nil
		}
		return comparableKey(v.Value())
	}
	switch len(keys) {
	case 1:
		return get(keys[0])
	case 2:
		return [2]interface{}{get(keys[0]), get(keys[1])}
	case 3:
		return [3]interface{}{get(keys[0]), get(keys[1]), get(keys[2])}
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%#v", get(k))
	}
	return strings.Join(parts, "\x00")
}

func escapedKeys(keys []string) []string {
	escaped := make([]string, len(keys))
	for i, k := range keys {
		if e, ok := schemas.Escape(k); ok {
			escaped[i] = e
		} else {
			escaped[i] = k
		}
	}
	return escaped
}

func listElements(l traits.Lister) []ref.Val {
	var elems []ref.Val
	for it := l.Iterator(); it.HasNext() == types.True; {
		elems = append(elems, it.Next())
	}
	return elems
}

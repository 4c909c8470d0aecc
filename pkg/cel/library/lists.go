package library

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// Lists returns the Kubernetes list library:
//
//	<list<T>>.isSorted() bool              T comparable
//	<list<T>>.sum() T                      T int, uint, double or duration; 0 of T for []
//	<list<T>>.min() T, <list<T>>.max() T   T comparable; an error for []
//	<list<T>>.indexOf(T) int               -1 when absent
//	<list<T>>.lastIndexOf(T) int
//	<dyn>.includes(<dyn>) bool             version >= 1: list membership, or equality
//
// Version 0 is what the environment of new expressions has in 1.37 (its
// compatibility version is 1.36); version 1, with includes, is only in the
// environment of stored expressions.
func Lists(version uint32) cel.EnvOption {
	fns := map[string][]cel.FunctionOpt{
		"isSorted": perElementType(comparableTypes, func(name string, t *cel.Type) cel.FunctionOpt {
			return cel.MemberOverload("list_"+name+"_is_sorted_bool", []*cel.Type{cel.ListType(t)}, cel.BoolType,
				cel.UnaryBinding(isSorted))
		}),
		"sum": perElementType(summableTypes, func(name string, t *cel.Type) cel.FunctionOpt {
			zero := summableZeros[name]
			return cel.MemberOverload("list_"+name+"_sum_"+name, []*cel.Type{cel.ListType(t)}, t,
				cel.UnaryBinding(func(list ref.Val) ref.Val { return sum(zero, list) }))
		}),
		"min": perElementType(comparableTypes, func(name string, t *cel.Type) cel.FunctionOpt {
			return cel.MemberOverload("list_"+name+"_min_"+name, []*cel.Type{cel.ListType(t)}, t,
				cel.UnaryBinding(func(list ref.Val) ref.Val { return extreme(list, "min", types.IntOne) }))
		}),
		"max": perElementType(comparableTypes, func(name string, t *cel.Type) cel.FunctionOpt {
			return cel.MemberOverload("list_"+name+"_max_"+name, []*cel.Type{cel.ListType(t)}, t,
				cel.UnaryBinding(func(list ref.Val) ref.Val { return extreme(list, "max", types.IntNegOne) }))
		}),
		"indexOf": {
			cel.MemberOverload("list_a_index_of_int", []*cel.Type{cel.ListType(typeParamA), typeParamA}, cel.IntType,
				cel.BinaryBinding(func(list, item ref.Val) ref.Val { return indexOf(list, item, false) })),
		},
		"lastIndexOf": {
			cel.MemberOverload("list_a_last_index_of_int", []*cel.Type{cel.ListType(typeParamA), typeParamA}, cel.IntType,
				cel.BinaryBinding(func(list, item ref.Val) ref.Val { return indexOf(list, item, true) })),
		},
	}
	name := "kubernetes.lists"
	if version >= 1 {
		fns["includes"] = []cel.FunctionOpt{
			cel.MemberOverload("list_includes_dyn_dyn", []*cel.Type{cel.DynType, cel.DynType}, cel.BoolType,
				cel.BinaryBinding(includes)),
		}
		// A distinct name keeps the two versions from shadowing each other
		// as singleton libraries.
		name = "kubernetes.lists.v1"
	}
	return cel.Lib(newLibrary(name, fns))
}

var typeParamA = cel.TypeParamType("A")

type namedType struct {
	name string
	typ  *cel.Type
}

var comparableTypes = []namedType{
	{"int", cel.IntType},
	{"uint", cel.UintType},
	{"double", cel.DoubleType},
	{"bool", cel.BoolType},
	{"duration", cel.DurationType},
	{"timestamp", cel.TimestampType},
	{"string", cel.StringType},
	{"bytes", cel.BytesType},
}

var summableTypes = []namedType{
	{"int", cel.IntType},
	{"uint", cel.UintType},
	{"double", cel.DoubleType},
	{"duration", cel.DurationType},
}

var summableZeros = map[string]ref.Val{
	"int":      types.Int(0),
	"uint":     types.Uint(0),
	"double":   types.Double(0),
	"duration": types.Duration{},
}

func perElementType(ts []namedType, overload func(name string, t *cel.Type) cel.FunctionOpt) []cel.FunctionOpt {
	opts := make([]cel.FunctionOpt, len(ts))
	for i, t := range ts {
		opts[i] = overload(t.name, t.typ)
	}
	return opts
}

func isSorted(list ref.Val) ref.Val {
	iterable, ok := list.(traits.Iterable)
	if !ok {
		return types.MaybeNoSuchOverloadErr(list)
	}
	var prev traits.Comparer
	for it := iterable.Iterator(); it.HasNext() == types.True; {
		next := it.Next()
		cmp, ok := next.(traits.Comparer)
		if !ok {
			return types.MaybeNoSuchOverloadErr(next)
		}
		if prev != nil && prev.Compare(next) == types.IntOne {
			return types.False
		}
		prev = cmp
	}
	return types.True
}

func sum(zero ref.Val, list ref.Val) ref.Val {
	iterable, ok := list.(traits.Iterable)
	if !ok {
		return types.MaybeNoSuchOverloadErr(list)
	}
	acc := zero
	for it := iterable.Iterator(); it.HasNext() == types.True; {
		adder, ok := acc.(traits.Adder)
		if !ok {
			return types.MaybeNoSuchOverloadErr(acc)
		}
		acc = adder.Add(it.Next())
		if types.IsError(acc) {
			return acc
		}
	}
	return acc
}

// extreme returns the element e of list for which no other element x has
// e.Compare(x) == replaceWhen, the first one on ties.
func extreme(list ref.Val, fn string, replaceWhen ref.Val) ref.Val {
	iterable, ok := list.(traits.Iterable)
	if !ok {
		return types.MaybeNoSuchOverloadErr(list)
	}
	var best traits.Comparer
	for it := iterable.Iterator(); it.HasNext() == types.True; {
		next := it.Next()
		cmp, ok := next.(traits.Comparer)
		if !ok {
			return types.MaybeNoSuchOverloadErr(next)
		}
		if best == nil || best.Compare(next) == replaceWhen {
			best = cmp
		}
	}
	if best == nil {
		return types.NewErr("%s called on empty list", fn)
	}
	return best.(ref.Val)
}

func indexOf(list, item ref.Val, last bool) ref.Val {
	lister, ok := list.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(list)
	}
	size := int64(lister.Size().(types.Int))
	for n := int64(0); n < size; n++ {
		i := n
		if last {
			i = size - 1 - n
		}
		if lister.Get(types.Int(i)).Equal(item) == types.True {
			return types.Int(i)
		}
	}
	return types.Int(-1)
}

func includes(target, item ref.Val) ref.Val {
	if lister, ok := target.(traits.Lister); ok {
		for it := lister.Iterator(); it.HasNext() == types.True; {
			if it.Next().Equal(item) == types.True {
				return types.True
			}
		}
		return types.False
	}
	return types.Bool(target.Equal(item) == types.True)
}

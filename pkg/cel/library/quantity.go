package library

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"k8s.io/apimachinery/pkg/api/resource"
)

// QuantityType is the CEL type of quantity("...") values.
var QuantityType = cel.ObjectType("kubernetes.Quantity")

// Quantity is a resource.Quantity as a CEL value.
type Quantity struct {
	*resource.Quantity
}

func (q Quantity) ConvertToNative(t reflect.Type) (any, error) {
	if reflect.TypeOf(q.Quantity).AssignableTo(t) {
		return q.Quantity, nil
	}
	if reflect.TypeOf("").AssignableTo(t) {
		return q.Quantity.String(), nil
	}
	return nil, fmt.Errorf("type conversion error from 'Quantity' to '%v'", t)
}

func (q Quantity) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case QuantityType:
		return q
	case types.TypeType:
		return QuantityType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", QuantityType, t)
}

func (q Quantity) Equal(other ref.Val) ref.Val {
	o, ok := other.(Quantity)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(q.Quantity.Equal(*o.Quantity))
}

func (q Quantity) Type() ref.Type { return QuantityType }
func (q Quantity) Value() any     { return q.Quantity }

// Quantities returns the Kubernetes quantity library:
//
//	quantity(<string>) Quantity, isQuantity(<string>) bool
//	sign(<Quantity>) int
//	<Quantity>.isGreaterThan(<Quantity>), isLessThan(<Quantity>), isInteger() bool
//	<Quantity>.compareTo(<Quantity>), asInteger() int; asApproximateFloat() double
//	<Quantity>.add(<Quantity or int>), sub(<Quantity or int>) Quantity
func Quantities() cel.EnvOption {
	unary := func(id string, result *cel.Type, fn func(*resource.Quantity) ref.Val) cel.FunctionOpt {
		return cel.MemberOverload(id, []*cel.Type{QuantityType}, result, cel.UnaryBinding(func(v ref.Val) ref.Val {
			q, ok := v.Value().(*resource.Quantity)
			if !ok {
				return types.MaybeNoSuchOverloadErr(v)
			}
			return fn(q)
		}))
	}
	binary := func(id string, other, result *cel.Type, fn func(q *resource.Quantity, o ref.Val) ref.Val) cel.FunctionOpt {
		return cel.MemberOverload(id, []*cel.Type{QuantityType, other}, result, cel.BinaryBinding(func(v, o ref.Val) ref.Val {
			q, ok := v.Value().(*resource.Quantity)
			if !ok {
				return types.MaybeNoSuchOverloadErr(v)
			}
			return fn(q, o)
		}))
	}
	withQuantity := func(fn func(q, o *resource.Quantity) ref.Val) func(*resource.Quantity, ref.Val) ref.Val {
		return func(q *resource.Quantity, o ref.Val) ref.Val {
			oq, ok := o.Value().(*resource.Quantity)
			if !ok {
				return types.MaybeNoSuchOverloadErr(o)
			}
			return fn(q, oq)
		}
	}
	withInt := func(fn func(q, o *resource.Quantity) ref.Val) func(*resource.Quantity, ref.Val) ref.Val {
		return func(q *resource.Quantity, o ref.Val) ref.Val {
			i, ok := o.Value().(int64)
			if !ok {
				return types.MaybeNoSuchOverloadErr(o)
			}
			return fn(q, resource.NewQuantity(i, resource.DecimalExponent))
		}
	}
	add := func(q, o *resource.Quantity) ref.Val {
		r := q.DeepCopy()
		r.Add(*o)
		return Quantity{Quantity: &r}
	}
	sub := func(q, o *resource.Quantity) ref.Val {
		r := q.DeepCopy()
		r.Sub(*o)
		return Quantity{Quantity: &r}
	}
	return cel.Lib(newLibrary("kubernetes.quantity", map[string][]cel.FunctionOpt{
		"quantity": {cel.Overload("string_to_quantity", []*cel.Type{cel.StringType}, QuantityType, cel.UnaryBinding(func(v ref.Val) ref.Val {
			s, ok := v.Value().(string)
			if !ok {
				return types.MaybeNoSuchOverloadErr(v)
			}
			q, err := resource.ParseQuantity(s)
			if err != nil {
				return types.WrapErr(err)
			}
			return Quantity{Quantity: &q}
		}))},
		"isQuantity": {cel.Overload("is_quantity_string", []*cel.Type{cel.StringType}, cel.BoolType, cel.UnaryBinding(func(v ref.Val) ref.Val {
			s, ok := v.Value().(string)
			if !ok {
				return types.MaybeNoSuchOverloadErr(v)
			}
			_, err := resource.ParseQuantity(s)
			return types.Bool(err == nil)
		}))},
		// sign is a global function in Kubernetes, not a member.
		"sign": {cel.Overload("quantity_sign", []*cel.Type{QuantityType}, cel.IntType, cel.UnaryBinding(func(v ref.Val) ref.Val {
			q, ok := v.Value().(*resource.Quantity)
			if !ok {
				return types.MaybeNoSuchOverloadErr(v)
			}
			return types.Int(q.Sign())
		}))},
		"isGreaterThan": {binary("quantity_is_greater_than", QuantityType, cel.BoolType, withQuantity(func(q, o *resource.Quantity) ref.Val {
			return types.Bool(q.Cmp(*o) == 1)
		}))},
		"isLessThan": {binary("quantity_is_less_than", QuantityType, cel.BoolType, withQuantity(func(q, o *resource.Quantity) ref.Val {
			return types.Bool(q.Cmp(*o) == -1)
		}))},
		"compareTo": {binary("quantity_compare_to", QuantityType, cel.IntType, withQuantity(func(q, o *resource.Quantity) ref.Val {
			return types.Int(q.Cmp(*o))
		}))},
		"asApproximateFloat": {unary("quantity_get_float", cel.DoubleType, func(q *resource.Quantity) ref.Val {
			return types.Double(q.AsApproximateFloat64())
		})},
		"asInteger": {unary("quantity_get_int", cel.IntType, func(q *resource.Quantity) ref.Val {
			i, ok := q.AsInt64()
			if !ok {
				return types.WrapErr(errors.New("cannot convert value to integer"))
			}
			return types.Int(i)
		})},
		"isInteger": {unary("quantity_is_integer", cel.BoolType, func(q *resource.Quantity) ref.Val {
			_, ok := q.AsInt64()
			return types.Bool(ok)
		})},
		"add": {
			binary("quantity_add", QuantityType, QuantityType, withQuantity(add)),
			binary("quantity_add_int", cel.IntType, QuantityType, withInt(add)),
		},
		"sub": {
			binary("quantity_sub", QuantityType, QuantityType, withQuantity(sub)),
			binary("quantity_sub_int", cel.IntType, QuantityType, withInt(sub)),
		},
	}))
}

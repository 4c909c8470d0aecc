// Package mutation holds the CEL values that a MutatingAdmissionPolicy's
// mutations build: Object{...} values, the apply configuration of the
// ApplyConfiguration patch type, and JSONPatch{...} values, the
// operations of the JSONPatch patch type; with the jsonpatch.escapeKey
// function. kube-apiserver declares them the same way
// (k8s.io/apiserver/pkg/cel/mutation): Object and every Object.<path>
// accept any field, of type dyn, and the name of a nested Object type
// must spell the path of fields it is the value of
// (Object{spec: Object.spec{...}}), which CheckTypeNames verifies after
// evaluation.
//
// Provider adds the types to an environment's type provider, for type
// checking and for evaluation; Library adds jsonpatch.escapeKey.
package mutation

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"google.golang.org/protobuf/types/known/structpb"
)

const (
	// ObjectTypeName is the root type of apply configurations; its
	// fields' types are ObjectTypeName + "." + the field path.
	ObjectTypeName = "Object"
	// JSONPatchTypeName is the type of one JSON patch operation.
	JSONPatchTypeName = "JSONPatch"
)

// JSONPatchType is the CEL type of JSONPatch values.
var JSONPatchType = types.NewObjectType(JSONPatchTypeName)

// ObjectType is the CEL type of the root of an apply configuration.
var ObjectType = types.NewObjectType(ObjectTypeName)

func isObjectType(name string) bool {
	return name == ObjectTypeName || strings.HasPrefix(name, ObjectTypeName+".")
}

// Provider returns base with the Object and JSONPatch types added.
func Provider(base types.Provider) types.Provider { return provider{base} }

type provider struct{ types.Provider }

var jsonPatchFields = map[string]*types.Type{
	"op": types.StringType, "from": types.StringType, "path": types.StringType, "value": types.DynType,
}

func (p provider) FindStructType(name string) (*types.Type, bool) {
	if name == JSONPatchTypeName || isObjectType(name) {
		return types.NewTypeTypeWithParam(types.NewObjectType(name)), true
	}
	return p.Provider.FindStructType(name)
}

func (p provider) FindStructFieldNames(name string) ([]string, bool) {
	switch {
	case name == JSONPatchTypeName:
		return []string{"op", "from", "path", "value"}, true
	case isObjectType(name):
		// Any field name is allowed.
		return nil, true
	}
	return p.Provider.FindStructFieldNames(name)
}

func (p provider) FindStructFieldType(name, field string) (*types.FieldType, bool) {
	switch {
	case name == JSONPatchTypeName:
		// kube-apiserver's JSONPatch type answers every field; those it
		// does not know have no type.
		return &types.FieldType{Type: jsonPatchFields[field]}, true
	case isObjectType(name):
		return &types.FieldType{Type: types.DynType}, true
	}
	return p.Provider.FindStructFieldType(name, field)
}

func (p provider) NewValue(name string, fields map[string]ref.Val) ref.Val {
	switch {
	case name == JSONPatchTypeName:
		return newJSONPatch(fields)
	case isObjectType(name):
		return &ObjectVal{typeName: name, fields: fields}
	}
	return p.Provider.NewValue(name, fields)
}

// Library declares and binds jsonpatch.escapeKey, which escapes a key
// for a JSON pointer ("~" as "~0", "/" as "~1").
func Library() cel.EnvOption {
	return cel.Function("jsonpatch.escapeKey",
		cel.Overload("string_jsonpatch_escapeKey_string", []*types.Type{types.StringType}, types.StringType,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				s, ok := v.(types.String)
				if !ok {
					return types.MaybeNoSuchOverloadErr(v)
				}
				return types.String(EscapeKey(string(s)))
			})))
}

var keyEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// EscapeKey escapes k to be one token of a JSON pointer (RFC 6901).
func EscapeKey(k string) string { return keyEscaper.Replace(k) }

// ObjectVal is an Object{...} value: a type name and the fields set.
type ObjectVal struct {
	typeName string
	fields   map[string]ref.Val
}

var _ traits.Zeroer = (*ObjectVal)(nil)

// ConvertToNative converts the object to map[string]any, *structpb.Struct
// or *structpb.Value, its fields converted recursively.
func (v *ObjectVal) ConvertToNative(t reflect.Type) (any, error) {
	m, err := v.Native()
	if err != nil {
		return nil, err
	}
	switch t {
	case reflect.TypeFor[map[string]any]():
		return m, nil
	case reflect.TypeFor[*structpb.Struct]():
		return structpb.NewStruct(m)
	case reflect.TypeFor[*structpb.Value]():
		return structpb.NewValue(m)
	}
	return nil, fmt.Errorf("unable to convert to %v", t)
}

// Native is the object as unstructured content.
func (v *ObjectVal) Native() (map[string]any, error) {
	out := make(map[string]any, len(v.fields))
	for k, f := range v.fields {
		n, err := native(f)
		if err != nil {
			return nil, fmt.Errorf("fail to convert field %q: %w", k, err)
		}
		out[k] = n
	}
	return out, nil
}

// native converts the value of a field to unstructured content exactly as
// kube-apiserver converts it, so that what it cannot convert fails the
// same way: the elements of a list literal and the values of a map
// literal are taken as they are (an Object is converted, a map literal
// in a list or a null is not, and the merge refuses them); lists and
// maps read from the object are converted all the way down.
func native(v ref.Val) (any, error) {
	switch inner := v.Value().(type) {
	case []ref.Val:
		var out []any
		for _, e := range inner {
			out = append(out, e.Value())
		}
		return out, nil
	case map[ref.Val]ref.Val:
		out := make(map[string]any, len(inner))
		for k, e := range inner {
			s, ok := k.Value().(string)
			if !ok {
				return nil, fmt.Errorf("map key %q is of type %T, not string", k, k)
			}
			out[s] = e.Value()
		}
		return out, nil
	}
	switch v := v.(type) {
	case traits.Lister:
		var out []any
		for it := v.Iterator(); it.HasNext() == types.True; {
			n, err := native(it.Next())
			if err != nil {
				return nil, err
			}
			out = append(out, n)
		}
		return out, nil
	case traits.Mapper:
		out := map[string]any{}
		for it := v.Iterator(); it.HasNext() == types.True; {
			k := it.Next()
			s, ok := k.Value().(string)
			if !ok {
				return nil, fmt.Errorf("map key %q is of type %T, not string", k, k)
			}
			n, err := native(v.Get(k))
			if err != nil {
				return nil, err
			}
			out[s] = n
		}
		return out, nil
	}
	return v.Value(), nil
}

func (v *ObjectVal) ConvertToType(t ref.Type) ref.Val {
	if t.TypeName() == v.typeName {
		return v
	}
	if t == types.TypeType {
		return types.NewTypeTypeWithParam(types.NewObjectType(v.typeName))
	}
	return types.NewErr("unsupported conversion into %v", t)
}

func (v *ObjectVal) Equal(other ref.Val) ref.Val {
	o, ok := other.(*ObjectVal)
	if !ok || o.typeName != v.typeName || len(o.fields) != len(v.fields) {
		return types.False
	}
	for k, f := range v.fields {
		of, ok := o.fields[k]
		if !ok || f.Equal(of) != types.True {
			return types.False
		}
	}
	return types.True
}

func (v *ObjectVal) Type() ref.Type { return types.NewObjectType(v.typeName) }

// Value is the object as unstructured content, or an error value.
func (v *ObjectVal) Value() any {
	m, err := v.Native()
	if err != nil {
		return types.WrapErr(err)
	}
	return m
}

func (v *ObjectVal) IsZeroValue() bool { return len(v.fields) == 0 }

// CheckTypeNames verifies that every Object value nested in v is named
// after its path of fields from v (the values of Object.spec.containers
// are Object.spec.containers{...}, in a list or not), as kube-apiserver
// checks an apply configuration, and reports every one that is not.
func (v *ObjectVal) CheckTypeNames() error {
	return errors.Join(checkTypeNames(v, v.typeName)...)
}

func checkTypeNames(v ref.Val, path string) []error {
	var errs []error
	switch v := v.(type) {
	case *ObjectVal:
		if v.typeName != path {
			errs = append(errs, fmt.Errorf("unexpected type name %q, expected %q, which matches field name path from root Object type", v.typeName, path))
		}
		for k, f := range v.fields {
			errs = append(errs, checkTypeNames(f, path+"."+k)...)
		}
	case traits.Lister:
		for it := v.Iterator(); it.HasNext() == types.True; {
			errs = append(errs, checkTypeNames(it.Next(), path)...)
		}
	case traits.Mapper:
		for it := v.Iterator(); it.HasNext() == types.True; {
			errs = append(errs, checkTypeNames(v.Get(it.Next()), path)...)
		}
	}
	return errs
}

// JSONPatchVal is a JSONPatch{...} value: one operation of a JSON patch.
type JSONPatchVal struct {
	Op, From, Path string
	// Value is the operation's value, nil if it has none.
	Val ref.Val
}

func newJSONPatch(fields map[string]ref.Val) ref.Val {
	p := &JSONPatchVal{}
	str := func(name string, v ref.Val, into *string) ref.Val {
		s, ok := v.Value().(string)
		if !ok {
			return types.NewErr("unexpected type %T for JSONPatchType '%s' field", v.Value(), name)
		}
		*into = s
		return nil
	}
	for name, v := range fields {
		var err ref.Val
		switch name {
		case "op":
			err = str(name, v, &p.Op)
		case "path":
			err = str(name, v, &p.Path)
		case "from":
			err = str(name, v, &p.From)
		case "value":
			p.Val = v
		default:
			err = types.NewErr("unexpected JSONPatchType field: %s", name)
		}
		if err != nil {
			return err
		}
	}
	return p
}

func (p *JSONPatchVal) ConvertToNative(t reflect.Type) (any, error) {
	if t == reflect.TypeFor[*JSONPatchVal]() {
		return p, nil
	}
	return nil, fmt.Errorf("cannot convert to native type: %v", t)
}

func (p *JSONPatchVal) ConvertToType(t ref.Type) ref.Val {
	switch {
	case t.TypeName() == JSONPatchTypeName:
		return p
	case t == types.TypeType:
		return types.NewTypeTypeWithParam(JSONPatchType)
	}
	return types.NewErr("unsupported type: %s", t.TypeName())
}

func (p *JSONPatchVal) Equal(other ref.Val) ref.Val {
	o, ok := other.(*JSONPatchVal)
	if !ok || p.Op != o.Op || p.From != o.From || p.Path != o.Path || (p.Val == nil) != (o.Val == nil) {
		return types.False
	}
	if p.Val == nil {
		return types.True
	}
	return p.Val.Equal(o.Val)
}

// Get answers the fields of the operation (JSONPatch{...}.path).
func (p *JSONPatchVal) Get(field ref.Val) ref.Val {
	switch field.Value() {
	case "op":
		return types.String(p.Op)
	case "path":
		return types.String(p.Path)
	case "from":
		return types.String(p.From)
	case "value":
		if p.Val != nil {
			return p.Val
		}
		return types.NullValue
	}
	return types.NewErr("unsupported indexer: %s", field)
}

// IsSet answers has(JSONPatch{...}.field).
func (p *JSONPatchVal) IsSet(field ref.Val) ref.Val {
	switch field.Value() {
	case "op":
		return types.Bool(p.Op != "")
	case "path":
		return types.Bool(p.Path != "")
	case "from":
		return types.Bool(p.From != "")
	case "value":
		return types.Bool(p.Val != nil)
	}
	return types.NewErr("unsupported field: %s", field)
}

func (p *JSONPatchVal) Type() ref.Type { return JSONPatchType }
func (p *JSONPatchVal) Value() any     { return p }

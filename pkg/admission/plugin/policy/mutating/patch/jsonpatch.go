package patch

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"google.golang.org/protobuf/types/known/structpb"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	runtimejson "k8s.io/apimachinery/pkg/runtime/serializer/json"

	"github.com/kapi-dev/kapi/pkg/cel/mutation"
)

// Scheme creates and types the objects of the patched kind, to decode a
// patched object.
type Scheme struct {
	Creater runtime.ObjectCreater
	Typer   runtime.ObjectTyper
}

// JSONPatch applies result, the value of a JSONPatch expression, to obj,
// an object of kind (which it does not change), and returns the patched
// object: unstructured if obj is, else the Go type of the kind the
// patched JSON names.
func JSONPatch(s Scheme, kind schema.GroupVersionKind, obj runtime.Object, result ref.Val) (runtime.Object, error) {
	p, err := operations(result)
	if err != nil {
		return nil, err
	}
	// Encoded and decoded as kube-apiserver does: strictly, so that a
	// field the kind does not have is an error.
	serializer := runtimejson.NewSerializerWithOptions(runtimejson.DefaultMetaFactory, s.Creater, s.Typer, runtimejson.SerializerOptions{Strict: true})
	doc, err := runtime.Encode(serializer, obj)
	if err != nil {
		return nil, fmt.Errorf("failed to create JSON patch: %w", err)
	}
	patched, err := p.Apply(doc)
	if err != nil {
		if errors.Is(err, jsonpatch.ErrTestFailed) {
			return obj, nil
		}
		return nil, fmt.Errorf("JSON Patch: %w", err)
	}
	var into runtime.Object
	if _, ok := obj.(*unstructured.Unstructured); ok {
		into = &unstructured.Unstructured{}
	} else if into, err = s.Creater.New(kind); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	out, _, err := serializer.Decode(patched, nil, into)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return out, nil
}

// operations converts a list of JSONPatch values to a JSON patch.
func operations(result ref.Val) (jsonpatch.Patch, error) {
	list, ok := result.(traits.Lister)
	if !ok {
		return nil, errors.New("type mismatch: JSONPatchType.expression should evaluate to array")
	}
	p := jsonpatch.Patch{}
	for it := list.Iterator(); it.HasNext() == types.True; {
		n, err := it.Next().ConvertToNative(reflect.TypeFor[*mutation.JSONPatchVal]())
		if err != nil {
			return nil, fmt.Errorf("type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch: %w", err)
		}
		op := n.(*mutation.JSONPatchVal)
		raw := func(s string) *json.RawMessage {
			m := json.RawMessage(strconv.Quote(s))
			return &m
		}
		o := jsonpatch.Operation{"op": raw(op.Op), "path": raw(op.Path)}
		if op.From != "" {
			o["from"] = raw(op.From)
		}
		if op.Val != nil {
			if ov, ok := op.Val.(*mutation.ObjectVal); ok {
				if err := ov.CheckTypeNames(); err != nil {
					return nil, fmt.Errorf("type mismatch: %w", err)
				}
			}
			v, err := op.Val.ConvertToNative(reflect.TypeFor[*structpb.Value]())
			if err != nil {
				return nil, fmt.Errorf("JSONPath valueExpression evaluated to a type that could not marshal to JSON: %w", err)
			}
			b, err := json.Marshal(v)
			if err != nil {
				return nil, fmt.Errorf("JSONPath valueExpression evaluated to a type that could not marshal to JSON: %w", err)
			}
			m := json.RawMessage(b)
			o["value"] = &m
		}
		p = append(p, o)
	}
	return p, nil
}

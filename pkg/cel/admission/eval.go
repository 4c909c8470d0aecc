package admission

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"reflect"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/interpreter"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// kube-apiserver's runtime cost budgets (kapicel.PerCallLimit bounds
// each evaluation of one expression).
const (
	// Budget bounds the cost of the expressions of one policy for one
	// write: its validations, then their messages, or its mutations.
	Budget = 10_000_000
	// MatchConditionsBudget bounds the cost of a webhook's or policy's
	// match conditions for one write.
	MatchConditionsBudget = 2_500_000
)

// OutOfBudget is kube-apiserver's error once a budget is spent: no more
// expressions of the write are evaluated.
const OutOfBudget = "validation failed due to running out of cost budget, no further validation rules will be run"

// Input is what the expressions of a write see.
type Input struct {
	// Object and OldObject are the write's objects in the version the
	// policy or webhook matched (nil when absent).
	Object, OldObject runtime.Object
	// Params is the binding's param object, nil if none; ParamKind names
	// its apiVersion and kind when the object does not carry them.
	Params    runtime.Object
	ParamKind *metav1.TypeMeta
	// Request is the AdmissionRequest, without its objects.
	Request *admissionv1.AdmissionRequest
	// Namespace is the write's namespace, nil for a cluster-scoped write.
	Namespace *corev1.Namespace
	// Authorizer decides authorizer's checks, for User; nil leaves the
	// authorizer variables out. RequestResource is what
	// authorizer.requestResource checks.
	Authorizer      Authorizer
	User            User
	RequestResource RequestResource
	// Variables are the policy's compiled variables, evaluated at most
	// once, when first used.
	Variables []*Expression
	// Values, if not nil, keeps the values of the objects and requests
	// above as expressions see them, for the next activations of the
	// same write; nil converts them every time.
	Values *Values
}

// Values are the objects of one write as its expressions see them
// (unstructured content), converted once for all the activations of the
// write: every policy and binding, and each of their kinds of
// expression. Converting is most of an activation's cost. The objects
// must not change while their values are kept, and one Values serves one
// goroutine.
type Values struct {
	converted map[any]any
}

// NewValues returns an empty store of values.
func NewValues() *Values { return &Values{converted: map[any]any{}} }

// of returns the value of key, converting it the first time.
func (v *Values) of(key any, convert func() (any, error)) (any, error) {
	if v == nil || key == nil {
		return convert()
	}
	if val, ok := v.converted[key]; ok {
		return val, nil
	}
	val, err := convert()
	if err == nil {
		v.converted[key] = val
	}
	return val, err
}

// Activation are the variables of the expressions of one write, for one
// policy binding (and param).
type Activation struct {
	vars      map[string]any
	variables *lazyVariables
}

// NewActivation prepares the variables of in for ctx.
func NewActivation(ctx context.Context, in Input) (*Activation, error) {
	obj, err := in.Values.of(objectKey(in.Object), func() (any, error) { return toValue(in.Object) })
	if err != nil {
		return nil, fmt.Errorf("failed to prepare object variable for evaluation: %w", err)
	}
	old, err := in.Values.of(objectKey(in.OldObject), func() (any, error) { return toValue(in.OldObject) })
	if err != nil {
		return nil, fmt.Errorf("failed to prepare oldObject variable for evaluation: %w", err)
	}
	params, err := in.Values.of(objectKey(in.Params), func() (any, error) {
		params, err := toValue(in.Params)
		if m, ok := params.(map[string]any); ok && in.ParamKind != nil {
			if _, has := m["kind"]; !has {
				m["apiVersion"], m["kind"] = in.ParamKind.APIVersion, in.ParamKind.Kind
			}
		}
		return params, err
	})
	if err != nil {
		return nil, fmt.Errorf("failed to prepare params variable for evaluation: %w", err)
	}
	request, err := in.Values.of(key(in.Request), func() (any, error) { return jsonValue(in.Request) })
	if err != nil {
		return nil, err
	}
	var namespace any
	if in.Namespace != nil {
		namespace, err = in.Values.of(key(in.Namespace), func() (any, error) { return jsonValue(namespaceObject(in.Namespace)) })
		if err != nil {
			return nil, err
		}
	}
	a := &Activation{vars: map[string]any{
		"object": obj, "oldObject": old, "params": params, "request": request, "namespaceObject": namespace,
	}}
	if in.Authorizer != nil {
		az := &authz{ctx: ctx, authorizer: in.Authorizer, user: in.User}
		a.vars["authorizer"] = newAuthorizerVal(az)
		a.vars["authorizer.requestResource"] = newRequestResourceVal(az, in.RequestResource)
	}
	a.variables = &lazyVariables{ctx: ctx, activation: a, exprs: map[string]*Expression{}, values: map[string]ref.Val{}}
	for _, v := range in.Variables {
		a.variables.exprs[v.Name] = v
	}
	a.vars["variables"] = a.variables
	return a, nil
}

// key is what Values keeps the value of obj under: the pointer itself,
// or nil, which is not kept, for none.
func key[T any](obj *T) any {
	if obj == nil {
		return nil
	}
	return obj
}

// objectKey is key for an object: nil for none, or for an object that is
// not a pointer, whose identity says nothing.
func objectKey(obj runtime.Object) any {
	if obj == nil {
		return nil
	}
	if v := reflect.ValueOf(obj); v.Kind() != reflect.Pointer || v.IsNil() {
		return nil
	}
	return obj
}

// namespaceObject is the part of a namespace its expressions see, as
// kube-apiserver exposes it.
func namespaceObject(ns *corev1.Namespace) *corev1.Namespace {
	return &corev1.Namespace{
		Spec: ns.Spec, Status: ns.Status,
		ObjectMeta: metav1.ObjectMeta{
			Name: ns.Name, GenerateName: ns.GenerateName, Namespace: ns.Namespace, UID: ns.UID,
			ResourceVersion: ns.ResourceVersion, Generation: ns.Generation, CreationTimestamp: ns.CreationTimestamp,
			DeletionTimestamp: ns.DeletionTimestamp, DeletionGracePeriodSeconds: ns.DeletionGracePeriodSeconds,
			Labels: ns.Labels, Annotations: ns.Annotations, Finalizers: ns.Finalizers,
		},
	}
}

// ResolveName implements interpreter.Activation.
func (a *Activation) ResolveName(name string) (any, bool) {
	v, ok := a.vars[name]
	return v, ok
}

// Parent implements interpreter.Activation.
func (a *Activation) Parent() interpreter.Activation { return nil }

// Result is an expression's outcome: its value, or the error of this
// expression alone (it did not compile, or failed at run time).
type Result struct {
	Value ref.Val
	Err   error
}

// Eval evaluates e, spending its cost (and that of the variables it
// evaluated first) from budget. A fatal error (the budget is spent, the
// cost unknown) means no further expression of the write is evaluated.
func (a *Activation) Eval(ctx context.Context, e *Expression, budget *int64) (Result, error) {
	if e.Err != nil {
		return Result{Err: fmt.Errorf("compilation error: %v", e.Err)}, nil
	}
	if e.Program == nil {
		return Result{Err: fmt.Errorf("unexpected internal error compiling expression")}, nil
	}
	a.variables.ctx = ctx
	val, details, err := e.Program.ContextEval(ctx, a)
	varCost := a.variables.takeCost()
	if varCost > *budget {
		*budget = -1
		return Result{}, fmt.Errorf("%s", OutOfBudget)
	}
	*budget -= varCost
	if details == nil || details.ActualCost() == nil {
		*budget = -1
		return Result{}, fmt.Errorf("runtime cost could not be calculated for expression: %v, no further expression will be run", e.Text)
	}
	cost := *details.ActualCost()
	if cost > math.MaxInt64 || int64(cost) > *budget {
		*budget = -1
		return Result{}, fmt.Errorf("%s", OutOfBudget)
	}
	*budget -= int64(cost)
	if err != nil {
		return Result{Err: fmt.Errorf("expression '%v' resulted in error: %v", e.Text, err)}, nil
	}
	return Result{Value: val}, nil
}

// lazyVariables is the value of variables: each variable is evaluated
// when an expression first reads it, once per activation, its cost
// charged to the expression that read it.
type lazyVariables struct {
	ctx        context.Context
	activation *Activation
	exprs      map[string]*Expression
	values     map[string]ref.Val
	cost       int64
}

func (l *lazyVariables) takeCost() int64 {
	c := l.cost
	l.cost = 0
	return c
}

func (l *lazyVariables) get(name string) (ref.Val, bool) {
	if v, ok := l.values[name]; ok {
		return v, true
	}
	e, ok := l.exprs[name]
	if !ok {
		return nil, false
	}
	v := l.eval(e)
	l.values[name] = v
	return v, true
}

func (l *lazyVariables) eval(e *Expression) ref.Val {
	if e.Err != nil {
		return types.NewErr("composited variable %q fails to compile: %v", e.Name, e.Err)
	}
	if e.Program == nil {
		return types.NewErr("composited variable %q fails to compile", e.Name)
	}
	v, details, err := e.Program.ContextEval(l.ctx, l.activation)
	if details == nil || details.ActualCost() == nil {
		return types.NewErr("unable to calculate cost of variable %q", e.Name)
	}
	cost := *details.ActualCost()
	if cost > math.MaxInt64 {
		cost = math.MaxInt64
	}
	l.cost += int64(cost)
	if l.cost < 0 {
		l.cost = math.MaxInt64
	}
	if err != nil {
		return types.NewErr("composited variable %q fails to evaluate: %v", e.Name, err)
	}
	return v
}

// lazyVariables is a CEL map of the variables' names to their values.
var _ traits.Mapper = (*lazyVariables)(nil)

func (l *lazyVariables) Find(key ref.Val) (ref.Val, bool) {
	name, ok := key.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(key), true
	}
	return l.get(name)
}

func (l *lazyVariables) Get(key ref.Val) ref.Val {
	v, ok := l.Find(key)
	if !ok {
		return types.NewErr("no such key: %v", key)
	}
	return v
}

func (l *lazyVariables) Contains(key ref.Val) ref.Val {
	name, ok := key.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(key)
	}
	_, has := l.exprs[name]
	return types.Bool(has)
}

func (l *lazyVariables) Size() ref.Val { return types.Int(len(l.exprs)) }

func (l *lazyVariables) Iterator() traits.Iterator {
	names := make([]string, 0, len(l.exprs))
	for n := range l.exprs {
		names = append(names, n)
	}
	return types.NewStringList(types.DefaultTypeAdapter, names).(traits.Lister).Iterator()
}

func (l *lazyVariables) ConvertToNative(typeDesc reflect.Type) (any, error) {
	return nil, fmt.Errorf("variables cannot be converted to %v", typeDesc)
}

func (l *lazyVariables) ConvertToType(typeVal ref.Type) ref.Val {
	switch typeVal {
	case types.MapType:
		return l
	case types.TypeType:
		return types.MapType
	}
	return types.NewErr("variables cannot be converted to %v", typeVal)
}

func (l *lazyVariables) Equal(other ref.Val) ref.Val { return types.Bool(l == other) }
func (l *lazyVariables) Type() ref.Type              { return types.MapType }
func (l *lazyVariables) Value() any                  { return l }

// toValue is obj as CEL sees it: its JSON form, as unstructured content.
func toValue(obj runtime.Object) (any, error) {
	if obj == nil {
		return nil, nil
	}
	if v := reflect.ValueOf(obj); v.Kind() == reflect.Pointer && v.IsNil() {
		return nil, nil
	}
	if u, ok := obj.(runtime.Unstructured); ok {
		return runtime.DeepCopyJSON(u.UnstructuredContent()), nil
	}
	return runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
}

// jsonValue is v through JSON, as kube-apiserver hands typed values to
// CEL without a schema.
func jsonValue(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	return convertNumbers(out), nil
}

// convertNumbers makes JSON's float64 integers int64, as unstructured
// content has them.
func convertNumbers(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = convertNumbers(e)
		}
	case []any:
		for i, e := range t {
			t[i] = convertNumbers(e)
		}
	case float64:
		if t == math.Trunc(t) && math.Abs(t) < 1<<53 {
			return int64(t)
		}
	}
	return v
}

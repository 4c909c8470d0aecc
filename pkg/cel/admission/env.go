// Package admission is the CEL environment of the expressions of
// admission webhooks and policies, as kube-apiserver 1.37 declares it,
// for compiling (the registry validates configurations through it) and
// for evaluating (the webhooks' match conditions and the admission
// policies run them): kube-apiserver's base environment (package cel)
// with the authorizer libraries, and the variables of an admission
// request: object, oldObject and params (dynamic), request and
// namespaceObject (typed as kube-apiserver declares them), authorizer
// and authorizer.requestResource, and for policies with variables, the
// variables compiled so far. Mutations also construct Object{...} and
// JSONPatch{...} values.
//
// It is a leaf: what it evaluates with (the write's objects, the
// request, the authorizer) is handed in as API types and small
// interfaces.
package admission

import (
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"k8s.io/apimachinery/pkg/util/sets"

	kapicel "github.com/kapi-dev/kapi/pkg/cel"
	"github.com/kapi-dev/kapi/pkg/cel/mutation"
)

// Kind is which field an expression is, which decides the type it must
// have and the variables it sees.
type Kind int

const (
	MatchCondition Kind = iota
	Validation
	Message
	AuditAnnotation
	Variable
	ApplyConfiguration
	JSONPatch
)

var (
	authorizerType    = types.NewObjectType("kubernetes.authorization.Authorizer")
	pathCheckType     = types.NewObjectType("kubernetes.authorization.PathCheck")
	groupCheckType    = types.NewObjectType("kubernetes.authorization.GroupCheck")
	resourceCheckType = types.NewObjectType("kubernetes.authorization.ResourceCheck")
	decisionType      = types.NewObjectType("kubernetes.authorization.Decision")
	objectType        = types.NewObjectType("Object")
	jsonPatchType     = types.NewObjectType("JSONPatch")
	variablesType     = types.NewObjectType("kubernetes.variables")
)

// returnTypes are the types an expression of each kind may have, and
// how kube-apiserver words them.
var returnTypes = map[Kind][]*types.Type{
	MatchCondition:     {types.BoolType},
	Validation:         {types.BoolType},
	Message:            {types.StringType},
	AuditAnnotation:    {types.StringType, types.NullType},
	Variable:           {types.AnyType, types.DynType},
	ApplyConfiguration: {objectType},
	JSONPatch:          {types.NewListType(jsonPatchType)},
}

// structs are the object types of the admission variables, field by
// field, as kube-apiserver declares them.
var structs = func() map[string]map[string]*types.Type {
	str, strList := types.StringType, types.NewListType(types.StringType)
	gvk := map[string]*types.Type{"group": str, "version": str, "kind": str}
	gvr := map[string]*types.Type{"group": str, "version": str, "resource": str}
	return map[string]map[string]*types.Type{
		"kubernetes.GroupVersionKind":     gvk,
		"kubernetes.GroupVersionResource": gvr,
		"kubernetes.UserInfo": {"username": str, "uid": str, "groups": strList,
			"extra": types.NewMapType(str, strList)},
		"kubernetes.AdmissionRequest": {
			"kind": types.NewObjectType("kubernetes.GroupVersionKind"), "resource": types.NewObjectType("kubernetes.GroupVersionResource"),
			"subResource": str, "requestKind": types.NewObjectType("kubernetes.GroupVersionKind"),
			"requestResource": types.NewObjectType("kubernetes.GroupVersionResource"), "requestSubResource": str,
			"name": str, "namespace": str, "operation": str, "userInfo": types.NewObjectType("kubernetes.UserInfo"),
			"dryRun": types.BoolType, "options": types.DynType,
		},
		"kubernetes.NamespaceSpec": {"finalizers": strList},
		"kubernetes.NamespaceCondition": {"status": str, "type": str, "lastTransitionTime": types.TimestampType,
			"message": str, "reason": str},
		"kubernetes.NamespaceStatus": {"conditions": types.NewListType(types.NewObjectType("kubernetes.NamespaceCondition")), "phase": str},
		"kubernetes.NamespaceMetadata": {"name": str, "generateName": str, "namespace": str,
			"labels": types.NewMapType(str, str), "annotations": types.NewMapType(str, str), "UID": str,
			"creationTimestamp": types.TimestampType, "deletionGracePeriodSeconds": types.IntType,
			"deletionTimestamp": types.TimestampType, "generation": types.IntType, "resourceVersion": str, "finalizers": strList},
		"kubernetes.Namespace": {"metadata": types.NewObjectType("kubernetes.NamespaceMetadata"),
			"spec": types.NewObjectType("kubernetes.NamespaceSpec"), "status": types.NewObjectType("kubernetes.NamespaceStatus")},
		"JSONPatch": {"op": str, "from": str, "path": str, "value": types.DynType},
	}
}()

// baseEnvs are kube-apiserver's base environment with the authorizer
// libraries, for expressions written now and for stored ones.
var baseEnvs = sync.OnceValues(func() ([2]*cel.Env, error) {
	var envs [2]*cel.Env
	for _, kind := range []kapicel.EnvKind{kapicel.NewExpressions, kapicel.StoredExpressions} {
		base, err := kapicel.BaseEnv(kind)
		if err == nil {
			envs[kind], err = base.Extend(authorizerFunctions()...)
		}
		if err != nil {
			return envs, fmt.Errorf("CEL environment of admission expressions misconfigured: %w", err)
		}
	}
	return envs, nil
})

// Compiler compiles the expressions of one configuration or policy. With
// composition, each variable compiled adds its type to the variables the
// later expressions see, as kube-apiserver's composited compiler does,
// and its program to those the evaluation of the later ones may call.
type Compiler struct {
	composited bool
	hasParams  bool
	// stored are the stored object's expressions by kind, compiled in the
	// environment of stored expressions; allStored compiles every
	// expression there, as an admission plugin compiles what is stored.
	stored    map[Kind]sets.Set[string]
	allStored bool
	variables map[string]*types.Type
	programs  []*Expression
}

// NewCompiler compiles the expressions of a configuration being
// validated: composited if the policy has variables, with params if it
// has a param kind; the expressions in stored (those the stored object
// already had) compile in the environment of stored expressions.
func NewCompiler(composited, hasParams bool, stored map[Kind]sets.Set[string]) *Compiler {
	return &Compiler{composited: composited, hasParams: hasParams, stored: stored, variables: map[string]*types.Type{}}
}

// NewStoredCompiler compiles the expressions of a stored configuration
// or policy, to evaluate them.
func NewStoredCompiler(composited, hasParams bool) *Compiler {
	c := NewCompiler(composited, hasParams, nil)
	c.allStored = true
	return c
}

// An Expression is a compiled expression, or why it does not compile.
type Expression struct {
	Text string
	Kind Kind
	// Name is a variable's name.
	Name    string
	Program cel.Program
	Type    *types.Type
	// Err is why it did not compile (a *CompileError).
	Err error
}

// CompileError is why an expression did not compile, worded as
// kube-apiserver words it in a field error: "compilation failed: ...",
// "must evaluate to bool but got int". Internal is an environment that
// could not be built.
type CompileError struct {
	Internal bool
	Reason   string
}

func (e *CompileError) Error() string { return e.Reason }

// Compile compiles expression as an expression of kind.
func (c *Compiler) Compile(expression string, kind Kind) *Expression {
	return c.check(expression, kind)
}

// CompileVariable compiles a variable and makes its type, dyn if it does
// not compile, known to the expressions compiled after it.
func (c *Compiler) CompileVariable(name, expression string) *Expression {
	e := c.check(expression, Variable)
	e.Name = name
	t := e.Type
	if e.Err != nil || t == nil {
		t = types.DynType
	}
	c.variables[name] = t
	c.programs = append(c.programs, e)
	return e
}

// Variables are the variables compiled so far, in order.
func (c *Compiler) Variables() []*Expression { return c.programs }

func (c *Compiler) check(expression string, kind Kind) *Expression {
	e := &Expression{Text: expression, Kind: kind}
	env, err := c.env(kind, c.allStored || c.stored[storedSetOf(kind)].Has(expression))
	if err != nil {
		e.Err = &CompileError{Internal: true, Reason: err.Error()}
		return e
	}
	ast, issues := env.Compile(expression)
	if issues != nil && issues.Err() != nil {
		e.Err = &CompileError{Reason: "compilation failed: " + issues.String()}
		return e
	}
	want := returnTypes[kind]
	ok := false
	for _, t := range want {
		if ast.OutputType().IsExactType(t) || types.AnyType.IsExactType(t) {
			ok = true
			break
		}
	}
	if !ok {
		if len(want) == 1 {
			e.Err = &CompileError{Reason: fmt.Sprintf("must evaluate to %v but got %v", want[0].String(), ast.OutputType().String())}
		} else {
			e.Err = &CompileError{Reason: fmt.Sprintf("must evaluate to one of %v but got %v", want, ast.OutputType().String())}
		}
		return e
	}
	e.Type = ast.OutputType()
	prg, err := env.Program(ast)
	if err != nil {
		e.Err = &CompileError{Reason: "program instantiation failed: " + err.Error()}
		return e
	}
	e.Program = prg
	return e
}

// storedSetOf is the set of stored expressions kube-apiserver looks an
// expression of kind up in: variables in the validations', JSON patches
// in the apply configurations'.
func storedSetOf(kind Kind) Kind {
	switch kind {
	case Variable:
		return Validation
	case JSONPatch:
		return ApplyConfiguration
	}
	return kind
}

// env is the environment an expression of kind compiles in.
func (c *Compiler) env(kind Kind, stored bool) (*cel.Env, error) {
	envs, err := baseEnvs()
	if err != nil {
		return nil, err
	}
	base := envs[kapicel.NewExpressions]
	if stored {
		base = envs[kapicel.StoredExpressions]
	}
	// Match conditions compile without composition, messages without the
	// authorizer; params are there when the policy has a param kind.
	composited := c.composited && kind != MatchCondition
	authorizer := kind != Message
	patchTypes := kind == ApplyConfiguration || kind == JSONPatch
	opts := []cel.EnvOption{
		cel.CustomTypeProvider(&typeProvider{Provider: base.CELTypeProvider(), variables: c.variables, patchTypes: patchTypes}),
		cel.Variable("object", types.DynType),
		cel.Variable("oldObject", types.DynType),
		cel.Variable("namespaceObject", types.NewObjectType("kubernetes.Namespace")),
		cel.Variable("request", types.NewObjectType("kubernetes.AdmissionRequest")),
	}
	if c.hasParams {
		opts = append(opts, cel.Variable("params", types.DynType))
	}
	if authorizer {
		opts = append(opts, cel.Variable("authorizer", authorizerType), cel.Variable("authorizer.requestResource", resourceCheckType))
	}
	if composited {
		opts = append(opts, cel.Variable("variables", variablesType))
	}
	if patchTypes {
		opts = append(opts, cel.Function("jsonpatch.escapeKey", cel.Overload("string_jsonpatch_escapeKey_string", []*types.Type{types.StringType}, types.StringType, cel.UnaryBinding(escapeKey))))
	}
	return base.Extend(opts...)
}

// escapeKey escapes a key for a JSON Pointer path: ~ as ~0, / as ~1.
func escapeKey(v ref.Val) ref.Val {
	s, ok := v.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(v)
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '~':
			out = append(out, '~', '0')
		case '/':
			out = append(out, '~', '1')
		default:
			out = append(out, s[i])
		}
	}
	return types.String(out)
}

// typeProvider resolves the object types of the admission variables, the
// variables of a composing policy, and for mutations Object, Object.<...>
// (any field, of type dyn) and JSONPatch.
type typeProvider struct {
	types.Provider
	variables  map[string]*types.Type
	patchTypes bool
}

func (p *typeProvider) fields(name string) (map[string]*types.Type, bool) {
	if name == variablesType.TypeName() {
		return p.variables, true
	}
	if name == jsonPatchType.TypeName() && !p.patchTypes {
		return nil, false
	}
	f, ok := structs[name]
	return f, ok
}

func (p *typeProvider) dynamicObject(name string) bool {
	return p.patchTypes && (name == "Object" || len(name) > len("Object.") && name[:len("Object.")] == "Object.")
}

func (p *typeProvider) FindStructType(name string) (*types.Type, bool) {
	if _, ok := p.fields(name); ok || p.dynamicObject(name) {
		return types.NewTypeTypeWithParam(types.NewObjectType(name)), true
	}
	return p.Provider.FindStructType(name)
}

func (p *typeProvider) FindStructFieldNames(name string) ([]string, bool) {
	if f, ok := p.fields(name); ok {
		return slices.Sorted(maps.Keys(f)), true
	}
	if p.dynamicObject(name) {
		return nil, true
	}
	return p.Provider.FindStructFieldNames(name)
}

func (p *typeProvider) FindStructFieldType(name, fieldName string) (*types.FieldType, bool) {
	if f, ok := p.fields(name); ok {
		t, ok := f[fieldName]
		if !ok && name == jsonPatchType.TypeName() {
			// kube-apiserver's JSONPatch type has every field, those it
			// does not know of no type.
			return &types.FieldType{}, true
		}
		if !ok {
			return nil, false
		}
		return &types.FieldType{Type: t}, true
	}
	if p.dynamicObject(name) {
		return &types.FieldType{Type: types.DynType}, true
	}
	return p.Provider.FindStructFieldType(name, fieldName)
}

func (p *typeProvider) NewValue(name string, fields map[string]ref.Val) ref.Val {
	if p.patchTypes {
		// Object{...} and JSONPatch{...} values.
		return mutation.Provider(p.Provider).NewValue(name, fields)
	}
	return p.Provider.NewValue(name, fields)
}

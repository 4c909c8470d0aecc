package admissionregistration

import (
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"

	kapicel "github.com/kapi-dev/kapi/pkg/cel"
)

// The expressions of admission webhooks and policies are CEL, compiled
// here as kube-apiserver compiles them when it validates a configuration:
// in its base environment (package cel) with the authorizer
// libraries, and the variables of an admission request: object,
// oldObject and params (dynamic), request and namespaceObject (typed as
// kube-apiserver declares them), authorizer and
// authorizer.requestResource, and for policies with variables, the
// variables compiled so far. Mutations also construct Object{...} and
// JSONPatch{...} values. An expression fails validation if it does not
// compile, or if its type is not the one its field must have. Only
// compiled: evaluating is the admission plugins' business.

// exprKind is which field an expression is, which decides the type it
// must have and the variables it sees.
type exprKind int

const (
	exprMatchCondition exprKind = iota
	exprValidation
	exprMessage
	exprAuditAnnotation
	exprVariable
	exprApplyConfiguration
	exprJSONPatch
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
var returnTypes = map[exprKind][]*types.Type{
	exprMatchCondition:     {types.BoolType},
	exprValidation:         {types.BoolType},
	exprMessage:            {types.StringType},
	exprAuditAnnotation:    {types.StringType, types.NullType},
	exprVariable:           {types.AnyType, types.DynType},
	exprApplyConfiguration: {objectType},
	exprJSONPatch:          {types.NewListType(jsonPatchType)},
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

// authorizerFunctions declare the authorizer libraries (authz and
// authzSelectors). Declarations only: compiling needs no bindings.
func authorizerFunctions() []cel.EnvOption {
	str := types.StringType
	member := func(name, id string, args []*types.Type, result *types.Type) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload(id, args, result))
	}
	return []cel.EnvOption{
		member("path", "authorizer_path", []*types.Type{authorizerType, str}, pathCheckType),
		member("group", "authorizer_group", []*types.Type{authorizerType, str}, groupCheckType),
		member("serviceAccount", "authorizer_serviceaccount", []*types.Type{authorizerType, str, str}, authorizerType),
		member("resource", "groupcheck_resource", []*types.Type{groupCheckType, str}, resourceCheckType),
		member("subresource", "resourcecheck_subresource", []*types.Type{resourceCheckType, str}, resourceCheckType),
		member("namespace", "resourcecheck_namespace", []*types.Type{resourceCheckType, str}, resourceCheckType),
		member("name", "resourcecheck_name", []*types.Type{resourceCheckType, str}, resourceCheckType),
		cel.Function("check",
			cel.MemberOverload("pathcheck_check", []*types.Type{pathCheckType, str}, decisionType),
			cel.MemberOverload("resourcecheck_check", []*types.Type{resourceCheckType, str}, decisionType)),
		member("errored", "decision_errored", []*types.Type{decisionType}, types.BoolType),
		member("error", "decision_error", []*types.Type{decisionType}, str),
		member("allowed", "decision_allowed", []*types.Type{decisionType}, types.BoolType),
		member("reason", "decision_reason", []*types.Type{decisionType}, str),
		member("fieldSelector", "authorizer_fieldselector", []*types.Type{resourceCheckType, str}, resourceCheckType),
		member("labelSelector", "authorizer_labelselector", []*types.Type{resourceCheckType, str}, resourceCheckType),
	}
}

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

// policyCompiler compiles the expressions of one configuration or policy.
// With composition, each variable compiled adds its type to the
// variables the later expressions see, as kube-apiserver's composited
// compiler does.
type policyCompiler struct {
	composited bool
	hasParams  bool
	// stored are the stored object's expressions by kind, compiled in the
	// environment of stored expressions.
	stored    map[exprKind]sets.Set[string]
	variables map[string]*types.Type
}

func newPolicyCompiler(composited, hasParams bool, stored map[exprKind]sets.Set[string]) *policyCompiler {
	return &policyCompiler{composited: composited, hasParams: hasParams, stored: stored, variables: map[string]*types.Type{}}
}

// compileMatchCondition compiles a webhook's match condition, which
// sees no params and no variables.
func compileMatchCondition(expression string, stored bool, fldPath *field.Path) field.ErrorList {
	c := &policyCompiler{}
	if stored {
		c.stored = map[exprKind]sets.Set[string]{exprMatchCondition: sets.New(expression)}
	}
	return c.compile(expression, exprMatchCondition, fldPath)
}

// compile compiles expression as an expression of kind at fldPath.
func (c *policyCompiler) compile(expression string, kind exprKind, fldPath *field.Path) field.ErrorList {
	_, errs := c.check(expression, expression, kind, fldPath)
	return errs
}

// compileAs compiles expression but reports the error with written, the
// value as the object has it (kube-apiserver compiles some expressions
// trimmed).
func (c *policyCompiler) compileAs(expression, written string, kind exprKind, fldPath *field.Path) field.ErrorList {
	_, errs := c.check(expression, written, kind, fldPath)
	return errs
}

// compileVariable compiles a variable and makes its type, dyn if it does
// not compile, known to the expressions compiled after it.
func (c *policyCompiler) compileVariable(name, expression string, fldPath *field.Path) field.ErrorList {
	t, errs := c.check(expression, expression, exprVariable, fldPath)
	if t == nil {
		t = types.DynType
	}
	c.variables[name] = t
	return errs
}

func (c *policyCompiler) check(expression, written string, kind exprKind, fldPath *field.Path) (*types.Type, field.ErrorList) {
	env, err := c.env(kind, c.stored[storedSetOf(kind)].Has(expression))
	if err != nil {
		return nil, field.ErrorList{field.InternalError(fldPath, fmt.Errorf("unexpected error loading CEL environment: %v", err))}
	}
	ast, issues := env.Compile(expression)
	if issues != nil && issues.Err() != nil {
		return nil, field.ErrorList{field.Invalid(fldPath, written, "compilation failed: "+issues.String())}
	}
	want := returnTypes[kind]
	for _, t := range want {
		if ast.OutputType().IsExactType(t) || types.AnyType.IsExactType(t) {
			return ast.OutputType(), nil
		}
	}
	var reason string
	if len(want) == 1 {
		reason = fmt.Sprintf("must evaluate to %v but got %v", want[0].String(), ast.OutputType().String())
	} else {
		reason = fmt.Sprintf("must evaluate to one of %v but got %v", want, ast.OutputType().String())
	}
	return nil, field.ErrorList{field.Invalid(fldPath, written, reason)}
}

// storedSetOf is the set of stored expressions kube-apiserver looks an
// expression of kind up in: variables in the validations', JSON patches
// in the apply configurations'.
func storedSetOf(kind exprKind) exprKind {
	switch kind {
	case exprVariable:
		return exprValidation
	case exprJSONPatch:
		return exprApplyConfiguration
	}
	return kind
}

// env is the environment an expression of kind compiles in.
func (c *policyCompiler) env(kind exprKind, stored bool) (*cel.Env, error) {
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
	composited := c.composited && kind != exprMatchCondition
	authorizer := kind != exprMessage
	patchTypes := kind == exprApplyConfiguration || kind == exprJSONPatch
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
		opts = append(opts, cel.Function("jsonpatch.escapeKey", cel.Overload("string_jsonpatch_escapeKey_string", []*types.Type{types.StringType}, types.StringType)))
	}
	return base.Extend(opts...)
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
	return p.Provider.NewValue(name, fields)
}

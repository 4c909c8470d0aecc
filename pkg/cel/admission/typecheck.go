package admission

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/traits"

	kapicel "github.com/kapi-dev/kapi/pkg/cel"
	"github.com/kapi-dev/kapi/pkg/cel/schemas"
)

// A TypeChecker compiles the expressions of a ValidatingAdmissionPolicy
// with object and oldObject typed from the schema of one kind its
// constraints match, and params from the schema of its paramKind, as
// kube-controller-manager's type checker does to warn of expressions
// that cannot work (a field the kind lacks, an operator its type does
// not have). Its environment is not the one of admission: it is the
// base environment of stored expressions with namespaceObject, request,
// object, oldObject, params (for a policy with a paramKind), authorizer
// (but not authorizer.requestResource) and the variables compiled so
// far; no result type is required.
type TypeChecker struct {
	env       *cel.Env
	variables map[string]*types.Type
}

// NewTypeChecker returns a checker for a policy's expressions: object is
// the type of the kind checked against, params the type of the
// paramKind; nil leaves them dyn. Both must be named (see
// schemas.DeclType.Named). hasParams declares params.
func NewTypeChecker(object, params *schemas.DeclType, hasParams bool) (*TypeChecker, error) {
	envs, err := baseEnvs()
	if err != nil {
		return nil, err
	}
	base := envs[kapicel.StoredExpressions]
	c := &TypeChecker{variables: map[string]*types.Type{}}
	admissionTypes := &typeProvider{Provider: base.CELTypeProvider(), variables: c.variables}
	typeOf := func(t *schemas.DeclType) *types.Type {
		if t == nil {
			return types.DynType
		}
		return t.CEL
	}
	opts := []cel.EnvOption{
		cel.CustomTypeProvider(schemas.NewTypeProvider(admissionTypes, object, params)),
		cel.Variable("namespaceObject", types.NewObjectType("kubernetes.Namespace")),
		cel.Variable("request", types.NewObjectType("kubernetes.AdmissionRequest")),
		cel.Variable("object", typeOf(object)),
		cel.Variable("oldObject", typeOf(object)),
		cel.Variable("authorizer", authorizerType),
		cel.Variable("variables", variablesType),
	}
	if hasParams {
		opts = append(opts, cel.Variable("params", typeOf(params)))
	}
	if c.env, err = base.Extend(opts...); err != nil {
		return nil, err
	}
	return c, nil
}

// Check compiles expression and returns the checker's issues, worded as
// cel-go words them ("ERROR: <input>:1:8: undefined field 'x'" and the
// expression marked), or "" when it compiles.
func (c *TypeChecker) Check(expression string) string {
	_, issues := c.env.Compile(expression)
	if issues != nil && issues.Err() != nil {
		return issues.String()
	}
	return ""
}

// AddVariable compiles a variable and makes its type known to the
// expressions checked after it: lists and maps keep their shape and
// scalars their type, anything else (an object of the schema, or a
// variable that does not compile) is dyn.
func (c *TypeChecker) AddVariable(name, expression string) {
	t := types.DynType
	if ast, issues := c.env.Compile(expression); issues == nil || issues.Err() == nil {
		t = variableType(ast.OutputType())
	}
	c.variables[name] = t
}

func variableType(t *types.Type) *types.Type {
	if t == nil {
		return types.DynType
	}
	for _, scalar := range []*types.Type{types.AnyType, types.BoolType, types.BytesType, types.DoubleType, types.DurationType,
		types.IntType, types.NullType, types.StringType, types.TimestampType, types.UintType} {
		if t.IsExactType(scalar) {
			return scalar
		}
	}
	if t.HasTrait(traits.ContainerType) && t.HasTrait(traits.IndexerType) {
		switch params := t.Parameters(); len(params) {
		case 1:
			return types.NewListType(variableType(params[0]))
		case 2:
			return types.NewMapType(variableType(params[0]), variableType(params[1]))
		}
	}
	return types.DynType
}

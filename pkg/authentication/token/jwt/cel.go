package jwt

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// CEL in AuthenticationConfiguration sees the token's claims as "claims"
// (claim validation rules and claim mappings) and the mapped user as
// "user" (user validation rules), as in kube-apiserver. Both are maps of
// dynamic values here; kube-apiserver types the user as an object with
// username, uid, groups and extra, which reads the same in expressions.
var (
	claimsEnv, userEnv *cel.Env
	envErr             error
)

func init() {
	claimsEnv, envErr = cel.NewEnv(cel.Variable("claims", cel.MapType(cel.StringType, cel.DynType)), cel.OptionalTypes())
	if envErr == nil {
		userEnv, envErr = cel.NewEnv(cel.Variable("user", cel.MapType(cel.StringType, cel.DynType)), cel.OptionalTypes())
	}
}

// Expression is a compiled CEL expression with its source.
type Expression struct {
	Source  string
	Message string
	program cel.Program
}

// CompileClaims compiles an expression over "claims".
func CompileClaims(src string) (*Expression, error) { return compile(claimsEnv, src) }

// CompileUser compiles an expression over "user".
func CompileUser(src string) (*Expression, error) { return compile(userEnv, src) }

func compile(env *cel.Env, src string) (*Expression, error) {
	if envErr != nil {
		return nil, envErr
	}
	ast, iss := env.Compile(src)
	if iss.Err() != nil {
		return nil, fmt.Errorf("compilation failed: %v", iss.Err())
	}
	prg, err := env.Program(ast, cel.CostLimit(1000000))
	if err != nil {
		return nil, fmt.Errorf("compilation failed: %v", err)
	}
	return &Expression{Source: src, program: prg}, nil
}

func (e *Expression) eval(name string, value map[string]any) (ref.Val, error) {
	out, _, err := e.program.Eval(map[string]any{name: value})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// evalString evaluates a mapping that must give a string.
func (e *Expression) evalString(claims map[string]any) (string, error) {
	v, err := e.eval("claims", claims)
	if err != nil {
		return "", err
	}
	s, ok := v.Value().(string)
	if !ok {
		return "", fmt.Errorf("expression must return a string, got %v", v.Type())
	}
	return s, nil
}

// evalStrings evaluates a mapping that gives a string or a list of them;
// null is none.
func (e *Expression) evalStrings(claims map[string]any) ([]string, error) {
	v, err := e.eval("claims", claims)
	if err != nil {
		return nil, err
	}
	if v == types.NullValue {
		return nil, nil
	}
	if s, ok := v.Value().(string); ok {
		return []string{s}, nil
	}
	native, err := v.ConvertToNative(stringSliceType)
	if err != nil {
		return nil, fmt.Errorf("expression must return a string or a list of strings, got %v", v.Type())
	}
	return native.([]string), nil
}

// evalBool evaluates a validation rule over name = value.
func (e *Expression) evalBool(name string, value map[string]any) (bool, error) {
	v, err := e.eval(name, value)
	if err != nil {
		return false, err
	}
	b, ok := v.Value().(bool)
	if !ok {
		return false, errors.New("expression must return a boolean")
	}
	return b, nil
}

var stringSliceType = reflectTypeOf[[]string]()

func reflectTypeOf[T any]() reflect.Type { return reflect.TypeOf((*T)(nil)).Elem() }

package library

import (
	"regexp"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"
)

// Regex returns the Kubernetes regex library:
//
//	<string>.find(<regex string>) string              first match, "" if none
//	<string>.findAll(<regex string>) list(string)     all matches
//	<string>.findAll(<regex string>, <int n>) list(string)   at most n matches (n < 0: all)
//
// A literal pattern is compiled once, when the program is built.
func Regex() cel.EnvOption {
	lib := newLibrary("kubernetes.regex", map[string][]cel.FunctionOpt{
		"find": {
			cel.MemberOverload("string_find_string", []*cel.Type{cel.StringType, cel.StringType}, cel.StringType,
				cel.BinaryBinding(func(str, pattern ref.Val) ref.Val {
					re, err := compileRegex(pattern)
					if err != nil {
						return err
					}
					return findFirst(re, str)
				})),
		},
		"findAll": {
			cel.MemberOverload("string_find_all_string", []*cel.Type{cel.StringType, cel.StringType}, cel.ListType(cel.StringType),
				cel.BinaryBinding(func(str, pattern ref.Val) ref.Val {
					re, err := compileRegex(pattern)
					if err != nil {
						return err
					}
					return findAll(re, str, types.Int(-1))
				})),
			cel.MemberOverload("string_find_all_string_int", []*cel.Type{cel.StringType, cel.StringType, cel.IntType}, cel.ListType(cel.StringType),
				cel.FunctionBinding(func(args ...ref.Val) ref.Val {
					if len(args) != 3 {
						return types.NoSuchOverloadErr()
					}
					re, err := compileRegex(args[1])
					if err != nil {
						return err
					}
					return findAll(re, args[0], args[2])
				})),
		},
	})
	lib.programs = []cel.ProgramOption{cel.OptimizeRegex(
		literalRegex("find", func(re *regexp.Regexp, args []ref.Val) ref.Val {
			if len(args) != 2 {
				return types.NoSuchOverloadErr()
			}
			return findFirst(re, args[0])
		}),
		literalRegex("findAll", func(re *regexp.Regexp, args []ref.Val) ref.Val {
			switch len(args) {
			case 2:
				return findAll(re, args[0], types.Int(-1))
			case 3:
				return findAll(re, args[0], args[2])
			}
			return types.NoSuchOverloadErr()
		}),
	)}
	return cel.Lib(lib)
}

func compileRegex(pattern ref.Val) (*regexp.Regexp, ref.Val) {
	p, ok := pattern.Value().(string)
	if !ok {
		return nil, types.MaybeNoSuchOverloadErr(pattern)
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, types.NewErr("Illegal regex: %v", err.Error())
	}
	return re, nil
}

func findFirst(re *regexp.Regexp, str ref.Val) ref.Val {
	s, ok := str.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(str)
	}
	return types.String(re.FindString(s))
}

func findAll(re *regexp.Regexp, str, limit ref.Val) ref.Val {
	s, ok := str.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(str)
	}
	n, ok := limit.Value().(int64)
	if !ok {
		return types.MaybeNoSuchOverloadErr(limit)
	}
	return types.NewStringList(types.DefaultTypeAdapter, re.FindAllString(s, int(n)))
}

// literalRegex precompiles the pattern (argument 1) of calls to fn when it
// is a literal. An invalid literal fails program creation.
func literalRegex(fn string, call func(re *regexp.Regexp, args []ref.Val) ref.Val) *interpreter.RegexOptimization {
	return &interpreter.RegexOptimization{
		Function:   fn,
		RegexIndex: 1,
		Factory: func(c interpreter.InterpretableCall, pattern string) (interpreter.InterpretableCall, error) {
			re, err := regexp.Compile(pattern)
			if err != nil {
				return nil, err
			}
			return interpreter.NewCall(c.ID(), c.Function(), c.OverloadID(), c.Args(), func(args ...ref.Val) ref.Val {
				return call(re, args)
			}), nil
		},
	}
}

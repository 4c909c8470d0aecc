package library

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// SemverType is the CEL type of semver("...") values.
var SemverType = cel.ObjectType("kubernetes.Semver")

// Semver is a semantic version (semver.org 2.0.0) as a CEL value.
type Semver struct {
	Major, Minor, Patch uint64
	// Pre are the dot separated pre-release identifiers.
	Pre []string
	// Build is the build metadata, which takes no part in comparisons.
	Build []string
}

func (v Semver) String() string {
	s := fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
	if len(v.Pre) > 0 {
		s += "-" + strings.Join(v.Pre, ".")
	}
	if len(v.Build) > 0 {
		s += "+" + strings.Join(v.Build, ".")
	}
	return s
}

func (v Semver) ConvertToNative(t reflect.Type) (any, error) {
	if reflect.TypeOf(v).AssignableTo(t) {
		return v, nil
	}
	if reflect.TypeOf("").AssignableTo(t) {
		return v.String(), nil
	}
	return nil, fmt.Errorf("type conversion error from 'Semver' to '%v'", t)
}

func (v Semver) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case SemverType:
		return v
	case types.TypeType:
		return SemverType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", SemverType, t)
}

func (v Semver) Equal(other ref.Val) ref.Val {
	o, ok := other.(Semver)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(v.Compare(o) == 0)
}

func (v Semver) Type() ref.Type { return SemverType }
func (v Semver) Value() any     { return v }

// Compare orders versions by semver precedence: -1, 0 or 1.
func (v Semver) Compare(o Semver) int {
	for _, d := range [][2]uint64{{v.Major, o.Major}, {v.Minor, o.Minor}, {v.Patch, o.Patch}} {
		if d[0] != d[1] {
			return compareUint(d[0], d[1])
		}
	}
	// A version without pre-release identifiers ranks above one with.
	switch {
	case len(v.Pre) == 0 && len(o.Pre) == 0:
		return 0
	case len(v.Pre) == 0:
		return 1
	case len(o.Pre) == 0:
		return -1
	}
	for i := 0; i < len(v.Pre) && i < len(o.Pre); i++ {
		if c := comparePre(v.Pre[i], o.Pre[i]); c != 0 {
			return c
		}
	}
	return compareUint(uint64(len(v.Pre)), uint64(len(o.Pre)))
}

// comparePre compares pre-release identifiers: numeric ones numerically and
// below alphanumeric ones, which compare as strings.
func comparePre(a, b string) int {
	an, aNum := numericIdentifier(a)
	bn, bNum := numericIdentifier(b)
	switch {
	case aNum && bNum:
		return compareUint(an, bn)
	case aNum:
		return -1
	case bNum:
		return 1
	}
	return strings.Compare(a, b)
}

func numericIdentifier(s string) (uint64, bool) {
	if !onlyDigits(s) {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil
}

func compareUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func onlyDigits(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }) < 0
}

func onlyAlphanumeric(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool {
		return !(r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0
}

// ParseSemver parses a strict semantic version, with the error messages of
// the semver package Kubernetes uses (github.com/blang/semver/v4).
func ParseSemver(s string) (Semver, error) {
	if s == "" {
		return Semver{}, errors.New("Version string empty")
	}
	parts := strings.SplitN(s, ".", 3)
	if len(parts) != 3 {
		return Semver{}, errors.New("No Major.Minor.Patch elements found")
	}
	var v Semver
	rest := parts[2]
	if i := strings.IndexByte(rest, '+'); i >= 0 {
		v.Build = strings.Split(rest[i+1:], ".")
		rest = rest[:i]
	}
	var pre []string
	if i := strings.IndexByte(rest, '-'); i >= 0 {
		pre = strings.Split(rest[i+1:], ".")
		rest = rest[:i]
	}
	numbers := []struct {
		name string
		text string
		dst  *uint64
	}{{"major", parts[0], &v.Major}, {"minor", parts[1], &v.Minor}, {"patch", rest, &v.Patch}}
	for _, n := range numbers {
		if !onlyDigits(n.text) {
			return Semver{}, fmt.Errorf("Invalid character(s) found in %s number %q", n.name, n.text)
		}
		if len(n.text) > 1 && n.text[0] == '0' {
			return Semver{}, fmt.Errorf("%s number must not contain leading zeroes %q", strings.ToUpper(n.name[:1])+n.name[1:], n.text)
		}
		u, err := strconv.ParseUint(n.text, 10, 64)
		if err != nil {
			return Semver{}, err
		}
		*n.dst = u
	}
	for _, p := range pre {
		switch {
		case p == "":
			return Semver{}, errors.New("Prerelease is empty")
		case onlyDigits(p):
			if len(p) > 1 && p[0] == '0' {
				return Semver{}, fmt.Errorf("Numeric PreRelease version must not contain leading zeroes %q", p)
			}
			if _, err := strconv.ParseUint(p, 10, 64); err != nil {
				return Semver{}, err
			}
		case !onlyAlphanumeric(p):
			return Semver{}, fmt.Errorf("Invalid character(s) found in prerelease %q", p)
		}
		v.Pre = append(v.Pre, p)
	}
	for _, b := range v.Build {
		if b == "" {
			return Semver{}, errors.New("Build meta data is empty")
		}
		if !onlyAlphanumeric(b) {
			return Semver{}, fmt.Errorf("Invalid character(s) found in build meta data %q", b)
		}
	}
	return v, nil
}

func parseSemver(s string, normalize bool) (Semver, error) {
	if normalize {
		return normalizeSemver(s)
	}
	return ParseSemver(s)
}

// normalizeSemver is the lenient parse of semver(s, true): a leading "v"
// is dropped, leading zeros are removed and missing minor or patch numbers
// default to 0.
func normalizeSemver(s string) (Semver, error) {
	s = strings.TrimPrefix(s, "v")
	parts := strings.SplitN(s, ".", 3)
	for i, p := range parts {
		if len(p) > 1 {
			p = strings.TrimLeft(p, "0")
			if p == "" || p[0] < '0' || p[0] > '9' {
				p = "0" + p
			}
			parts[i] = p
		}
	}
	if len(parts) < 3 {
		if strings.ContainsAny(parts[len(parts)-1], "+-") {
			return Semver{}, errors.New("short version cannot contain PreRelease/Build meta data")
		}
		for len(parts) < 3 {
			parts = append(parts, "0")
		}
	}
	return ParseSemver(strings.Join(parts, "."))
}

// Semvers returns the Kubernetes semver library:
//
//	semver(<string>) Semver, isSemver(<string>) bool
//	semver(<string>, <bool normalize>), isSemver(<string>, <bool normalize>)   version >= 1
//	<Semver>.isGreaterThan(<Semver>), isLessThan(<Semver>) bool, compareTo(<Semver>) int
//	<Semver>.major(), minor(), patch() int
func Semvers(version uint32) cel.EnvOption {
	// args unpacks the (string, normalize) arguments of semver and isSemver.
	args := func(sv, nv ref.Val) (string, bool, ref.Val) {
		s, ok := sv.Value().(string)
		if !ok {
			return "", false, types.MaybeNoSuchOverloadErr(sv)
		}
		normalize, ok := nv.Value().(bool)
		if !ok {
			return "", false, types.MaybeNoSuchOverloadErr(nv)
		}
		return s, normalize, nil
	}
	toSemver := func(sv, nv ref.Val) ref.Val {
		s, normalize, bad := args(sv, nv)
		if bad != nil {
			return bad
		}
		v, err := parseSemver(s, normalize)
		if err != nil {
			return types.WrapErr(err)
		}
		return v
	}
	isSemver := func(sv, nv ref.Val) ref.Val {
		s, normalize, bad := args(sv, nv)
		if bad != nil {
			return bad
		}
		_, err := parseSemver(s, normalize)
		return types.Bool(err == nil)
	}
	compare := func(id string, result *cel.Type, fn func(int) ref.Val) cel.FunctionOpt {
		return cel.MemberOverload(id, []*cel.Type{SemverType, SemverType}, result, cel.BinaryBinding(func(a, b ref.Val) ref.Val {
			v, ok := a.(Semver)
			if !ok {
				return types.MaybeNoSuchOverloadErr(a)
			}
			o, ok := b.(Semver)
			if !ok {
				return types.MaybeNoSuchOverloadErr(a)
			}
			return fn(v.Compare(o))
		}))
	}
	part := func(id string, get func(Semver) uint64) cel.FunctionOpt {
		return cel.MemberOverload(id, []*cel.Type{SemverType}, cel.IntType, cel.UnaryBinding(func(a ref.Val) ref.Val {
			v, ok := a.(Semver)
			if !ok {
				return types.MaybeNoSuchOverloadErr(a)
			}
			return types.Int(get(v))
		}))
	}
	fns := map[string][]cel.FunctionOpt{
		"semver": {cel.Overload("string_to_semver", []*cel.Type{cel.StringType}, SemverType,
			cel.UnaryBinding(func(s ref.Val) ref.Val { return toSemver(s, types.False) }))},
		"isSemver": {cel.Overload("is_semver_string", []*cel.Type{cel.StringType}, cel.BoolType,
			cel.UnaryBinding(func(s ref.Val) ref.Val { return isSemver(s, types.False) }))},
		"isGreaterThan": {compare("semver_is_greater_than", cel.BoolType, func(c int) ref.Val { return types.Bool(c == 1) })},
		"isLessThan":    {compare("semver_is_less_than", cel.BoolType, func(c int) ref.Val { return types.Bool(c == -1) })},
		"compareTo":     {compare("semver_compare_to", cel.IntType, func(c int) ref.Val { return types.Int(c) })},
		"major":         {part("semver_major", func(v Semver) uint64 { return v.Major })},
		"minor":         {part("semver_minor", func(v Semver) uint64 { return v.Minor })},
		"patch":         {part("semver_patch", func(v Semver) uint64 { return v.Patch })},
	}
	name := "kubernetes.Semver"
	if version >= 1 {
		fns["semver"] = append(fns["semver"], cel.Overload("string_bool_to_semver", []*cel.Type{cel.StringType, cel.BoolType}, SemverType,
			cel.BinaryBinding(toSemver)))
		fns["isSemver"] = append(fns["isSemver"], cel.Overload("is_semver_string_bool", []*cel.Type{cel.StringType, cel.BoolType}, cel.BoolType,
			cel.BinaryBinding(isSemver)))
		name = "kubernetes.Semver.v1"
	}
	return cel.Lib(newLibrary(name, fns))
}

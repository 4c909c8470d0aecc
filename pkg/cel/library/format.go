package library

import (
	"fmt"
	"net/url"
	"reflect"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
)

// FormatType is the CEL type of format.<name>() values.
var FormatType = cel.ObjectType("kubernetes.NamedFormat")

// Format is a named string format as a CEL value.
type Format struct {
	Name     string
	validate func(string) []string
	// maxRegexSize is the length of the longest regular expression the
	// format's check runs; it prices validate().
	maxRegexSize int
}

func (f Format) ConvertToNative(t reflect.Type) (any, error) {
	return nil, fmt.Errorf("type conversion error from 'Format' to '%v'", t)
}

func (f Format) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case FormatType:
		return f
	case types.TypeType:
		return FormatType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", FormatType, t)
}

func (f Format) Equal(other ref.Val) ref.Val {
	o, ok := other.(Format)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(f.Name == o.Name)
}

func (f Format) Type() ref.Type { return FormatType }
func (f Format) Value() any     { return f }

// Sizes used by Kubernetes to price checks that are not a single regex.
const (
	base64RegexSize = 84
	urlRegexSize    = 1103
)

// namedFormats are the formats of format.<name>() and format.named("<name>").
var namedFormats = map[string]Format{
	"dns1123Label": {Name: "DNS1123Label", maxRegexSize: 30,
		validate: func(s string) []string { return apimachineryvalidation.NameIsDNSLabel(s, false) }},
	"dns1123Subdomain": {Name: "DNS1123Subdomain", maxRegexSize: 60,
		validate: func(s string) []string { return apimachineryvalidation.NameIsDNSSubdomain(s, false) }},
	"dns1035Label": {Name: "DNS1035Label", maxRegexSize: 30,
		validate: func(s string) []string { return apimachineryvalidation.NameIsDNS1035Label(s, false) }},
	"qualifiedName": {Name: "QualifiedName", maxRegexSize: 60, validate: validation.IsQualifiedName},
	"dns1123LabelPrefix": {Name: "DNS1123LabelPrefix", maxRegexSize: 30,
		validate: func(s string) []string { return apimachineryvalidation.NameIsDNSLabel(s, true) }},
	"dns1123SubdomainPrefix": {Name: "DNS1123SubdomainPrefix", maxRegexSize: 60,
		validate: func(s string) []string { return apimachineryvalidation.NameIsDNSSubdomain(s, true) }},
	"dns1035LabelPrefix": {Name: "DNS1035LabelPrefix", maxRegexSize: 30,
		validate: func(s string) []string { return apimachineryvalidation.NameIsDNS1035Label(s, true) }},
	"labelValue": {Name: "LabelValue", maxRegexSize: 40, validate: validation.IsValidLabelValue},
	"uri": {Name: "URI", maxRegexSize: urlRegexSize, validate: func(s string) []string {
		if _, err := url.ParseRequestURI(s); err != nil {
			return []string{err.Error()}
		}
		return nil
	}},
	"uuid":     {Name: "uuid", maxRegexSize: len(strfmt.UUIDPattern), validate: strfmtCheck("uuid", "does not match the UUID format")},
	"byte":     {Name: "byte", maxRegexSize: base64RegexSize, validate: strfmtCheck("byte", "invalid base64")},
	"date":     {Name: "date", maxRegexSize: len(strfmt.DateTimePattern), validate: strfmtCheck("date", "invalid date")},
	"datetime": {Name: "datetime", maxRegexSize: len(strfmt.DateTimePattern), validate: strfmtCheck("datetime", "invalid datetime")},
}

func strfmtCheck(format, message string) func(string) []string {
	return func(s string) []string {
		if !strfmt.Default.Validates(format, s) {
			return []string{message}
		}
		return nil
	}
}

// Formats returns the Kubernetes format library:
//
//	format.dns1123Label(), format.dns1123Subdomain(), ... Format   (one per named format)
//	format.named(<string>) optional(Format)
//	<Format>.validate(<string>) optional(list(string))   none when valid, else the problems
func Formats() cel.EnvOption {
	fns := map[string][]cel.FunctionOpt{
		"validate": {cel.MemberOverload("format-validate", []*cel.Type{FormatType, cel.StringType}, cel.OptionalType(cel.ListType(cel.StringType)),
			cel.BinaryBinding(func(fv, sv ref.Val) ref.Val {
				f, ok := fv.Value().(Format)
				if !ok {
					return types.MaybeNoSuchOverloadErr(fv)
				}
				s, ok := sv.Value().(string)
				if !ok {
					return types.MaybeNoSuchOverloadErr(sv)
				}
				problems := f.validate(s)
				if len(problems) == 0 {
					return types.OptionalNone
				}
				return types.OptionalOf(types.NewStringList(types.DefaultTypeAdapter, problems))
			}))},
		"format.named": {cel.Overload("format-named", []*cel.Type{cel.StringType}, cel.OptionalType(FormatType),
			cel.UnaryBinding(func(name ref.Val) ref.Val {
				n, ok := name.Value().(string)
				if !ok {
					return types.MaybeNoSuchOverloadErr(name)
				}
				f, ok := namedFormats[n]
				if !ok {
					return types.OptionalNone
				}
				return types.OptionalOf(f)
			}))},
	}
	for name, f := range namedFormats {
		fn := "format." + name
		fns[fn] = []cel.FunctionOpt{cel.Overload(fn, []*cel.Type{}, FormatType,
			cel.FunctionBinding(func(...ref.Val) ref.Val { return f }))}
	}
	return cel.Lib(newLibrary("kubernetes.format", fns))
}

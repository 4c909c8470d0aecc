package library

import (
	"fmt"
	"net/url"
	"reflect"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// URLType is the CEL type of url("...") values.
var URLType = cel.ObjectType("kubernetes.URL")

// URL is a parsed URL as a CEL value.
type URL struct {
	*url.URL
}

func (u URL) ConvertToNative(t reflect.Type) (any, error) {
	if reflect.TypeOf(u.URL).AssignableTo(t) {
		return u.URL, nil
	}
	if reflect.TypeOf("").AssignableTo(t) {
		return u.URL.String(), nil
	}
	return nil, fmt.Errorf("type conversion error from 'URL' to '%v'", t)
}

func (u URL) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case URLType:
		return u
	case types.TypeType:
		return URLType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", URLType, t)
}

func (u URL) Equal(other ref.Val) ref.Val {
	o, ok := other.(URL)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(u.URL.String() == o.URL.String())
}

func (u URL) Type() ref.Type { return URLType }
func (u URL) Value() any     { return u.URL }

// URLs returns the Kubernetes URL library:
//
//	url(<string>) URL        the string must be an absolute URI or an absolute path
//	isURL(<string>) bool
//	<URL>.getScheme(), getHost(), getHostname(), getPort(), getEscapedPath() string
//	<URL>.getQuery() map(string, list(string))
func URLs() cel.EnvOption {
	accessor := func(id string, get func(*url.URL) string) cel.FunctionOpt {
		return cel.MemberOverload(id, []*cel.Type{URLType}, cel.StringType, cel.UnaryBinding(func(v ref.Val) ref.Val {
			u, ok := v.Value().(*url.URL)
			if !ok {
				return types.MaybeNoSuchOverloadErr(v)
			}
			return types.String(get(u))
		}))
	}
	return cel.Lib(newLibrary("kubernetes.urls", map[string][]cel.FunctionOpt{
		"url": {cel.Overload("string_to_url", []*cel.Type{cel.StringType}, URLType, cel.UnaryBinding(stringToURL))},
		"isURL": {cel.Overload("is_url_string", []*cel.Type{cel.StringType}, cel.BoolType, cel.UnaryBinding(func(v ref.Val) ref.Val {
			s, ok := v.Value().(string)
			if !ok {
				return types.MaybeNoSuchOverloadErr(v)
			}
			_, err := url.ParseRequestURI(s)
			return types.Bool(err == nil)
		}))},
		"getScheme":      {accessor("url_get_scheme", func(u *url.URL) string { return u.Scheme })},
		"getHost":        {accessor("url_get_host", func(u *url.URL) string { return u.Host })},
		"getHostname":    {accessor("url_get_hostname", (*url.URL).Hostname)},
		"getPort":        {accessor("url_get_port", (*url.URL).Port)},
		"getEscapedPath": {accessor("url_get_escaped_path", (*url.URL).EscapedPath)},
		"getQuery": {cel.MemberOverload("url_get_query", []*cel.Type{URLType}, cel.MapType(cel.StringType, cel.ListType(cel.StringType)),
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				u, ok := v.Value().(*url.URL)
				if !ok {
					return types.MaybeNoSuchOverloadErr(v)
				}
				query := map[ref.Val]ref.Val{}
				for k, vs := range u.Query() {
					query[types.String(k)] = types.NewStringList(types.DefaultTypeAdapter, vs)
				}
				return types.NewRefValMap(types.DefaultTypeAdapter, query)
			}))},
	}))
}

func stringToURL(v ref.Val) ref.Val {
	s, ok := v.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(v)
	}
	// ParseRequestURI rejects relative references; Parse keeps the fragment.
	if _, err := url.ParseRequestURI(s); err != nil {
		return types.NewErr("URL parse error during conversion from string: %v", err)
	}
	u, err := url.Parse(s)
	if err != nil {
		return types.NewErr("URL parse error during conversion from string: %v", err)
	}
	return URL{URL: u}
}

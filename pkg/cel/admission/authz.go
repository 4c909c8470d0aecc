package admission

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
)

// Authorizer decides the checks of the authorizer library: kube-apiserver's
// authorizer, for the user of the write (or, after serviceAccount(), a
// service account).
type Authorizer interface {
	Authorize(ctx context.Context, check Check) (allowed bool, reason string, err error)
}

// User is whom a check is for.
type User struct {
	Name   string
	UID    string
	Groups []string
	Extra  map[string][]string
}

// Check is one authorization check: a non-resource path, or a resource
// (of any version) with its subresource, namespace and name, and the
// selectors as written (authorizers parse them).
type Check struct {
	User            User
	Verb            string
	Path            string
	ResourceRequest bool
	APIGroup        string
	Resource        string
	Subresource     string
	Namespace       string
	Name            string
	FieldSelector   string
	LabelSelector   string
}

// RequestResource is the resource a write is addressed to, which
// authorizer.requestResource checks.
type RequestResource struct {
	Group, Resource, Subresource, Namespace, Name string
}

// authorizerFunctions declare the authorizer libraries (authz and
// authzSelectors), with their implementations.
func authorizerFunctions() []cel.EnvOption {
	str := types.StringType
	member := func(name, id string, args []*types.Type, result *types.Type, fn func(ref.Val, ref.Val) ref.Val) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload(id, args, result, cel.BinaryBinding(fn)))
	}
	unary := func(name, id string, arg, result *types.Type, fn func(ref.Val) ref.Val) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload(id, []*types.Type{arg}, result, cel.UnaryBinding(fn)))
	}
	return []cel.EnvOption{
		member("path", "authorizer_path", []*types.Type{authorizerType, str}, pathCheckType, authorizerPath),
		member("group", "authorizer_group", []*types.Type{authorizerType, str}, groupCheckType, authorizerGroup),
		cel.Function("serviceAccount", cel.MemberOverload("authorizer_serviceaccount", []*types.Type{authorizerType, str, str}, authorizerType,
			cel.FunctionBinding(authorizerServiceAccount))),
		member("resource", "groupcheck_resource", []*types.Type{groupCheckType, str}, resourceCheckType, groupCheckResource),
		member("subresource", "resourcecheck_subresource", []*types.Type{resourceCheckType, str}, resourceCheckType, resourceSetter(func(r *resourceCheckVal, s string) { r.subresource = s })),
		member("namespace", "resourcecheck_namespace", []*types.Type{resourceCheckType, str}, resourceCheckType, resourceSetter(func(r *resourceCheckVal, s string) { r.namespace = s })),
		member("name", "resourcecheck_name", []*types.Type{resourceCheckType, str}, resourceCheckType, resourceSetter(func(r *resourceCheckVal, s string) { r.name = s })),
		cel.Function("check",
			cel.MemberOverload("pathcheck_check", []*types.Type{pathCheckType, str}, decisionType, cel.BinaryBinding(pathCheckCheck)),
			cel.MemberOverload("resourcecheck_check", []*types.Type{resourceCheckType, str}, decisionType, cel.BinaryBinding(resourceCheckCheck))),
		unary("errored", "decision_errored", decisionType, types.BoolType, decisionGetter(func(d decisionVal) ref.Val { return types.Bool(d.err != nil) })),
		unary("error", "decision_error", decisionType, str, decisionGetter(func(d decisionVal) ref.Val {
			if d.err == nil {
				return types.String("")
			}
			return types.String(d.err.Error())
		})),
		unary("allowed", "decision_allowed", decisionType, types.BoolType, decisionGetter(func(d decisionVal) ref.Val { return types.Bool(d.allowed) })),
		unary("reason", "decision_reason", decisionType, str, decisionGetter(func(d decisionVal) ref.Val { return types.String(d.reason) })),
		member("fieldSelector", "authorizer_fieldselector", []*types.Type{resourceCheckType, str}, resourceCheckType, resourceSetter(func(r *resourceCheckVal, s string) { r.fieldSelector = s })),
		member("labelSelector", "authorizer_labelselector", []*types.Type{resourceCheckType, str}, resourceCheckType, resourceSetter(func(r *resourceCheckVal, s string) { r.labelSelector = s })),
	}
}

// authz is the authorizer of one evaluation, for one user.
type authz struct {
	ctx        context.Context
	authorizer Authorizer
	user       User
}

// NewAuthorizerValue is the value of the authorizer variable.
func newAuthorizerVal(a *authz) ref.Val {
	return authorizerVal{opaque: opaque{authorizerType}, authz: a}
}

// newRequestResourceVal is the value of authorizer.requestResource.
func newRequestResourceVal(a *authz, r RequestResource) ref.Val {
	return resourceCheckVal{opaque: opaque{resourceCheckType}, authz: a, group: r.Group, resource: r.Resource,
		subresource: r.Subresource, namespace: r.Namespace, name: r.Name}
}

type authorizerVal struct {
	opaque
	authz *authz
}

type pathCheckVal struct {
	opaque
	authz *authz
	path  string
}

type groupCheckVal struct {
	opaque
	authz *authz
	group string
}

type resourceCheckVal struct {
	opaque
	authz                                                                       *authz
	group, resource, subresource, namespace, name, fieldSelector, labelSelector string
}

type decisionVal struct {
	opaque
	allowed bool
	reason  string
	err     error
}

func stringArg(v ref.Val) (string, bool) {
	s, ok := v.Value().(string)
	return s, ok
}

func authorizerPath(recv, arg ref.Val) ref.Val {
	a, ok := recv.(authorizerVal)
	path, ok2 := stringArg(arg)
	if !ok || !ok2 {
		return types.MaybeNoSuchOverloadErr(recv)
	}
	if strings.TrimSpace(path) == "" {
		return types.NewErr("path must not be empty")
	}
	return pathCheckVal{opaque: opaque{pathCheckType}, authz: a.authz, path: path}
}

func authorizerGroup(recv, arg ref.Val) ref.Val {
	a, ok := recv.(authorizerVal)
	group, ok2 := stringArg(arg)
	if !ok || !ok2 {
		return types.MaybeNoSuchOverloadErr(recv)
	}
	return groupCheckVal{opaque: opaque{groupCheckType}, authz: a.authz, group: group}
}

// authorizerServiceAccount checks as the service account namespace/name,
// with the groups kube-apiserver gives service accounts.
func authorizerServiceAccount(args ...ref.Val) ref.Val {
	if len(args) != 3 {
		return types.NoSuchOverloadErr()
	}
	a, ok := args[0].(authorizerVal)
	if !ok {
		return types.MaybeNoSuchOverloadErr(args[0])
	}
	namespace, ok := stringArg(args[1])
	if !ok {
		return types.MaybeNoSuchOverloadErr(args[1])
	}
	name, ok := stringArg(args[2])
	if !ok {
		return types.MaybeNoSuchOverloadErr(args[2])
	}
	if len(apimachineryvalidation.ValidateServiceAccountName(name, false)) > 0 {
		return types.NewErr("Invalid service account name")
	}
	if len(apimachineryvalidation.ValidateNamespaceName(namespace, false)) > 0 {
		return types.NewErr("Invalid service account namespace")
	}
	sa := &authz{ctx: a.authz.ctx, authorizer: a.authz.authorizer, user: User{
		Name:   fmt.Sprintf("system:serviceaccount:%s:%s", namespace, name),
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace},
		Extra:  map[string][]string{},
	}}
	return authorizerVal{opaque: opaque{authorizerType}, authz: sa}
}

func groupCheckResource(recv, arg ref.Val) ref.Val {
	g, ok := recv.(groupCheckVal)
	resource, ok2 := stringArg(arg)
	if !ok || !ok2 {
		return types.MaybeNoSuchOverloadErr(recv)
	}
	if strings.TrimSpace(resource) == "" {
		return types.NewErr("resource must not be empty")
	}
	return resourceCheckVal{opaque: opaque{resourceCheckType}, authz: g.authz, group: g.group, resource: resource}
}

func resourceSetter(set func(*resourceCheckVal, string)) func(ref.Val, ref.Val) ref.Val {
	return func(recv, arg ref.Val) ref.Val {
		r, ok := recv.(resourceCheckVal)
		s, ok2 := stringArg(arg)
		if !ok || !ok2 {
			return types.MaybeNoSuchOverloadErr(recv)
		}
		set(&r, s)
		return r
	}
}

func pathCheckCheck(recv, arg ref.Val) ref.Val {
	p, ok := recv.(pathCheckVal)
	verb, ok2 := stringArg(arg)
	if !ok || !ok2 {
		return types.MaybeNoSuchOverloadErr(recv)
	}
	return p.authz.decide(Check{Path: p.path, Verb: verb})
}

func resourceCheckCheck(recv, arg ref.Val) ref.Val {
	r, ok := recv.(resourceCheckVal)
	verb, ok2 := stringArg(arg)
	if !ok || !ok2 {
		return types.MaybeNoSuchOverloadErr(recv)
	}
	return r.authz.decide(Check{
		ResourceRequest: true, Verb: verb, APIGroup: r.group, Resource: r.resource, Subresource: r.subresource,
		Namespace: r.namespace, Name: r.name, FieldSelector: r.fieldSelector, LabelSelector: r.labelSelector,
	})
}

func (a *authz) decide(c Check) ref.Val {
	c.User = a.user
	allowed, reason, err := a.authorizer.Authorize(a.ctx, c)
	return decisionVal{opaque: opaque{decisionType}, allowed: allowed, reason: reason, err: err}
}

func decisionGetter(get func(decisionVal) ref.Val) func(ref.Val) ref.Val {
	return func(v ref.Val) ref.Val {
		d, ok := v.(decisionVal)
		if !ok {
			return types.MaybeNoSuchOverloadErr(v)
		}
		return get(d)
	}
}

// opaque is a value with member functions and no fields.
type opaque struct {
	t *types.Type
}

func (o opaque) ConvertToNative(typeDesc reflect.Type) (any, error) {
	return nil, fmt.Errorf("type conversion error from '%s' to '%v'", o.t.String(), typeDesc)
}

func (o opaque) ConvertToType(typeVal ref.Type) ref.Val {
	switch typeVal.TypeName() {
	case o.t.TypeName():
		return o
	case types.TypeType.TypeName():
		return types.NewTypeValue(o.t.TypeName())
	}
	return types.NewErr("type conversion error from '%s' to '%s'", o.t.String(), typeVal.TypeName())
}

func (o opaque) Equal(other ref.Val) ref.Val {
	return types.MaybeNoSuchOverloadErr(other)
}

func (o opaque) Type() ref.Type { return types.NewTypeValue(o.t.TypeName()) }
func (o opaque) Value() any     { return types.NoSuchOverloadErr() }

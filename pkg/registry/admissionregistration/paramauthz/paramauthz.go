// Package paramauthz keeps users from pointing admission policies at
// parameters they may not read, as kube-apiserver's storage of policies
// and bindings does.
//
// A policy with a paramKind may be created, or updated to a new
// paramKind, only by a user who may "get" every object of that kind
// (name and namespace "*"). A binding with a paramRef may be created,
// or updated to a new paramRef or policy, only by a user who may "get"
// the object it names (or "list" the objects its selector picks) in the
// resource of its policy's paramKind; when the policy cannot be read, or
// its paramKind neither parsed nor resolved to a resource, the user needs
// the permission on every resource. Members of system:masters skip the
// checks. A refusal is a Forbidden error at spec.paramKind or
// spec.paramRef, worded as kube-apiserver words it (the user printed as
// Go prints kube's user record).
package paramauthz

import (
	"context"
	"errors"
	"fmt"
	"slices"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
)

// ResourceResolver finds the resource that serves a kind, as discovery
// lists it.
type ResourceResolver interface {
	Resolve(gvk schema.GroupVersionKind) (schema.GroupVersionResource, error)
}

// Checker asks the server's authorizer. A nil *Checker allows everything
// (storage built for tests).
type Checker struct {
	Authorizer authorizer.Authorizer
	Resources  ResourceResolver
}

// Binding is which kind of binding a paramRef is checked for: the two
// word a refusal of a named reference differently.
type Binding int

const (
	// ValidatingBinding is a ValidatingAdmissionPolicyBinding.
	ValidatingBinding Binding = iota
	// MutatingBinding is a MutatingAdmissionPolicyBinding, whose refusal
	// kube-apiserver words with the verb and the user swapped ("user get
	// does not have "&{alice ...}" permission").
	MutatingBinding
)

// PolicyGetter reads the paramKind of a policy by name; the kind is nil
// when the policy has none.
type PolicyGetter func(ctx context.Context, name string) (*admissionregistrationv1.ParamKind, error)

var (
	paramKindPath = field.NewPath("spec", "paramKind")
	paramRefPath  = field.NewPath("spec", "paramRef")
)

// ParamKindOnCreate checks the paramKind of a new policy.
func (c *Checker) ParamKindOnCreate(ctx context.Context, kind *admissionregistrationv1.ParamKind) field.ErrorList {
	if kind == nil {
		return nil
	}
	return c.paramKind(ctx, kind)
}

// ParamKindOnUpdate checks the paramKind of an updated policy, unless it
// is the one the policy had.
func (c *Checker) ParamKindOnUpdate(ctx context.Context, kind, old *admissionregistrationv1.ParamKind) field.ErrorList {
	if kind == nil || old != nil && *old == *kind {
		return nil
	}
	return c.paramKind(ctx, kind)
}

func (c *Checker) paramKind(ctx context.Context, kind *admissionregistrationv1.ParamKind) field.ErrorList {
	u, check, err := c.user(ctx, "paramKind resources")
	if err != nil {
		return field.ErrorList{field.Forbidden(paramKindPath, err.Error())}
	}
	if !check {
		return nil
	}
	resource, group, version := "*", "*", "*"
	if gv, err := schema.ParseGroupVersion(kind.APIVersion); err == nil {
		group, version = gv.Group, gv.Version
		if gvr, err := c.resolve(gv.WithKind(kind.Kind)); err == nil {
			resource = gvr.Resource
		}
	}
	attrs := authorizer.AttributesRecord{User: u, Verb: "get", ResourceRequest: true, Name: "*", Namespace: "*",
		APIGroup: group, APIVersion: version, Resource: resource}
	d, _, err := c.Authorizer.Authorize(ctx, attrs)
	switch {
	case err != nil:
		return field.ErrorList{field.Forbidden(paramKindPath, err.Error())}
	case d != authorizer.DecisionAllow:
		return field.ErrorList{field.Forbidden(paramKindPath, fmt.Sprintf(`user %v must have "get" permission on all objects of the referenced paramKind (kind=%s, apiVersion=%s)`, u, kind.Kind, kind.APIVersion))}
	}
	return nil
}

// ParamRefOnCreate checks the paramRef of a new binding of policy.
func (c *Checker) ParamRefOnCreate(ctx context.Context, b Binding, policy string, ref *admissionregistrationv1.ParamRef, get PolicyGetter) field.ErrorList {
	if ref == nil {
		return nil
	}
	return c.paramRef(ctx, b, policy, ref, get)
}

// ParamRefOnUpdate checks the paramRef of an updated binding, unless it
// and the policy are those the binding had. kube-apiserver compares the
// references field by field, pointers by address: a reference with a
// selector or a parameterNotFoundAction is never the one it had.
func (c *Checker) ParamRefOnUpdate(ctx context.Context, b Binding, policy string, ref *admissionregistrationv1.ParamRef, oldPolicy string, old *admissionregistrationv1.ParamRef, get PolicyGetter) field.ErrorList {
	if ref == nil {
		return nil
	}
	if old != nil && policy == oldPolicy && sameRef(ref, old) {
		return nil
	}
	return c.paramRef(ctx, b, policy, ref, get)
}

func sameRef(a, b *admissionregistrationv1.ParamRef) bool {
	return a.Name == b.Name && a.Namespace == b.Namespace &&
		a.Selector == nil && b.Selector == nil && a.ParameterNotFoundAction == nil && b.ParameterNotFoundAction == nil
}

func (c *Checker) paramRef(ctx context.Context, b Binding, policy string, ref *admissionregistrationv1.ParamRef, get PolicyGetter) field.ErrorList {
	u, check, err := c.user(ctx, "paramRef object")
	if err != nil {
		return field.ErrorList{field.Forbidden(paramRefPath, err.Error())}
	}
	if !check {
		return nil
	}
	resource, group, version := "*", "*", "*"
	kind, policyErr := get(ctx, policy)
	var parseErr, resolveErr error
	if policyErr == nil && kind != nil {
		var gv schema.GroupVersion
		if gv, parseErr = schema.ParseGroupVersion(kind.APIVersion); parseErr == nil {
			group, version = gv.Group, gv.Version
			var gvr schema.GroupVersionResource
			if gvr, resolveErr = c.resolve(gv.WithKind(kind.Kind)); resolveErr == nil {
				resource = gvr.Resource
			}
		}
	}
	verb := "get"
	if ref.Name == "" {
		verb = "list"
	}
	attrs := authorizer.AttributesRecord{User: u, Verb: verb, ResourceRequest: true, Name: ref.Name, Namespace: ref.Namespace,
		APIGroup: group, APIVersion: version, Resource: resource}
	d, _, err := c.Authorizer.Authorize(ctx, attrs)
	if err != nil {
		return field.ErrorList{field.Forbidden(paramRefPath, err.Error())}
	}
	if d == authorizer.DecisionAllow {
		return nil
	}
	everything := fmt.Sprintf(`user %v does not have "%s" permission for all groups, versions and resources`, u, verb)
	var msg string
	switch {
	case policyErr != nil:
		msg = fmt.Sprintf("unable to get policy %s to determine minimum required permissions and %s", policy, everything)
	case parseErr != nil:
		msg = fmt.Sprintf("unable to parse paramKind %s to determine minimum required permissions and %s", goString(kind), everything)
	case resolveErr != nil:
		msg = fmt.Sprintf("unable to resolve paramKind %s to determine minimum required permissions and %s", goString(kind), everything)
	case b == MutatingBinding:
		msg = fmt.Sprintf(`user %s does not have "%v" permission on the object referenced by paramRef`, verb, u)
	default:
		msg = fmt.Sprintf(`user %v does not have "%s" permission on the object referenced by paramRef`, u, verb)
	}
	return field.ErrorList{field.Forbidden(paramRefPath, msg)}
}

func (c *Checker) resolve(gvk schema.GroupVersionKind) (schema.GroupVersionResource, error) {
	if c.Resources == nil {
		return schema.GroupVersionResource{}, errors.New("no resource resolver")
	}
	return c.Resources.Resolve(gvk)
}

// goString prints a paramKind as Go prints kube-apiserver's internal
// one, which has no String method.
func goString(k *admissionregistrationv1.ParamKind) string {
	return fmt.Sprintf("&{%s %s}", k.APIVersion, k.Kind)
}

// user returns the user to check, or false when there is nothing to
// check: no checker, or a member of system:masters.
func (c *Checker) user(ctx context.Context, what string) (user.Info, bool, error) {
	if c == nil || c.Authorizer == nil {
		return nil, false, nil
	}
	u, ok := request.UserFrom(ctx)
	if !ok {
		return nil, false, errors.New("cannot identify user to authorize read access to " + what)
	}
	if slices.Contains(u.GetGroups(), user.SystemPrivilegedGrp) {
		return nil, false, nil
	}
	return u, true, nil
}

package paramauthz

import (
	"context"
	"errors"
	"reflect"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
)

// recorder denies everything and remembers what it was asked.
type recorder struct{ asked []authorizer.Attributes }

func (r *recorder) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	r.asked = append(r.asked, a)
	return authorizer.DecisionDeny, "", nil
}

type resources map[schema.GroupVersionKind]string

func (r resources) Resolve(gvk schema.GroupVersionKind) (schema.GroupVersionResource, error) {
	if res, ok := r[gvk]; ok {
		return gvk.GroupVersion().WithResource(res), nil
	}
	return schema.GroupVersionResource{}, errors.New("not served")
}

var served = resources{{Version: "v1", Kind: "ConfigMap"}: "configmaps"}

func alice() context.Context {
	return request.WithUser(context.Background(), &user.DefaultInfo{Name: "alice", Groups: []string{"system:authenticated"}})
}

// What is asked of the authorizer, which corpus recordings cannot show:
// get on every object of the paramKind's resource for a policy; get on
// the named object, or list in the namespace, for a binding; "*" for
// what cannot be resolved.
func TestAttributesAsked(t *testing.T) {
	configMaps := &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
	policy := func(kind *admissionregistrationv1.ParamKind, err error) PolicyGetter {
		return func(context.Context, string) (*admissionregistrationv1.ParamKind, error) { return kind, err }
	}
	cases := []struct {
		name  string
		check func(c *Checker)
		want  authorizer.AttributesRecord
	}{
		{"paramKind", func(c *Checker) { c.ParamKindOnCreate(alice(), configMaps) },
			authorizer.AttributesRecord{Verb: "get", Name: "*", Namespace: "*", APIVersion: "v1", Resource: "configmaps"}},
		{"paramKind of no resource", func(c *Checker) {
			c.ParamKindOnCreate(alice(), &admissionregistrationv1.ParamKind{APIVersion: "example.com/v1", Kind: "Widget"})
		}, authorizer.AttributesRecord{Verb: "get", Name: "*", Namespace: "*", APIGroup: "example.com", APIVersion: "v1", Resource: "*"}},
		{"named paramRef", func(c *Checker) {
			c.ParamRefOnCreate(alice(), ValidatingBinding, "p", &admissionregistrationv1.ParamRef{Name: "params", Namespace: "ns"}, policy(configMaps, nil))
		}, authorizer.AttributesRecord{Verb: "get", Name: "params", Namespace: "ns", APIVersion: "v1", Resource: "configmaps"}},
		{"selecting paramRef", func(c *Checker) {
			c.ParamRefOnCreate(alice(), ValidatingBinding, "p", &admissionregistrationv1.ParamRef{Namespace: "ns"}, policy(configMaps, nil))
		}, authorizer.AttributesRecord{Verb: "list", Namespace: "ns", APIVersion: "v1", Resource: "configmaps"}},
		{"paramRef of a missing policy", func(c *Checker) {
			c.ParamRefOnCreate(alice(), ValidatingBinding, "p", &admissionregistrationv1.ParamRef{Name: "params"}, policy(nil, errors.New("not found")))
		}, authorizer.AttributesRecord{Verb: "get", Name: "params", APIGroup: "*", APIVersion: "*", Resource: "*"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{}
			tc.check(&Checker{Authorizer: r, Resources: served})
			if len(r.asked) != 1 {
				t.Fatalf("asked %d times, want once", len(r.asked))
			}
			got := r.asked[0].(authorizer.AttributesRecord)
			got.User = nil
			tc.want.ResourceRequest = true
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("asked %+v, want %+v", got, tc.want)
			}
		})
	}
}

// Nothing is asked for system:masters, for an update that keeps the
// paramKind, or for a binding that keeps a plain reference and policy.
func TestNotAsked(t *testing.T) {
	r := &recorder{}
	c := &Checker{Authorizer: r, Resources: served}
	kind := &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "Secret"}
	ref := &admissionregistrationv1.ParamRef{Name: "params", Namespace: "ns"}
	masters := request.WithUser(context.Background(), &user.DefaultInfo{Name: "admin", Groups: []string{user.SystemPrivilegedGrp}})
	none := func(context.Context, string) (*admissionregistrationv1.ParamKind, error) { return kind, nil }
	for name, errs := range map[string]int{
		"masters":       len(c.ParamKindOnCreate(masters, kind)),
		"same kind":     len(c.ParamKindOnUpdate(alice(), kind, &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "Secret"})),
		"same ref":      len(c.ParamRefOnUpdate(alice(), ValidatingBinding, "p", ref, "p", &admissionregistrationv1.ParamRef{Name: "params", Namespace: "ns"}, none)),
		"no checker":    len((*Checker)(nil).ParamKindOnCreate(alice(), kind)),
		"no param kind": len(c.ParamKindOnCreate(alice(), nil)),
	} {
		if errs != 0 {
			t.Errorf("%s: %d errors", name, errs)
		}
	}
	if len(r.asked) != 0 {
		t.Errorf("the authorizer was asked %d times", len(r.asked))
	}
}

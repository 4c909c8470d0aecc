package path

import (
	"context"
	"testing"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

func TestAuthorize(t *testing.T) {
	a, err := New([]string{"/healthz", "/livez/*", "version", "/"})
	if err != nil {
		t.Fatal(err)
	}
	anonymous := &user.DefaultInfo{Name: user.Anonymous, Groups: []string{user.AllUnauthenticated}}

	tests := []struct {
		path     string
		resource bool
		want     authorizer.Decision
	}{
		{path: "/healthz", want: authorizer.DecisionAllow},
		{path: "/healthz/etcd", want: authorizer.DecisionNoOpinion}, // exact entries do not cover sub-paths
		{path: "/healthzz", want: authorizer.DecisionNoOpinion},
		{path: "/livez/ping", want: authorizer.DecisionAllow},
		{path: "/livez/", want: authorizer.DecisionAllow},
		{path: "/livez", want: authorizer.DecisionNoOpinion}, // "/livez/*" needs the slash
		{path: "/version", want: authorizer.DecisionAllow},   // configured without its leading slash
		{path: "version", want: authorizer.DecisionAllow},
		{path: "/", want: authorizer.DecisionAllow},
		{path: "", want: authorizer.DecisionAllow}, // the root, as an empty path
		{path: "/metrics", want: authorizer.DecisionNoOpinion},
		{path: "/HEALTHZ", want: authorizer.DecisionNoOpinion}, // paths are case-sensitive
		{path: "/healthz", resource: true, want: authorizer.DecisionNoOpinion},
	}
	for _, tt := range tests {
		attrs := authorizer.AttributesRecord{User: anonymous, Verb: "get", Path: tt.path, ResourceRequest: tt.resource}
		d, reason, err := a.Authorize(context.Background(), attrs)
		if d != tt.want || reason != "" || err != nil {
			t.Errorf("path %q (resource request: %v): got (%v, %q, %v), want %v", tt.path, tt.resource, d, reason, err, tt.want)
		}
	}
}

func TestStarPrefixAllowsEveryNonResourcePath(t *testing.T) {
	a, err := New([]string{"/*"})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/", "/metrics", "/openapi/v3", "/api"} {
		if d, _, _ := a.Authorize(context.Background(), authorizer.AttributesRecord{Path: p}); d != authorizer.DecisionAllow {
			t.Errorf("%q: %v, want Allow", p, d)
		}
	}
	resource := authorizer.AttributesRecord{Path: "/api/v1/pods", ResourceRequest: true, Verb: "list", Resource: "pods"}
	if d, _, _ := a.Authorize(context.Background(), resource); d != authorizer.DecisionNoOpinion {
		t.Errorf("resource request: %v, want NoOpinion", d)
	}
}

func TestNothingConfiguredHasNoOpinion(t *testing.T) {
	a, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	if d, _, _ := a.Authorize(context.Background(), authorizer.AttributesRecord{Path: "/"}); d != authorizer.DecisionNoOpinion {
		t.Errorf("got %v, want NoOpinion", d)
	}
}

func TestOnlyTrailingStar(t *testing.T) {
	for _, p := range []string{"/healthz/*/x", "*/healthz", "/a**"} {
		if _, err := New([]string{"/ok", p}); err == nil {
			t.Errorf("New accepted %q", p)
		}
	}
}

package authorization

import (
	"context"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/anonymousguard"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

var (
	admin     = &user.DefaultInfo{Name: "kubernetes-admin", Groups: []string{"system:masters", "system:authenticated"}}
	alice     = &user.DefaultInfo{Name: "alice", Groups: []string{"system:authenticated"}}
	anonymous = &user.DefaultInfo{Name: "system:anonymous", Groups: []string{"system:unauthenticated"}}
)

func createConfigMap(u user.Info) authorizer.AttributesRecord {
	return authorizer.AttributesRecord{User: u, Verb: "create", Namespace: "default", Resource: "configmaps", APIVersion: "v1", ResourceRequest: true, Path: "/api/v1/namespaces/default/configmaps"}
}

func get(u user.Info, path string) authorizer.AttributesRecord {
	return authorizer.AttributesRecord{User: u, Verb: "get", Path: path}
}

func TestChain(t *testing.T) {
	type check struct {
		attrs      authorizer.AttributesRecord
		want       authorizer.Decision
		wantReason string
	}
	allowed := func(a authorizer.AttributesRecord) check { return check{attrs: a, want: authorizer.DecisionAllow} }
	guarded := func(a authorizer.AttributesRecord) check {
		return check{attrs: a, want: authorizer.DecisionDeny, wantReason: anonymousguard.Reason}
	}
	forbidden := func(a authorizer.AttributesRecord) check {
		return check{attrs: a, want: authorizer.DecisionNoOpinion, wantReason: "alwaysdeny: Everything is forbidden."}
	}

	tests := []struct {
		modes  []string
		checks []check
	}{
		{
			modes: []string{"AlwaysAllow"},
			checks: []check{
				allowed(createConfigMap(admin)),
				allowed(createConfigMap(alice)),
				allowed(get(alice, "/metrics")),
				allowed(get(anonymous, "/healthz")),
				allowed(get(anonymous, "/livez")),
				allowed(get(anonymous, "/readyz")),
				allowed(get(anonymous, "/version")),
				allowed(get(anonymous, "/version/")),
				guarded(createConfigMap(anonymous)),
				guarded(get(anonymous, "/api")),
				guarded(get(anonymous, "/healthz/etcd")),
				guarded(get(anonymous, "/metrics")),
				guarded(createConfigMap(&user.DefaultInfo{Name: "impersonated", Groups: []string{"system:unauthenticated"}})),
			},
		},
		{
			modes: []string{"AlwaysDeny"},
			checks: []check{
				allowed(createConfigMap(admin)), // system:masters comes before the modes
				allowed(get(anonymous, "/healthz")),
				allowed(get(alice, "/readyz")),
				forbidden(createConfigMap(alice)),
				forbidden(createConfigMap(anonymous)),
				forbidden(get(anonymous, "/api")),
			},
		},
		{
			// AlwaysDeny has no opinion, so AlwaysAllow decides; the guard
			// still stands in front of it.
			modes: []string{"AlwaysDeny", "AlwaysAllow"},
			checks: []check{
				allowed(createConfigMap(alice)),
				allowed(get(anonymous, "/healthz")),
				guarded(createConfigMap(anonymous)),
			},
		},
		{
			modes: []string{"AlwaysAllow", "AlwaysDeny"},
			checks: []check{
				allowed(createConfigMap(alice)),
				guarded(createConfigMap(anonymous)),
			},
		},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.modes, ","), func(t *testing.T) {
			a, err := New(tt.modes, Built{})
			if err != nil {
				t.Fatalf("New(%q): %v", tt.modes, err)
			}
			for _, c := range tt.checks {
				d, reason, err := a.Authorize(context.Background(), c.attrs)
				if err != nil {
					t.Errorf("%s %s as %s: unexpected error %v", c.attrs.Verb, c.attrs.Path, c.attrs.User.GetName(), err)
				}
				if d != c.want || reason != c.wantReason {
					t.Errorf("%s %s as %s: got (%v, %q), want (%v, %q)",
						c.attrs.Verb, c.attrs.Path, c.attrs.User.GetName(), d, reason, c.want, c.wantReason)
				}
			}
		})
	}
}

func TestInvalidModes(t *testing.T) {
	tests := []struct {
		modes    []string
		wantErrs []string
	}{
		{
			modes:    nil,
			wantErrs: []string{"at least one authorization-mode must be passed"},
		},
		{
			modes:    []string{"AlwaysAllow", "Magic"},
			wantErrs: []string{`authorization-mode "Magic" is not a valid mode`},
		},
		{
			modes:    []string{"alwaysallow"},
			wantErrs: []string{`authorization-mode "alwaysallow" is not a valid mode`},
		},
		{
			modes:    []string{"AlwaysAllow", ""}, // "--authorization-mode=AlwaysAllow,"
			wantErrs: []string{`authorization-mode "" is not a valid mode`},
		},
		{
			modes: []string{"Node", "RBAC"},
			wantErrs: []string{
				`authorization-mode "Node" is not implemented by kapi yet; implemented modes are AlwaysAllow, AlwaysDeny, ABAC, Webhook`,
				`authorization-mode "RBAC" is not implemented by kapi yet`,
			},
		},
		{
			modes:    []string{"Webhook"},
			wantErrs: []string{"authorization-mode Webhook's authorization config file not passed"},
		},
		{
			modes:    []string{"ABAC"},
			wantErrs: []string{"authorization-mode ABAC's authorization policy file not passed"},
		},
		{
			modes:    []string{"AlwaysAllow", "AlwaysDeny", "AlwaysAllow"},
			wantErrs: []string{`authorization-mode ["AlwaysAllow" "AlwaysDeny" "AlwaysAllow"] has mode specified more than once`},
		},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.modes, ","), func(t *testing.T) {
			a, err := New(tt.modes, Built{})
			if err == nil || a != nil {
				t.Fatalf("New(%q) = %v, %v; want an error", tt.modes, a, err)
			}
			for _, want := range tt.wantErrs {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
		})
	}
}

func TestEveryChoiceIsImplementedOrExplained(t *testing.T) {
	for _, mode := range ModeChoices() {
		_, err := New([]string{mode}, Built{})
		if err != nil && !strings.Contains(err.Error(), "not implemented by kapi yet") && !strings.Contains(err.Error(), "file not passed") {
			t.Errorf("mode %q: %v", mode, err)
		}
	}
}

func TestBuiltAuthorizersServeTheirModes(t *testing.T) {
	rbac := authorizer.AuthorizerFunc(func(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
		return authorizer.DecisionAllow, "rbac said so", nil
	})
	a, err := New([]string{ModeRBAC}, Built{RBAC: rbac})
	if err != nil {
		t.Fatalf("New(RBAC) with an RBAC authorizer: %v", err)
	}
	attrs := authorizer.AttributesRecord{User: &user.DefaultInfo{Name: "alice"}, Verb: "get", Resource: "pods", ResourceRequest: true}
	if d, _, _ := a.Authorize(context.Background(), attrs); d != authorizer.DecisionAllow {
		t.Errorf("RBAC decided %v, want the built authorizer's allow", d)
	}
	if _, err := New([]string{ModeNode}, Built{RBAC: rbac}); err == nil {
		t.Error("New(Node) without a Node authorizer succeeded")
	}
}

package anonymousguard

import (
	"context"
	"testing"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

func TestGuard(t *testing.T) {
	tests := []struct {
		name string
		user user.Info
		want authorizer.Decision
	}{
		{
			name: "anonymous user is denied",
			user: &user.DefaultInfo{Name: "system:anonymous", Groups: []string{"system:unauthenticated"}},
			want: authorizer.DecisionDeny,
		},
		{
			name: "system:anonymous without its group is denied",
			user: &user.DefaultInfo{Name: "system:anonymous"},
			want: authorizer.DecisionDeny,
		},
		{
			name: "any member of system:unauthenticated is denied",
			user: &user.DefaultInfo{Name: "guest", Groups: []string{"system:unauthenticated"}},
			want: authorizer.DecisionDeny,
		},
		{
			name: "missing user is denied",
			user: nil,
			want: authorizer.DecisionDeny,
		},
		{
			name: "authenticated user is left to the next authorizer",
			user: &user.DefaultInfo{Name: "alice", Groups: []string{"system:authenticated"}},
			want: authorizer.DecisionNoOpinion,
		},
		{
			name: "authenticated user without groups is left to the next authorizer",
			user: &user.DefaultInfo{Name: "bob"},
			want: authorizer.DecisionNoOpinion,
		},
	}
	requests := []authorizer.AttributesRecord{
		{Verb: "create", Namespace: "default", Resource: "configmaps", ResourceRequest: true},
		{Verb: "list", Resource: "namespaces", ResourceRequest: true},
		{Verb: "get", Path: "/healthz"}, // the guard does not know paths: the path authorizer runs first
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, r := range requests {
				r.User = tt.user
				d, reason, err := New().Authorize(context.Background(), r)
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				if d != tt.want {
					t.Errorf("%s %s%s: %v, want %v", r.Verb, r.Resource, r.Path, d, tt.want)
				}
				wantReason := ""
				if tt.want == authorizer.DecisionDeny {
					wantReason = Reason
				}
				if reason != wantReason {
					t.Errorf("reason = %q, want %q", reason, wantReason)
				}
			}
		})
	}
}

func TestPublicPathsCannotBeChangedByCallers(t *testing.T) {
	PublicPaths()[0] = "/"
	if got := PublicPaths()[0]; got != "/healthz" {
		t.Errorf("PublicPaths()[0] = %q after a caller modified its copy", got)
	}
}

package privileged

import (
	"context"
	"errors"
	"testing"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

func TestPrivilegedGroups(t *testing.T) {
	tests := []struct {
		name string
		user user.Info
		want authorizer.Decision
	}{
		{
			name: "system:masters member is allowed",
			user: &user.DefaultInfo{Name: "kubernetes-admin", Groups: []string{"system:masters", "system:authenticated"}},
			want: authorizer.DecisionAllow,
		},
		{
			name: "membership is by group, not by name",
			user: &user.DefaultInfo{Name: "system:masters", Groups: []string{"system:authenticated"}},
			want: authorizer.DecisionNoOpinion,
		},
		{
			name: "group names are case-sensitive",
			user: &user.DefaultInfo{Name: "eve", Groups: []string{"System:Masters"}},
			want: authorizer.DecisionNoOpinion,
		},
		{
			name: "anonymous has no opinion",
			user: &user.DefaultInfo{Name: "system:anonymous", Groups: []string{"system:unauthenticated"}},
			want: authorizer.DecisionNoOpinion,
		},
	}
	a := New(user.SystemPrivilegedGrp)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			attrs := authorizer.AttributesRecord{User: tt.user, Verb: "delete", Resource: "namespaces", ResourceRequest: true}
			d, reason, err := a.Authorize(context.Background(), attrs)
			if d != tt.want || reason != "" || err != nil {
				t.Errorf("got (%v, %q, %v), want (%v, \"\", nil)", d, reason, err, tt.want)
			}
		})
	}
}

func TestSeveralGroups(t *testing.T) {
	a := New("admins", "operators")
	attrs := authorizer.AttributesRecord{User: &user.DefaultInfo{Name: "o", Groups: []string{"operators"}}}
	if d, _, _ := a.Authorize(context.Background(), attrs); d != authorizer.DecisionAllow {
		t.Errorf("member of the second group: %v, want Allow", d)
	}
}

func TestMissingUserIsAnError(t *testing.T) {
	d, _, err := New(user.SystemPrivilegedGrp).Authorize(context.Background(), authorizer.AttributesRecord{Path: "/healthz"})
	if d != authorizer.DecisionNoOpinion || !errors.Is(err, errNoUser) {
		t.Errorf("got (%v, %v), want (NoOpinion, %v)", d, err, errNoUser)
	}
}

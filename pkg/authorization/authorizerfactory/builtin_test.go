package authorizerfactory

import (
	"context"
	"testing"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

var requests = []authorizer.AttributesRecord{
	{User: &user.DefaultInfo{Name: "kubernetes-admin", Groups: []string{"system:masters"}}, Verb: "delete", Resource: "namespaces", Name: "kube-system", ResourceRequest: true},
	{User: &user.DefaultInfo{Name: "system:anonymous"}, Verb: "get", Path: "/healthz"},
	{Verb: "create", Namespace: "default", Resource: "pods", ResourceRequest: true}, // no user at all
}

func TestAlwaysAllow(t *testing.T) {
	for _, a := range requests {
		d, reason, err := NewAlwaysAllowAuthorizer().Authorize(context.Background(), a)
		if d != authorizer.DecisionAllow || reason != "" || err != nil {
			t.Errorf("Authorize(%+v) = (%v, %q, %v), want (Allow, \"\", nil)", a, d, reason, err)
		}
	}
}

func TestAlwaysDeny(t *testing.T) {
	for _, a := range requests {
		d, reason, err := NewAlwaysDenyAuthorizer().Authorize(context.Background(), a)
		if d != authorizer.DecisionNoOpinion || reason != "Everything is forbidden." || err != nil {
			t.Errorf("Authorize(%+v) = (%v, %q, %v), want (NoOpinion, \"Everything is forbidden.\", nil)", a, d, reason, err)
		}
	}
}

package certificates

import (
	"context"
	"errors"
	"testing"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

// allowNames allows the verbs on signers it names, and records what it
// was asked.
type allowNames struct {
	allowed map[string]bool
	asked   []authorizer.Attributes
	err     error
}

func (a *allowNames) Authorize(_ context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	a.asked = append(a.asked, attrs)
	if a.err != nil {
		return authorizer.DecisionAllow, "", a.err
	}
	if a.allowed[attrs.GetVerb()+" "+attrs.GetName()] {
		return authorizer.DecisionAllow, "", nil
	}
	return authorizer.DecisionNoOpinion, "", nil
}

// A signer is allowed by its name, else by its domain's wildcard; the
// question is about the synthetic resource signers of
// certificates.k8s.io, any version; an authorizer's error refuses.
func TestAuthorizedForSigner(t *testing.T) {
	u := &user.DefaultInfo{Name: "alice"}
	tests := []struct {
		name      string
		allowed   map[string]bool
		err       error
		signer    string
		want      bool
		wantNames []string
	}{
		{name: "by name", allowed: map[string]bool{"approve example.com/a": true}, signer: "example.com/a", want: true, wantNames: []string{"example.com/a"}},
		{name: "by wildcard", allowed: map[string]bool{"approve example.com/*": true}, signer: "example.com/a", want: true, wantNames: []string{"example.com/a", "example.com/*"}},
		{name: "another verb", allowed: map[string]bool{"sign example.com/a": true}, signer: "example.com/a", want: false, wantNames: []string{"example.com/a", "example.com/*"}},
		{name: "another domain", allowed: map[string]bool{"approve example.com/*": true}, signer: "other.com/a", want: false, wantNames: []string{"other.com/a", "other.com/*"}},
		{name: "no slash", allowed: map[string]bool{"approve plain/*": true}, signer: "plain", want: true, wantNames: []string{"plain", "plain/*"}},
		{name: "error", err: errors.New("boom"), signer: "example.com/a", want: false, wantNames: []string{"example.com/a", "example.com/*"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			authz := &allowNames{allowed: tc.allowed, err: tc.err}
			if got := AuthorizedForSigner(context.Background(), authz, u, "approve", tc.signer); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			if len(authz.asked) != len(tc.wantNames) {
				t.Fatalf("asked %d questions, want %d", len(authz.asked), len(tc.wantNames))
			}
			for i, a := range authz.asked {
				if a.GetName() != tc.wantNames[i] || a.GetResource() != "signers" || a.GetAPIGroup() != "certificates.k8s.io" ||
					a.GetAPIVersion() != "*" || !a.IsResourceRequest() || a.GetUser() != u || a.GetVerb() != "approve" {
					t.Errorf("question %d: %+v", i, a)
				}
			}
		})
	}
}

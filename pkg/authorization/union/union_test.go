package union

import (
	"context"
	"errors"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

// fake answers with a fixed decision and counts its calls.
type fake struct {
	decision authorizer.Decision
	reason   string
	err      error
	calls    int
}

func (f *fake) Authorize(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
	f.calls++
	return f.decision, f.reason, f.err
}

var (
	errWebhook = errors.New("webhook unreachable")
	errCache   = errors.New("cache not synced")
)

func allow(reason string) *fake { return &fake{decision: authorizer.DecisionAllow, reason: reason} }
func deny(reason string) *fake  { return &fake{decision: authorizer.DecisionDeny, reason: reason} }
func noOpinion(reason string, err error) *fake {
	return &fake{decision: authorizer.DecisionNoOpinion, reason: reason, err: err}
}

func TestUnion(t *testing.T) {
	tests := []struct {
		name         string
		chain        []*fake
		wantDecision authorizer.Decision
		wantReason   string
		wantErrs     []error
		wantCalls    []int
	}{
		{
			name:         "empty chain has no opinion",
			wantDecision: authorizer.DecisionNoOpinion,
			wantCalls:    []int{},
		},
		{
			name:         "first allow wins",
			chain:        []*fake{noOpinion("not mine", nil), allow("bound by role"), deny("too late")},
			wantDecision: authorizer.DecisionAllow,
			wantReason:   "bound by role",
			wantCalls:    []int{1, 1, 0},
		},
		{
			name:         "first deny wins",
			chain:        []*fake{deny("anonymous"), allow("")},
			wantDecision: authorizer.DecisionDeny,
			wantReason:   "anonymous",
			wantCalls:    []int{1, 0},
		},
		{
			name:         "an error does not stop the chain",
			chain:        []*fake{noOpinion("", errWebhook), allow("")},
			wantDecision: authorizer.DecisionAllow,
			wantCalls:    []int{1, 1},
		},
		{
			name:         "a deciding authorizer's own error is returned with its decision",
			chain:        []*fake{noOpinion("", errCache), &fake{decision: authorizer.DecisionDeny, reason: "r", err: errWebhook}},
			wantDecision: authorizer.DecisionDeny,
			wantReason:   "r",
			wantErrs:     []error{errWebhook},
			wantCalls:    []int{1, 1},
		},
		{
			name:         "nobody decides: all reasons and errors are returned",
			chain:        []*fake{noOpinion("Everything is forbidden.", nil), noOpinion("", errWebhook), noOpinion("no RBAC binding", errCache)},
			wantDecision: authorizer.DecisionNoOpinion,
			wantReason:   "Everything is forbidden.\nno RBAC binding",
			wantErrs:     []error{errWebhook, errCache},
			wantCalls:    []int{1, 1, 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var chain []authorizer.Authorizer
			for _, f := range tt.chain {
				chain = append(chain, f)
			}
			decision, reason, err := New(chain...).Authorize(context.Background(), authorizer.AttributesRecord{})

			if decision != tt.wantDecision || reason != tt.wantReason {
				t.Errorf("got (%v, %q), want (%v, %q)", decision, reason, tt.wantDecision, tt.wantReason)
			}
			if len(tt.wantErrs) == 0 && err != nil {
				t.Errorf("unexpected error %v", err)
			}
			for _, want := range tt.wantErrs {
				if !errors.Is(err, want) {
					t.Errorf("error %v does not include %v", err, want)
				}
			}
			for i, f := range tt.chain {
				if f.calls != tt.wantCalls[i] {
					t.Errorf("authorizer %d called %d times, want %d", i, f.calls, tt.wantCalls[i])
				}
			}
		})
	}
}

func TestNamedPrefixesOnlyUndecidedReasons(t *testing.T) {
	chain := New(
		Named{Name: "default", Authorizer: noOpinion("no opinion here", nil)},
		Named{Name: "abac", Authorizer: noOpinion("No policy matched.", nil)},
	)
	_, reason, _ := chain.Authorize(context.Background(), nil)
	// kube-apiserver 1.37.1's words for the same chain.
	if want := "default: no opinion here\nabac: No policy matched."; reason != want {
		t.Errorf("reason %q, want %q", reason, want)
	}
	_, reason, _ = New(Named{Name: "default", Authorizer: deny("webhook says no")}).Authorize(context.Background(), nil)
	if reason != "webhook says no" {
		t.Errorf("a decisive reason was named: %q", reason)
	}
}

type rules struct {
	rr         []authorizationv1.ResourceRule
	incomplete bool
	err        error
}

func (r rules) RulesFor(context.Context, user.Info, string) ([]authorizationv1.ResourceRule, []authorizationv1.NonResourceRule, bool, error) {
	return r.rr, nil, r.incomplete, r.err
}

func TestRuleResolversAddUp(t *testing.T) {
	all := authorizationv1.ResourceRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}
	read := authorizationv1.ResourceRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}
	webhook := errors.New("webhook authorizer does not support user rule resolution")
	rr, _, incomplete, err := RuleResolvers{
		rules{rr: []authorizationv1.ResourceRule{read}},
		rules{incomplete: true, err: webhook},
		rules{incomplete: true, err: webhook},
		rules{rr: []authorizationv1.ResourceRule{all}},
	}.RulesFor(context.Background(), nil, "ns")
	if len(rr) != 2 || rr[0].Resources[0] != "pods" || rr[1].Resources[0] != "*" || !incomplete {
		t.Errorf("rules %v incomplete %v", rr, incomplete)
	}
	// Two webhooks, one message: kube-apiserver 1.37.1 reports it once.
	if err == nil || err.Error() != webhook.Error() {
		t.Errorf("error %v", err)
	}
}

package union

import (
	"context"
	"errors"
	"testing"

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

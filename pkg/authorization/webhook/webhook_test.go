package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

// fakeWebhook answers every review with status (or code, if not 200) and
// keeps what it was sent.
type fakeWebhook struct {
	mu     sync.Mutex
	bodies []map[string]any
	status map[string]any
	code   int
}

func (f *fakeWebhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	json.NewDecoder(r.Body).Decode(&body)
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
	code, status := f.code, f.status
	f.mu.Unlock()
	if code != 0 {
		http.Error(w, "down", code)
		return
	}
	json.NewEncoder(w).Encode(map[string]any{"apiVersion": body["apiVersion"], "kind": "SubjectAccessReview", "status": status})
}

func (f *fakeWebhook) calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.bodies)
}

func start(t *testing.T, f *fakeWebhook, mutate func(*Config)) *Authorizer {
	t.Helper()
	srv := httptest.NewTLSServer(f)
	t.Cleanup(srv.Close)
	cfg := Config{
		REST:            &rest.Config{Host: srv.URL + "/review", TLSClientConfig: rest.TLSClientConfig{Insecure: true}},
		Version:         "v1",
		AuthorizedTTL:   time.Minute,
		UnauthorizedTTL: time.Minute,
		Timeout:         5 * time.Second,
		DecisionOnError: authorizer.DecisionNoOpinion,
		RetryBackoff:    wait.Backoff{Duration: time.Millisecond, Steps: 3},
	}
	if mutate != nil {
		mutate(&cfg)
	}
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

var alice = &user.DefaultInfo{Name: "alice", UID: "u1", Groups: []string{"devs"}, Extra: map[string][]string{"scopes": {"a"}}}

func listPods(t *testing.T) authorizer.AttributesRecord {
	fs, err := fields.ParseSelector("spec.nodeName=n1,status.phase!=Running")
	if err != nil {
		t.Fatal(err)
	}
	ls, err := labels.Parse("app=web,!gone,n>1")
	if err != nil {
		t.Fatal(err)
	}
	lreqs, _ := ls.Requirements()
	return authorizer.AttributesRecord{User: alice, Verb: "list", Namespace: "ns", APIVersion: "v1", Resource: "pods", ResourceRequest: true,
		FieldSelectorRequirements: fs.Requirements(), LabelSelectorRequirements: lreqs}
}

func TestTheReviewCarriesTheRequestAndItsSelectors(t *testing.T) {
	r := Review(listPods(t))
	want := `{"kind":"SubjectAccessReview","apiVersion":"authorization.k8s.io/v1","metadata":{},"spec":{"resourceAttributes":{"namespace":"ns","verb":"list","version":"v1","resource":"pods",` +
		`"fieldSelector":{"requirements":[{"key":"spec.nodeName","operator":"In","values":["n1"]},{"key":"status.phase","operator":"NotIn","values":["Running"]}]},` +
		`"labelSelector":{"requirements":[{"key":"app","operator":"In","values":["web"]},{"key":"gone","operator":"DoesNotExist"}]}},` +
		`"user":"alice","groups":["devs"],"extra":{"scopes":["a"]},"uid":"u1"},"status":{"allowed":false}}`
	got, _ := json.Marshal(r)
	if string(got) != want {
		t.Errorf("review\n got %s\nwant %s", got, want)
	}
}

func TestDecisions(t *testing.T) {
	for _, tc := range []struct {
		status   map[string]any
		want     authorizer.Decision
		reason   string
		wantsErr bool
	}{
		{map[string]any{"allowed": true, "reason": "ok"}, authorizer.DecisionAllow, "ok", false},
		{map[string]any{"allowed": false, "denied": true, "reason": "no"}, authorizer.DecisionDeny, "no", false},
		{map[string]any{"allowed": false, "reason": "dunno"}, authorizer.DecisionNoOpinion, "dunno", false},
		{map[string]any{"allowed": true, "denied": true}, authorizer.DecisionDeny, "", true},
	} {
		a := start(t, &fakeWebhook{status: tc.status}, nil)
		d, reason, err := a.Authorize(context.Background(), listPods(t))
		if d != tc.want || reason != tc.reason || (err != nil) != tc.wantsErr {
			t.Errorf("%v: got (%v, %q, %v)", tc.status, d, reason, err)
		}
	}
}

func TestAnswersAreCachedByQuestion(t *testing.T) {
	f := &fakeWebhook{status: map[string]any{"allowed": true}}
	a := start(t, f, nil)
	for i := 0; i < 3; i++ {
		a.Authorize(context.Background(), listPods(t))
	}
	other := listPods(t)
	other.Namespace = "other"
	a.Authorize(context.Background(), other)
	if f.calls() != 2 {
		t.Errorf("%d calls for two distinct questions, want 2", f.calls())
	}
	noCache := start(t, f, func(c *Config) { c.AuthorizedTTL = 0 })
	noCache.Authorize(context.Background(), listPods(t))
	noCache.Authorize(context.Background(), listPods(t))
	if f.calls() != 4 {
		t.Errorf("with a zero TTL the answer was cached: %d calls, want 4", f.calls())
	}
}

func TestFailuresAreRetriedThenDecidedByPolicy(t *testing.T) {
	for _, policy := range []authorizer.Decision{authorizer.DecisionNoOpinion, authorizer.DecisionDeny} {
		f := &fakeWebhook{code: http.StatusInternalServerError}
		a := start(t, f, func(c *Config) { c.DecisionOnError = policy })
		d, _, err := a.Authorize(context.Background(), listPods(t))
		if d != policy || err == nil {
			t.Errorf("policy %v: got (%v, %v)", policy, d, err)
		}
		if !strings.Contains(err.Error(), `an error on the server ("down") has prevented the request from succeeding`) {
			t.Errorf("error %q is not client-go's", err)
		}
		if f.calls() != 3 {
			t.Errorf("%d attempts, want the backoff's 3", f.calls())
		}
		// A failure is not cached: the next question is asked again.
		a.Authorize(context.Background(), listPods(t))
		if f.calls() != 6 {
			t.Errorf("a failure was cached: %d calls", f.calls())
		}
	}
	// A 4xx is the webhook's final word: not retried.
	f := &fakeWebhook{code: http.StatusBadRequest}
	start(t, f, nil).Authorize(context.Background(), listPods(t))
	if f.calls() != 1 {
		t.Errorf("a 400 was retried: %d calls", f.calls())
	}
}

type matcher struct {
	ok  bool
	err error
}

func (m matcher) Match(context.Context, *authorizationv1.SubjectAccessReview) (bool, error) {
	return m.ok, m.err
}

func TestMatchConditionsChooseWhetherToAsk(t *testing.T) {
	f := &fakeWebhook{status: map[string]any{"allowed": true}}
	if d, _, _ := start(t, f, func(c *Config) { c.Matcher = matcher{ok: false} }).Authorize(context.Background(), listPods(t)); d != authorizer.DecisionNoOpinion || f.calls() != 0 {
		t.Errorf("a false condition: %v after %d calls, want no opinion and no call", d, f.calls())
	}
	d, _, err := start(t, f, func(c *Config) {
		c.Matcher = matcher{err: errors.New("boom")}
		c.DecisionOnError = authorizer.DecisionDeny
	}).Authorize(context.Background(), listPods(t))
	if d != authorizer.DecisionDeny || err == nil || f.calls() != 0 {
		t.Errorf("a failing condition with failurePolicy Deny: (%v, %v) after %d calls", d, err, f.calls())
	}
}

func TestV1beta1IsSentAsV1beta1(t *testing.T) {
	f := &fakeWebhook{status: map[string]any{"allowed": true}}
	a := start(t, f, func(c *Config) { c.Version = "v1beta1" })
	if d, _, err := a.Authorize(context.Background(), listPods(t)); d != authorizer.DecisionAllow || err != nil {
		t.Fatal(d, err)
	}
	b := f.bodies[0]
	spec := b["spec"].(map[string]any)
	// v1beta1 calls the groups "group".
	if b["apiVersion"] != "authorization.k8s.io/v1beta1" || spec["group"] == nil || spec["groups"] != nil {
		t.Errorf("body %v", b)
	}
}

func TestUnknownVersionIsRefused(t *testing.T) {
	_, err := New(Config{REST: &rest.Config{Host: "https://x"}, Version: "v2"})
	if err == nil || err.Error() != `unsupported webhook authorizer version "v2", supported versions are "v1", "v1beta1"` {
		t.Errorf("error %v", err)
	}
}

// recorder is an Observer that keeps what it is told.
type recorder struct {
	mu                             sync.Mutex
	evaluations, failedOpen, match []string
}

func (r *recorder) WebhookEvaluated(name, result string, _ time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.evaluations = append(r.evaluations, name+"/"+result)
}

func (r *recorder) WebhookFailedOpen(name, result string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failedOpen = append(r.failedOpen, name+"/"+result)
}

func (r *recorder) MatchConditionsEvaluated(name string, excluded, failed bool, _ time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case failed:
		r.match = append(r.match, name+"/failed")
	case excluded:
		r.match = append(r.match, name+"/excluded")
	default:
		r.match = append(r.match, name+"/matched")
	}
}

// Every round trip is observed, retries included; a failure the webhook
// turns into NoOpinion is a fail-open; a failure with failurePolicy Deny
// is not.
func TestRoundTripsAreObserved(t *testing.T) {
	rec := &recorder{}
	a := start(t, &fakeWebhook{status: map[string]any{"allowed": true}}, func(c *Config) { c.Name = "ok"; c.Observer = rec })
	a.Authorize(context.Background(), listPods(t))
	a.Authorize(context.Background(), listPods(t)) // cached: no round trip

	down := start(t, &fakeWebhook{code: http.StatusInternalServerError}, func(c *Config) { c.Name = "down"; c.Observer = rec })
	down.Authorize(context.Background(), listPods(t))
	deny := start(t, &fakeWebhook{code: http.StatusBadRequest}, func(c *Config) {
		c.Name = "strict"
		c.Observer = rec
		c.DecisionOnError = authorizer.DecisionDeny
	})
	deny.Authorize(context.Background(), listPods(t))

	want := []string{"ok/success", "down/error", "down/error", "down/error", "strict/error"}
	if strings.Join(rec.evaluations, " ") != strings.Join(want, " ") {
		t.Errorf("evaluations %v, want %v", rec.evaluations, want)
	}
	if strings.Join(rec.failedOpen, " ") != "down/error" {
		t.Errorf("fail-opens %v, want [down/error]", rec.failedOpen)
	}
}

// matchFunc is a Matcher from a function.
type matchFunc func() (bool, error)

func (f matchFunc) Match(context.Context, *authorizationv1.SubjectAccessReview) (bool, error) {
	return f()
}

func TestMatchConditionsAreObserved(t *testing.T) {
	rec := &recorder{}
	for _, m := range []matchFunc{
		func() (bool, error) { return true, nil },
		func() (bool, error) { return false, nil },
		func() (bool, error) { return false, errors.New("no such key") },
	} {
		a := start(t, &fakeWebhook{status: map[string]any{"allowed": true}}, func(c *Config) { c.Name = "w"; c.Observer = rec; c.Matcher = m })
		a.Authorize(context.Background(), listPods(t))
	}
	if got := strings.Join(rec.match, " "); got != "w/matched w/excluded w/failed" {
		t.Errorf("match conditions observed: %s", got)
	}
}

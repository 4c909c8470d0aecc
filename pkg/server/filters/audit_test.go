package filters

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kapi-dev/kapi/pkg/audit"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/endpoints/auditcontext"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/metrics"
)

// recorder is a backend that keeps the events it gets, and refuses them
// when refuse is set (a blocking-strict backend that failed).
type recorder struct {
	mu     sync.Mutex
	events []*audit.Event
	refuse bool
}

func (r *recorder) ProcessEvents(evs ...*audit.Event) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.refuse {
		return false
	}
	r.events = append(r.events, evs...)
	return true
}
func (r *recorder) Run(context.Context) error { return nil }
func (r *recorder) Shutdown()                 {}
func (r *recorder) String() string            { return "recorder" }

func (r *recorder) stages() []audit.Stage {
	r.mu.Lock()
	defer r.mu.Unlock()
	var s []audit.Stage
	for _, ev := range r.events {
		s = append(s, ev.Stage)
	}
	return s
}

func (r *recorder) last() *audit.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.events[len(r.events)-1]
}

// audited serves h behind WithAuditInit and WithAudit, at level.
func audited(h http.Handler, rec *recorder, level audit.Level, omit ...audit.Stage) http.Handler {
	return WithAuditInit(WithAudit(h, rec, audit.FixedEvaluator(level, omit...), nil, request.IsLongRunning, nil))
}

func TestAuditIDHeaderOnEveryResponse(t *testing.T) {
	rec := &recorder{}
	h := audited(http.NotFoundHandler(), rec, audit.LevelNone)

	w := httptest.NewRecorder()
	h.ServeHTTP(w, asUser(newRequest(t, "GET", "/api/v1/pods", nil), "bob"))
	id := w.Header().Get("Audit-Id")
	if len(id) != 36 {
		t.Errorf("Audit-Id = %q, want a new UUID", id)
	}
	if len(rec.events) != 0 {
		t.Errorf("level None wrote %d events", len(rec.events))
	}

	w = httptest.NewRecorder()
	r := asUser(newRequest(t, "GET", "/api/v1/pods", nil), "bob")
	r.Header.Set("Audit-ID", "client-chosen")
	h.ServeHTTP(w, r)
	if got := w.Header().Get("Audit-Id"); got != "client-chosen" {
		t.Errorf("Audit-Id = %q, want the client's Audit-ID", got)
	}
}

func TestAuditIDHeaderOnUnauthenticatedRequests(t *testing.T) {
	rec := &recorder{}
	logger, _ := newTestLogger()
	h := Chain(ChainConfig{Authenticator: tokenAuthenticator, Authorizer: adminsOnly, RequestTimeout: longTimeout,
		Metrics: metrics.NewRegistry(), Logger: logger, AuditBackend: rec, AuditPolicy: audit.FixedEvaluator(audit.LevelMetadata)})(http.NotFoundHandler())
	w := httptest.NewRecorder()
	r := httptest.NewRequest("GET", "/api/v1/pods", nil)
	r.Header.Set("Authorization", "Bearer wrong")
	h.ServeHTTP(w, r)
	if w.Code != http.StatusUnauthorized || w.Header().Get("Audit-Id") == "" {
		t.Errorf("got %d with Audit-Id %q, want 401 with an Audit-Id", w.Code, w.Header().Get("Audit-Id"))
	}
	// As in kube-apiserver, a request that fails authentication is not
	// audited: audit comes after authentication.
	if len(rec.events) != 0 {
		t.Errorf("a 401 wrote %d events", len(rec.events))
	}
}

func TestAuditStages(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusCreated) })
	silent := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	for _, tc := range []struct {
		name    string
		handler http.Handler
		url     string
		omit    []audit.Stage
		want    []audit.Stage
		code    int32
	}{
		{"a request", ok, "/api/v1/namespaces/ns/pods", nil, []audit.Stage{audit.StageRequestReceived, audit.StageResponseComplete}, 201},
		{"omitted stage", ok, "/api/v1/namespaces/ns/pods", []audit.Stage{audit.StageRequestReceived}, []audit.Stage{audit.StageResponseComplete}, 201},
		{"a watch starts its response", ok, "/api/v1/namespaces/ns/pods?watch=1", nil, []audit.Stage{audit.StageRequestReceived, audit.StageResponseStarted, audit.StageResponseComplete}, 201},
		{"a watch that writes nothing", silent, "/api/v1/namespaces/ns/pods?watch=1", nil, []audit.Stage{audit.StageRequestReceived, audit.StageResponseStarted, audit.StageResponseComplete}, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{}
			h := audited(tc.handler, rec, audit.LevelMetadata, tc.omit...)
			h.ServeHTTP(httptest.NewRecorder(), asUser(newRequest(t, "GET", tc.url, nil), "bob", "devs"))
			if got := rec.stages(); !slices.Equal(got, tc.want) {
				t.Fatalf("stages = %v, want %v", got, tc.want)
			}
			ev := rec.last()
			if ev.ResponseStatus == nil || ev.ResponseStatus.Code != tc.code {
				t.Errorf("responseStatus = %+v, want code %d", ev.ResponseStatus, tc.code)
			}
			if ev.User.Username != "bob" || !slices.Equal(ev.User.Groups, []string{"devs"}) || ev.ObjectRef == nil || ev.ObjectRef.Resource != "pods" || ev.ObjectRef.Namespace != "ns" {
				t.Errorf("event = %+v", ev)
			}
			if ev.Kind != "Event" || ev.APIVersion != "audit.k8s.io/v1" || ev.Level != audit.LevelMetadata {
				t.Errorf("event type %s/%s level %s", ev.APIVersion, ev.Kind, ev.Level)
			}
		})
	}
}

func TestAuditPanicStage(t *testing.T) {
	rec := &recorder{}
	h := audited(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }), rec, audit.LevelMetadata)
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the panic did not go on")
			}
		}()
		h.ServeHTTP(httptest.NewRecorder(), asUser(newRequest(t, "GET", "/api/v1/pods", nil), "bob"))
	}()
	if got, want := rec.stages(), []audit.Stage{audit.StageRequestReceived, audit.StagePanic}; !slices.Equal(got, want) {
		t.Fatalf("stages = %v, want %v", got, want)
	}
	st := rec.last().ResponseStatus
	if st == nil || st.Code != 500 || st.Reason != "InternalError" || st.Status != "Failure" || st.Message != "APIServer panic'd: boom" {
		t.Errorf("responseStatus = %+v", st)
	}
}

func TestAuditBlockingStrictFailureRejectsTheRequest(t *testing.T) {
	rec := &recorder{refuse: true}
	called := false
	h := audited(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { called = true }), rec, audit.LevelMetadata)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, asUser(newRequest(t, "GET", "/api/v1/pods", nil), "bob"))
	if called || w.Code != http.StatusInternalServerError || !strings.Contains(w.Body.String(), "failed to store audit event") {
		t.Errorf("handler called %v, got %d %s; want 500 without the handler", called, w.Code, w.Body)
	}
}

func TestAuditRecordsWhatTheLayersReport(t *testing.T) {
	rec := &recorder{}
	h := audited(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auditcontext.LogImpersonatedUser(r.Context(), &user.DefaultInfo{Name: "system:serviceaccount:ns:sa", Groups: []string{"system:serviceaccounts"}})
		auditcontext.AddAnnotation(r.Context(), "example.com/plugin", "said so")
		auditcontext.AddAnnotation(r.Context(), "example.com/plugin", "first value wins")
		w.WriteHeader(http.StatusOK)
	}), rec, audit.LevelMetadata)
	h.ServeHTTP(httptest.NewRecorder(), asUser(newRequest(t, "GET", "/api/v1/pods", nil), "bob"))
	ev := rec.last()
	if ev.ImpersonatedUser == nil || ev.ImpersonatedUser.Username != "system:serviceaccount:ns:sa" || ev.User.Username != "bob" {
		t.Errorf("user %+v, impersonated %+v", ev.User, ev.ImpersonatedUser)
	}
	if got := ev.Annotations["example.com/plugin"]; got != "said so" {
		t.Errorf("annotation = %q", got)
	}
	if first := rec.events[0]; first.Annotations != nil || first.ImpersonatedUser != nil {
		t.Errorf("RequestReceived carries what was learned later: %+v", first)
	}
}

func TestAuditAnnotatesTheAuthorizationDecision(t *testing.T) {
	for _, tc := range []struct {
		token, decision string
		code            int32
	}{{"admin-token", "allow", 404}, {"alice-token", "forbid", 403}} {
		rec := &recorder{}
		logger, _ := newTestLogger()
		h := Chain(ChainConfig{Authenticator: tokenAuthenticator, Authorizer: adminsOnly, RequestTimeout: longTimeout,
			Metrics: metrics.NewRegistry(), Logger: logger, AuditBackend: rec, AuditPolicy: audit.FixedEvaluator(audit.LevelMetadata)})(http.NotFoundHandler())
		r := httptest.NewRequest("GET", "/api/v1/namespaces/ns/secrets/s", nil)
		r.Header.Set("Authorization", "Bearer "+tc.token)
		h.ServeHTTP(httptest.NewRecorder(), r)
		ev := rec.last()
		if ev.Annotations["authorization.k8s.io/decision"] != tc.decision || ev.ResponseStatus.Code != tc.code {
			t.Errorf("%s: annotations %v, status %+v", tc.token, ev.Annotations, ev.ResponseStatus)
		}
		if _, ok := ev.Annotations["authorization.k8s.io/reason"]; !ok {
			t.Errorf("%s: no reason annotation (kube-apiserver writes it, empty or not)", tc.token)
		}
		if tc.code == 403 && (ev.ResponseStatus.Reason != "Forbidden" || !strings.Contains(ev.ResponseStatus.Message, `User "alice" cannot get resource "secrets"`)) {
			t.Errorf("403 status = %+v", ev.ResponseStatus)
		}
	}
}

// The level of every request is counted, None included, and a request
// whose first event the backend refused is counted as rejected.
func TestAuditLevelsAndRejectionsAreCounted(t *testing.T) {
	m := audit.NewMetrics()
	serve := func(rec *recorder, level audit.Level) {
		h := WithAuditInit(WithAudit(okHandler, rec, audit.FixedEvaluator(level), m, request.IsLongRunning, nil))
		h.ServeHTTP(httptest.NewRecorder(), asUser(newRequest(t, "GET", "/api/v1/pods", nil), "bob"))
	}
	serve(&recorder{}, audit.LevelNone)
	serve(&recorder{}, audit.LevelMetadata)
	serve(&recorder{}, audit.LevelMetadata)
	serve(&recorder{refuse: true}, audit.LevelRequest)

	reg := prometheus.NewRegistry()
	reg.MustRegister(m)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, mf := range families {
		for _, s := range mf.GetMetric() {
			key := mf.GetName()
			for _, l := range s.GetLabel() {
				key += "/" + l.GetValue()
			}
			got[key] = s.GetCounter().GetValue()
		}
	}
	for key, want := range map[string]float64{
		"apiserver_audit_level_total/None":        1,
		"apiserver_audit_level_total/Metadata":    2,
		"apiserver_audit_level_total/Request":     1,
		"apiserver_audit_requests_rejected_total": 1,
	} {
		if got[key] != want {
			t.Errorf("%s = %v, want %v", key, got[key], want)
		}
	}
}

package filters

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/metrics"
)

func TestMetricsCountsRequests(t *testing.T) {
	tests := []struct {
		name        string
		method, url string
		handler     http.HandlerFunc
		want        map[string]string // labels of the apiserver_request_total series
	}{
		{
			name: "list", method: "GET", url: "/api/v1/namespaces/ns/pods",
			handler: func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, `{"items":[]}`) },
			want: map[string]string{
				"verb": "LIST", "dry_run": "", "group": "", "version": "v1", "resource": "pods", "subresource": "",
				"scope": "namespace", "component": "apiserver", "code": "200",
			},
		},
		{
			name: "dry-run create", method: "POST", url: "/apis/apps/v1/namespaces/ns/deployments?dryRun=All",
			handler: func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusCreated) },
			want: map[string]string{
				"verb": "POST", "dry_run": "All", "group": "apps", "version": "v1", "resource": "deployments",
				"scope": "resource", "code": "201",
			},
		},
		{
			name: "subresource error", method: "PUT", url: "/api/v1/namespaces/ns/pods/p/status",
			handler: func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusConflict) },
			want:    map[string]string{"verb": "PUT", "resource": "pods", "subresource": "status", "scope": "resource", "code": "409"},
		},
		{
			name: "a handler that writes nothing answered 200", method: "DELETE", url: "/api/v1/namespaces/ns/pods/p",
			handler: func(w http.ResponseWriter, r *http.Request) {},
			want:    map[string]string{"verb": "DELETE", "resource": "pods", "code": "200"},
		},
		{
			name: "served non-resource path", method: "GET", url: "/openapi/v2",
			handler: func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "{}") },
			want: map[string]string{
				"verb": "GET", "group": "", "version": "", "resource": "", "subresource": "/openapi/v2", "scope": "", "code": "200",
			},
		},
		{
			name: "unknown non-resource path", method: "GET", url: "/made/up/path",
			handler: http.NotFound,
			want:    map[string]string{"verb": "GET", "subresource": "", "scope": "", "code": "404"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reg := metrics.NewRegistry()
			WithMetrics(tc.handler, reg, request.IsLongRunning).ServeHTTP(httptest.NewRecorder(), newRequest(t, tc.method, tc.url, nil))

			if got := metricValue(t, reg, "apiserver_request_total", tc.want); got != 1 {
				t.Errorf("apiserver_request_total%v = %v, want 1", tc.want, got)
			}
			durationLabels := map[string]string{"verb": tc.want["verb"], "resource": tc.want["resource"]}
			if got := metricValue(t, reg, "apiserver_request_duration_seconds", durationLabels); got != 1 {
				t.Errorf("apiserver_request_duration_seconds%v observed %v times, want 1", durationLabels, got)
			}
		})
	}
}

func TestMetricsResponseSizes(t *testing.T) {
	reg := metrics.NewRegistry()
	body := strings.Repeat("x", 2500)
	WithMetrics(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, body)
	}), reg, request.IsLongRunning).ServeHTTP(httptest.NewRecorder(), newRequest(t, "GET", "/api/v1/namespaces/ns/configmaps/c", nil))

	families, err := reg.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range families {
		if mf.GetName() != "apiserver_response_sizes" {
			continue
		}
		h := mf.GetMetric()[0].GetHistogram()
		if h.GetSampleCount() != 1 || h.GetSampleSum() != 2500 {
			t.Errorf("sizes observed: %d, sum %v; want 1, 2500", h.GetSampleCount(), h.GetSampleSum())
		}
		return
	}
	t.Error("no apiserver_response_sizes")
}

// A panicking handler is counted as the 500 WithPanicRecovery sends.
func TestMetricsCountsPanicsAs500(t *testing.T) {
	reg := metrics.NewRegistry()
	logger, _ := newTestLogger()
	h := WithPanicRecovery(WithMetrics(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		panic("boom")
	}), reg, request.IsLongRunning), logger)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, newRequest(t, "GET", "/api/v1/pods", nil))

	if rec.Code != http.StatusInternalServerError {
		t.Fatalf("status %d, want 500", rec.Code)
	}
	if got := metricValue(t, reg, "apiserver_request_total", map[string]string{"verb": "LIST", "code": "500"}); got != 1 {
		t.Errorf("apiserver_request_total{code=500} = %v, want 1", got)
	}
}

// Long-running requests are counted while they run, and recorded under
// their own verb when they end.
func TestMetricsLongRunning(t *testing.T) {
	reg := metrics.NewRegistry()
	gauge := map[string]string{"verb": "WATCH", "resource": "pods", "scope": "cluster", "component": "apiserver"}
	h := WithMetrics(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if got := metricValue(t, reg, "apiserver_longrunning_requests", gauge); got != 1 {
			t.Errorf("during the watch apiserver_longrunning_requests = %v, want 1", got)
		}
	}), reg, request.IsLongRunning)
	h.ServeHTTP(httptest.NewRecorder(), newRequest(t, "GET", "/api/v1/pods?watch=true", nil))

	if got := metricValue(t, reg, "apiserver_longrunning_requests", gauge); got != 0 {
		t.Errorf("after the watch apiserver_longrunning_requests = %v, want 0", got)
	}
	if got := metricValue(t, reg, "apiserver_request_total", map[string]string{"verb": "WATCH", "code": "200"}); got != 1 {
		t.Errorf("apiserver_request_total{verb=WATCH} = %v, want 1", got)
	}
	if got := metricValue(t, reg, "apiserver_request_duration_seconds", map[string]string{"verb": "LIST"}); got != -1 {
		t.Error("the watch was recorded as a LIST")
	}
}

// Authentication and authorization are counted as kube-apiserver counts
// them: attempts by result, durations by result, and authenticated users
// by the category of their name.
func TestChainCountsAuthenticationAndAuthorization(t *testing.T) {
	reg := metrics.NewRegistry()
	h := documentedChain(okHandler, tokenAuthenticator, adminsOnly, reg)
	send := func(token string) {
		r := httptest.NewRequest("GET", "/api/v1/namespaces", nil)
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		h.ServeHTTP(httptest.NewRecorder(), r)
	}
	send("admin-token")
	send("admin-token")
	send("alice-token") // authenticated, then no authorizer allows
	send("bad-token")   // an invalid credential
	send("")            // anonymous

	for _, tc := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"authentication_attempts", map[string]string{"result": "success"}, 4},
		{"authentication_attempts", map[string]string{"result": "error"}, 1},
		{"authentication_duration_seconds", map[string]string{"result": "success"}, 4},
		{"authenticated_user_requests", map[string]string{"username": "admin"}, 2},
		{"authenticated_user_requests", map[string]string{"username": "other"}, 2},
		{"authorization_attempts_total", map[string]string{"result": "allowed"}, 2},
		{"authorization_attempts_total", map[string]string{"result": "no-opinion"}, 2},
		{"authorization_duration_seconds", map[string]string{"result": "no-opinion"}, 2},
	} {
		if got := metricValue(t, reg, tc.name, tc.labels); got != tc.want {
			t.Errorf("%s%v = %v, want %v", tc.name, tc.labels, got, tc.want)
		}
	}
}

// A request nobody recognises is a failure, not an error; an authorizer
// that fails without deciding is an error, one that denies a denial.
func TestAuthenticationAndAuthorizationResults(t *testing.T) {
	reg := metrics.NewRegistry()
	WithAuthentication(okHandler, noCredentials, nil, nil, reg, nil).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	if got := metricValue(t, reg, "authentication_attempts", map[string]string{"result": "failure"}); got != 1 {
		t.Errorf("failures counted: %v, want 1", got)
	}
	for _, tc := range []struct {
		a    authorizer.Authorizer
		want string
	}{
		{decide(authorizer.DecisionDeny, "", nil), "denied"},
		{decide(authorizer.DecisionNoOpinion, "", errors.New("webhook down")), "error"},
		{decide(authorizer.DecisionAllow, "", errors.New("one broken binding")), "allowed"},
	} {
		reg := metrics.NewRegistry()
		r := asUser(newRequest(t, "GET", "/api/v1/pods", nil), "bob")
		WithAuthorization(okHandler, tc.a, reg, nil).ServeHTTP(httptest.NewRecorder(), r)
		if got := metricValue(t, reg, "authorization_attempts_total", map[string]string{"result": tc.want}); got != 1 {
			t.Errorf("%s counted %v times, want 1", tc.want, got)
		}
	}
}

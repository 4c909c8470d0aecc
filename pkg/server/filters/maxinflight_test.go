package filters

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/metrics"
)

// blockingHandler holds every request until released, reporting each
// arrival on entered.
type blockingHandler struct {
	entered chan struct{}
	release chan struct{}
}

func newBlockingHandler() *blockingHandler {
	return &blockingHandler{entered: make(chan struct{}, 100), release: make(chan struct{})}
}

func (b *blockingHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.entered <- struct{}{}
	<-b.release
}

// occupy starts n requests that stay in the handler until it is released.
func occupy(t *testing.T, h http.Handler, b *blockingHandler, n int, method, url string) *sync.WaitGroup {
	t.Helper()
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		r := newRequest(t, method, url, nil)
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.ServeHTTP(httptest.NewRecorder(), r)
		}()
		<-b.entered
	}
	return &wg
}

func TestMaxInFlight(t *testing.T) {
	// The handler of the request under test, which must not block.
	serve := func(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		return rec
	}

	tests := []struct {
		name             string
		readOnly, mutate int
		// occupied are the requests holding slots.
		occupiedMethod, occupiedURL string
		occupied                    int
		// request is the one under test.
		request  func(t *testing.T) *http.Request
		wantCode int
	}{
		{
			name: "read-only limit reached", readOnly: 2, mutate: 1,
			occupiedMethod: "GET", occupiedURL: "/api/v1/pods", occupied: 2,
			request:  func(t *testing.T) *http.Request { return newRequest(t, "GET", "/api/v1/namespaces/ns/pods/p", nil) },
			wantCode: http.StatusTooManyRequests,
		},
		{
			name: "mutating requests have their own limit", readOnly: 2, mutate: 1,
			occupiedMethod: "GET", occupiedURL: "/api/v1/pods", occupied: 2,
			request:  func(t *testing.T) *http.Request { return newRequest(t, "POST", "/api/v1/namespaces/ns/pods", nil) },
			wantCode: http.StatusOK,
		},
		{
			name: "mutating limit reached", readOnly: 2, mutate: 1,
			occupiedMethod: "DELETE", occupiedURL: "/api/v1/namespaces/ns/pods", occupied: 1,
			request:  func(t *testing.T) *http.Request { return newRequest(t, "PATCH", "/api/v1/namespaces/ns/pods/p", nil) },
			wantCode: http.StatusTooManyRequests,
		},
		{
			name: "non-resource writes are mutating", readOnly: 2, mutate: 1,
			occupiedMethod: "PUT", occupiedURL: "/api/v1/namespaces/ns/pods/p", occupied: 1,
			request:  func(t *testing.T) *http.Request { return newRequest(t, "POST", "/foo", nil) },
			wantCode: http.StatusTooManyRequests,
		},
		{
			name: "a zero limit is no limit", readOnly: 0, mutate: 1,
			occupiedMethod: "GET", occupiedURL: "/api/v1/pods", occupied: 5,
			request:  func(t *testing.T) *http.Request { return newRequest(t, "GET", "/api/v1/pods", nil) },
			wantCode: http.StatusOK,
		},
		{
			name: "long-running requests are exempt", readOnly: 1, mutate: 1,
			occupiedMethod: "GET", occupiedURL: "/api/v1/pods", occupied: 1,
			request:  func(t *testing.T) *http.Request { return newRequest(t, "GET", "/api/v1/pods?watch=true", nil) },
			wantCode: http.StatusOK,
		},
		{
			name: "system:masters are served over the limit", readOnly: 1, mutate: 1,
			occupiedMethod: "GET", occupiedURL: "/api/v1/pods", occupied: 1,
			request: func(t *testing.T) *http.Request {
				return asUser(newRequest(t, "GET", "/api/v1/pods", nil), "admin", "system:masters", "system:authenticated")
			},
			wantCode: http.StatusOK,
		},
		{
			name: "other users are not", readOnly: 1, mutate: 1,
			occupiedMethod: "GET", occupiedURL: "/api/v1/pods", occupied: 1,
			request: func(t *testing.T) *http.Request {
				return asUser(newRequest(t, "GET", "/api/v1/pods", nil), "alice", "system:authenticated")
			},
			wantCode: http.StatusTooManyRequests,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			blocking := newBlockingHandler()
			// Requests under test go to okHandler, the occupying ones block.
			h := WithMaxInFlightLimit(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("X-Test") == "probe" {
					okHandler.ServeHTTP(w, r)
					return
				}
				blocking.ServeHTTP(w, r)
			}), tc.readOnly, tc.mutate, request.IsLongRunning, metrics.NewRegistry())

			wg := occupy(t, h, blocking, tc.occupied, tc.occupiedMethod, tc.occupiedURL)
			r := tc.request(t)
			r.Header.Set("X-Test", "probe")
			rec := serve(h, r)
			close(blocking.release)
			wg.Wait()

			if rec.Code != tc.wantCode {
				t.Errorf("status %d, want %d", rec.Code, tc.wantCode)
			}
		})
	}
}

func TestTooManyRequestsResponse(t *testing.T) {
	reg := metrics.NewRegistry()
	blocking := newBlockingHandler()
	h := WithMaxInFlightLimit(blocking, 1, 1, request.IsLongRunning, reg)
	wg := occupy(t, h, blocking, 1, "GET", "/api/v1/namespaces/ns/pods")

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, newRequest(t, "GET", "/api/v1/namespaces/ns/pods", nil))
	close(blocking.release)
	wg.Wait()

	if rec.Code != http.StatusTooManyRequests {
		t.Fatalf("status %d, want 429", rec.Code)
	}
	if got := rec.Header().Get("Retry-After"); got != "1" {
		t.Errorf("Retry-After %q, want 1", got)
	}
	want := metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Code: 429, Reason: metav1.StatusReasonTooManyRequests,
		Message: "Too many requests, please try again later.",
		Details: &metav1.StatusDetails{RetryAfterSeconds: 1},
	}
	if diff := cmp.Diff(want, decodeStatus(t, rec.Body.Bytes())); diff != "" {
		t.Errorf("Status (-want +got):\n%s", diff)
	}

	labels := map[string]string{"verb": "LIST", "resource": "pods", "scope": "namespace", "code": "429"}
	if got := metricValue(t, reg, "apiserver_request_total", labels); got != 1 {
		t.Errorf("apiserver_request_total{code=429} = %v, want 1", got)
	}
	if got := metricValue(t, reg, "apiserver_request_terminations_total", labels); got != 1 {
		t.Errorf("apiserver_request_terminations_total{code=429} = %v, want 1", got)
	}
}

// Slots are given back when requests end, panicking ones included.
func TestMaxInFlightReleasesSlots(t *testing.T) {
	h := WithMaxInFlightLimit(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("panic") != "" {
			panic("boom")
		}
	}), 1, 1, request.IsLongRunning, nil)

	for i := 0; i < 3; i++ {
		func() {
			defer func() { _ = recover() }()
			h.ServeHTTP(httptest.NewRecorder(), newRequest(t, "GET", "/api/v1/pods?panic=1", nil))
		}()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, newRequest(t, "GET", "/api/v1/pods", nil))
		if rec.Code != http.StatusOK {
			t.Fatalf("request %d: status %d, want 200", i, rec.Code)
		}
	}
}

func TestMaxInFlightWithoutLimits(t *testing.T) {
	blocking := newBlockingHandler()
	h := WithMaxInFlightLimit(blocking, 0, 0, request.IsLongRunning, nil)
	// Every request gets into the handler at once.
	reads := occupy(t, h, blocking, 10, "GET", "/api/v1/pods")
	writes := occupy(t, h, blocking, 10, "POST", "/api/v1/namespaces/ns/pods")
	close(blocking.release)
	reads.Wait()
	writes.Wait()
}

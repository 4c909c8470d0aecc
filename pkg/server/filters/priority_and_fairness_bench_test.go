package filters

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/kapi-dev/kapi/pkg/endpoints/request"
)

// BenchmarkAdmission compares what admitting a request costs with
// priority and fairness (an ordinary user, classified through the
// schemas to catch-all, one seat) and with the max-in-flight limits.
func BenchmarkAdmission(b *testing.B) {
	ok := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	r := newRequest(&testing.T{}, "GET", "/api/v1/namespaces/default/pods", nil)
	r = asUser(r, "alice", "system:authenticated")
	for _, c := range []struct {
		name    string
		handler http.Handler
	}{
		{"priority-and-fairness", WithPriorityAndFairness(ok, oneSeatControllerTB(b), nil, request.IsLongRunning, 0, nil)},
		{"max-in-flight", WithMaxInFlightLimit(ok, 400, 200, request.IsLongRunning, nil)},
	} {
		b.Run(c.name, func(b *testing.B) {
			w := httptest.NewRecorder()
			b.ReportAllocs()
			for b.Loop() {
				c.handler.ServeHTTP(w, r)
			}
		})
	}
}

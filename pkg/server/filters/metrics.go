package filters

import (
	"net/http"
	"time"

	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/metrics"
)

// WithMetrics records every request that reaches it in
// apiserver_request_total, apiserver_request_duration_seconds and (for
// GET and LIST) apiserver_response_sizes, and counts open long-running
// resource requests in apiserver_longrunning_requests. Labels are
// kube-apiserver's; see metrics.RequestLabelsFor.
//
// kube-apiserver counts requests where they reach their handler, so its
// counts leave out requests rejected by authentication and authorization.
// Put this filter after WithAuthorization to count the same requests:
// label values come from the URL, and counting rejected requests would
// let anyone create series at will. Max-in-flight's 429s are counted by
// that filter; timeouts are counted in
// apiserver_request_terminations_total by WithTimeout, while here the
// request is recorded with what its handler wrote, when it returns.
//
// A non-resource request is recorded with its path only if it succeeded:
// a path that failed may be one the server does not serve.
//
// Watches and other long-running requests are recorded when they end,
// with their whole duration, under their own verbs (WATCH, CONNECT), as
// kube-apiserver does: latency objectives select the short verbs, which
// long-running requests therefore do not distort.
//
// A nil m disables the filter.
func WithMetrics(handler http.Handler, m *metrics.Registry, longRunning request.LongRunningCheck) http.Handler {
	if m == nil {
		return handler
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info, ok := request.RequestInfoFrom(r.Context())
		if !ok {
			handler.ServeHTTP(w, r)
			return
		}
		start := time.Now()
		labels := metrics.RequestLabelsFor(r, info)
		if longRunning != nil && longRunning(info) && info.IsResourceRequest {
			defer m.TrackLongRunning(labels)()
		}

		d := &writerDelegate{ResponseWriter: w}
		returned := false
		// Deferred so that a panicking handler is counted too: with the
		// 500 that WithPanicRecovery will send if nothing was written.
		defer func() {
			code := d.statusOrOK()
			if !returned && !d.headerWritten() {
				code = http.StatusInternalServerError
			}
			if !info.IsResourceRequest && code >= http.StatusBadRequest {
				labels.Subresource = ""
			}
			m.ObserveRequest(labels, code, time.Since(start), d.written)
		}()
		handler.ServeHTTP(d, r)
		returned = true
	})
}

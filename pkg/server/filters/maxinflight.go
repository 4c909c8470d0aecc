package filters

import (
	"net/http"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/endpoints/responsewriters"
	"github.com/kapi-dev/kapi/pkg/metrics"
)

// tooManyRequestsMessage and retryAfterSeconds are kube-apiserver's.
const (
	tooManyRequestsMessage = "Too many requests, please try again later."
	retryAfterSeconds      = 1
)

// WithMaxInFlightLimit implements --max-requests-inflight and
// --max-mutating-requests-inflight: at most readOnlyLimit read-only
// requests (verbs get, list and watch) and mutatingLimit others execute
// at once. A limit of 0 means no limit. Requests over the limit get a 429
// TooManyRequests Status with "Retry-After: 1", which client-go honours
// by retrying.
//
// Long-running requests (watches, exec, logs...) are not counted: they
// hold no resources while idle and would otherwise soon use up the limit.
// Members of system:masters are served even over the limit, as in
// kube-apiserver: an administrator (and the server's own loopback
// client) must always get an answer. That needs the user, so the filter
// goes after WithAuthentication.
//
// m (which may be nil) gets apiserver_current_inflight_requests and,
// for each rejected request, apiserver_request_total and
// apiserver_request_terminations_total with code 429.
func WithMaxInFlightLimit(handler http.Handler, readOnlyLimit, mutatingLimit int, longRunning request.LongRunningCheck, m *metrics.Registry) http.Handler {
	readOnly := newLimiter(readOnlyLimit, metrics.ReadOnlyKind, m)
	mutating := newLimiter(mutatingLimit, metrics.MutatingKind, m)
	if readOnly == nil && mutating == nil {
		return handler
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info, ok := requestInfoOrFail(w, r)
		if !ok {
			return
		}
		if longRunning != nil && longRunning(info) {
			handler.ServeHTTP(w, r)
			return
		}
		l := readOnly
		if isMutating(info.Verb) {
			l = mutating
		}
		if l == nil {
			handler.ServeHTTP(w, r)
			return
		}
		if !l.acquire() {
			if isPrivileged(r) {
				handler.ServeHTTP(w, r)
				return
			}
			rejectTooManyRequests(w, r, info, m)
			return
		}
		defer l.release()
		handler.ServeHTTP(w, r)
	})
}

// isMutating is kube-apiserver's classification: everything but get,
// list and watch, including non-resource requests other than GET.
func isMutating(verb string) bool {
	switch verb {
	case "get", "list", "watch":
		return false
	}
	return true
}

func isPrivileged(r *http.Request) bool {
	u, ok := request.UserFrom(r.Context())
	return ok && slices.Contains(u.GetGroups(), user.SystemPrivilegedGrp)
}

func rejectTooManyRequests(w http.ResponseWriter, r *http.Request, info *request.RequestInfo, m *metrics.Registry) {
	if m != nil {
		labels := metrics.RequestLabelsFor(r, info)
		if !info.IsResourceRequest {
			// The path was not served: keep made-up paths out of the labels.
			labels.Subresource = ""
		}
		m.CountRequest(labels, http.StatusTooManyRequests)
		m.RecordTermination(labels, http.StatusTooManyRequests)
	}
	w.Header().Set("Retry-After", "1")
	responsewriters.WriteErrorStatus(w, r, apierrors.NewTooManyRequests(tooManyRequestsMessage, retryAfterSeconds))
}

// limiter is a counting semaphore for one kind of request.
type limiter struct {
	slots   chan struct{}
	kind    string
	metrics *metrics.Registry
}

// newLimiter returns nil for no limit.
func newLimiter(limit int, kind string, m *metrics.Registry) *limiter {
	if limit <= 0 {
		return nil
	}
	return &limiter{slots: make(chan struct{}, limit), kind: kind, metrics: m}
}

// acquire takes a slot if one is free.
func (l *limiter) acquire() bool {
	select {
	case l.slots <- struct{}{}:
		l.observe()
		return true
	default:
		return false
	}
}

func (l *limiter) release() {
	<-l.slots
	l.observe()
}

// observe reports the slots in use. Concurrent requests may change the
// count between the change and its report; the watermark tolerates that.
func (l *limiter) observe() {
	if l.metrics != nil {
		l.metrics.ObserveInflight(l.kind, len(l.slots))
	}
}

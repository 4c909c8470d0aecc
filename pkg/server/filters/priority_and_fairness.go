package filters

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"

	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/flowcontrol"
	"github.com/kapi-dev/kapi/pkg/flowcontrol/fairqueuing"
	fcrequest "github.com/kapi-dev/kapi/pkg/flowcontrol/request"
	"github.com/kapi-dev/kapi/pkg/metrics"
)

// maxQueueWait bounds the time any request waits in a queue.
const maxQueueWait = time.Minute

// WithPriorityAndFairness implements API priority and fairness
// (--enable-priority-and-fairness, which replaces WithMaxInFlightLimit):
// fc classifies each request by the FlowSchemas and admits it at its
// priority level, at once, after waiting in a queue, or not at all.
//
// Admitted and rejected requests alike get the UIDs of their FlowSchema
// and PriorityLevelConfiguration in the X-Kubernetes-PF-FlowSchema-UID
// and X-Kubernetes-PF-PriorityLevel-UID response headers (UIDs rather
// than names, as kube-apiserver: the names an administrator chose are not
// shown to the clients they classify). A rejected request gets
// kube-apiserver's answer, which is not a Status: a 429 with the plain
// text "Too many requests, please try again later." and a Retry-After
// that grows while its level keeps rejecting (flowcontrol.RetryAfter);
// client-go retries it. It is counted in apiserver_request_total and
// apiserver_request_terminations_total as WithMaxInFlightLimit counts
// its own.
//
// A request waits at most a quarter of the time it has left (its
// context's deadline, set by WithTimeout), or defaultWait if it has no
// deadline, and never more than a minute.
//
// Long-running requests but watches (exec, logs, proxies...) are not
// limited: they would hold seats for as long as the client wants. A
// watch holds its seats only while it initializes: until its handler
// starts the response, which the watch handler does once the watch is
// established.
//
// The filter needs the user, so it goes after WithAuthentication and
// WithImpersonation: classification is by the impersonated user.
func WithPriorityAndFairness(handler http.Handler, fc *flowcontrol.Controller, estimate fcrequest.Estimator, longRunning request.LongRunningCheck, defaultWait time.Duration, m *metrics.Registry) http.Handler {
	if fc == nil {
		return handler
	}
	return &priorityAndFairness{handler: handler, fc: fc, estimate: estimate, longRunning: longRunning, defaultWait: defaultWait, metrics: m}
}

type priorityAndFairness struct {
	handler     http.Handler
	fc          *flowcontrol.Controller
	estimate    fcrequest.Estimator
	longRunning request.LongRunningCheck
	defaultWait time.Duration
	metrics     *metrics.Registry
}

func (h *priorityAndFairness) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	info, ok := requestInfoOrFail(w, r)
	if !ok {
		return
	}
	u, _ := request.UserFrom(r.Context())
	if u == nil {
		// Authentication always puts a user, anonymous or not.
		http.Error(w, "no user", http.StatusInternalServerError)
		return
	}
	watch := info.Verb == "watch"
	if !watch && h.longRunning != nil && h.longRunning(info) {
		h.handler.ServeHTTP(w, r)
		return
	}
	digest := flowcontrol.Digest{Info: info, User: u}
	estimate := func(cl flowcontrol.Classification) fcrequest.WorkEstimate {
		if h.estimate == nil {
			return fcrequest.WorkEstimate{InitialSeats: 1}
		}
		return h.estimate(r, cl.FlowSchema, cl.PriorityLevel)
	}
	waitCtx, cancel := h.waitContext(r.Context())
	defer cancel()

	var cl flowcontrol.Classification
	var rejected bool
	if watch {
		cl, rejected = h.serveWatch(waitCtx, w, r, digest, estimate)
	} else {
		var reason fairqueuing.RejectReason
		cl, reason = h.fc.Handle(waitCtx, digest, estimate, func(cl flowcontrol.Classification) {
			setClassificationHeaders(w, cl)
			h.handler.ServeHTTP(w, r)
		})
		rejected = reason != fairqueuing.NotRejected
	}
	if rejected {
		setClassificationHeaders(w, cl)
		h.reject(w, r, info, cl)
	}
}

// serveWatch admits a watch and serves it. The watch holds its seats
// while Handle's execute function blocks, in another goroutine, until
// the watch handler starts its response (or returns without one); the
// watch itself is served in the request's goroutine, with the request's
// own context, for as long as it lasts.
func (h *priorityAndFairness) serveWatch(waitCtx context.Context, w http.ResponseWriter, r *http.Request, digest flowcontrol.Digest, estimate func(flowcontrol.Classification) fcrequest.WorkEstimate) (flowcontrol.Classification, bool) {
	admitted := make(chan flowcontrol.Classification, 1)
	initialized := make(chan struct{})
	var initOnce sync.Once
	signal := func() { initOnce.Do(func() { close(initialized) }) }
	type result struct {
		cl       flowcontrol.Classification
		rejected bool
	}
	done := make(chan result, 1)
	go func() {
		cl, reason := h.fc.Handle(waitCtx, digest, estimate, func(cl flowcontrol.Classification) {
			admitted <- cl
			<-initialized
		})
		done <- result{cl, reason != fairqueuing.NotRejected}
	}()
	select {
	case cl := <-admitted:
		setClassificationHeaders(w, cl)
		d := &writerDelegate{ResponseWriter: w, beforeHeader: signal}
		func() {
			// However the handler ends, the seats are released.
			defer func() {
				signal()
				<-done
			}()
			h.handler.ServeHTTP(d, r)
		}()
		return cl, false
	case res := <-done:
		return res.cl, res.rejected
	}
}

// waitContext bounds the time a request may wait in its queue: a
// quarter of what its deadline leaves it, or defaultWait without a
// deadline, at most maxQueueWait.
func (h *priorityAndFairness) waitContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if ctx.Err() != nil {
		return ctx, func() {}
	}
	return context.WithDeadline(ctx, queueDeadline(ctx, time.Now(), h.defaultWait))
}

// queueDeadline is when a request of ctx arriving at now must leave its
// queue.
func queueDeadline(ctx context.Context, now time.Time, defaultWait time.Duration) time.Time {
	wait := defaultWait
	if deadline, ok := ctx.Deadline(); ok {
		wait = deadline.Sub(now) / 4
	}
	return now.Add(min(wait, maxQueueWait))
}

// The classification headers, canonical once and for all: the API's
// constants are not ("PF"), and Header.Set would canonicalize them, at a
// cost, for every request.
var (
	priorityLevelUIDHeader = http.CanonicalHeaderKey(flowcontrolv1.ResponseHeaderMatchedPriorityLevelConfigurationUID)
	flowSchemaUIDHeader    = http.CanonicalHeaderKey(flowcontrolv1.ResponseHeaderMatchedFlowSchemaUID)
)

// setClassificationHeaders names the request's FlowSchema and priority
// level by UID, as kube-apiserver does.
func setClassificationHeaders(w http.ResponseWriter, cl flowcontrol.Classification) {
	h := w.Header()
	h[priorityLevelUIDHeader] = []string{string(cl.PriorityLevelUID)}
	h[flowSchemaUIDHeader] = []string{string(cl.FlowSchemaUID)}
}

// reject answers a request its level did not admit, as kube-apiserver's
// filter does (http.Error: plain text, nosniff).
func (h *priorityAndFairness) reject(w http.ResponseWriter, r *http.Request, info *request.RequestInfo, cl flowcontrol.Classification) {
	if h.metrics != nil {
		labels := metrics.RequestLabelsFor(r, info)
		if !info.IsResourceRequest {
			labels.Subresource = ""
		}
		h.metrics.CountRequest(labels, http.StatusTooManyRequests)
		h.metrics.RecordTermination(labels, http.StatusTooManyRequests)
	}
	w.Header().Set("Retry-After", strconv.FormatInt(h.fc.RetryAfter(cl.PriorityLevel), 10))
	http.Error(w, tooManyRequestsMessage, http.StatusTooManyRequests)
}

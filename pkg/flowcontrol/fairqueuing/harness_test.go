package fairqueuing

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/pkg/flowcontrol/request"
)

// recorder is an Observer that keeps what tests look at.
type recorder struct {
	mu sync.Mutex
	// dispatched is the flow schema of every dispatch, in order.
	dispatched []string
	rejected   []string // "schema/reason"
	waits      []string // "schema/executed"
	noAccom    int
	executing  map[string][2]int // requests, seats per schema
	inQueue    map[string][2]int
	totals     [4]int
	limits     [2]int
	queueLens  []int
	arrivals   []int
	epochs     []bool
}

func newRecorder() *recorder {
	return &recorder{executing: map[string][2]int{}, inQueue: map[string][2]int{}}
}

func (r *recorder) ObserveLimits(c, q int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.limits = [2]int{c, q}
}

func (r *recorder) ObserveArrival(fs string, seats int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.arrivals = append(r.arrivals, seats)
}

func (r *recorder) ObserveRejected(fs, reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rejected = append(r.rejected, fs+"/"+reason)
}

func (r *recorder) ObserveEnqueued(fs string, seats, qlen int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	v := r.inQueue[fs]
	r.inQueue[fs] = [2]int{v[0] + 1, v[1] + seats}
	r.queueLens = append(r.queueLens, qlen)
}

func (r *recorder) ObserveDequeued(fs string, seats int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	v := r.inQueue[fs]
	r.inQueue[fs] = [2]int{v[0] - 1, v[1] - seats}
}

func (r *recorder) ObserveWait(fs string, executed bool, _ time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.waits = append(r.waits, fmt.Sprintf("%s/%v", fs, executed))
}

func (r *recorder) ObserveDispatched(fs string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dispatched = append(r.dispatched, fs)
}

func (r *recorder) ObserveExecuting(fs string, reqs, seats int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	v := r.executing[fs]
	r.executing[fs] = [2]int{v[0] + reqs, v[1] + seats}
}

func (r *recorder) ObserveNoAccommodation(string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.noAccom++
}

func (r *recorder) ObserveTotals(w, e, s, d int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.totals = [4]int{w, e, s, d}
}

func (r *recorder) ObserveR(float64)                          {}
func (r *recorder) ObserveDispatchR(_, _, _, _, _, _ float64) {}
func (r *recorder) ObserveEpochAdvance(ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.epochs = append(r.epochs, ok)
}
func (r *recorder) dispatches() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.dispatched...)
}
func (r *recorder) rejections() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.rejected...)
}
func (r *recorder) executingOf(fs string) [2]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.executing[fs]
}
func (r *recorder) inQueueOf(fs string) [2]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.inQueue[fs]
}
func (r *recorder) lastTotals() [4]int    { r.mu.Lock(); defer r.mu.Unlock(); return r.totals }
func (r *recorder) noAccommodations() int { r.mu.Lock(); defer r.mu.Unlock(); return r.noAccom }
func (r *recorder) allWaits() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.waits...)
}
func (r *recorder) limitsSeen() [2]int { r.mu.Lock(); defer r.mu.Unlock(); return r.limits }
func (r *recorder) queueLengths() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]int(nil), r.queueLens...)
}
func (r *recorder) arrivalSeats() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]int(nil), r.arrivals...)
}
func (r *recorder) epochsSeen() []bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]bool(nil), r.epochs...)
}
func (r *recorder) String() string                    { return fmt.Sprint(r.dispatches()) }
func (r *recorder) resetDispatches()                  { r.mu.Lock(); defer r.mu.Unlock(); r.dispatched = nil }
func (r *recorder) countDispatches(fs string) (n int) { return count(r.dispatches(), fs) }
func count(xs []string, x string) (n int) {
	for _, y := range xs {
		if y == x {
			n++
		}
	}
	return
}

// harness drives one queue set with a fake clock.
type harness struct {
	t     *testing.T
	clock *FakeClock
	rec   *recorder
	qs    *QueueSet
}

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func newHarness(t *testing.T, cfg Config) *harness {
	t.Helper()
	h := &harness{t: t, clock: NewFakeClock(epoch), rec: newRecorder()}
	qs, err := New(cfg, Options{Clock: h.clock, Observer: h.rec})
	if err != nil {
		t.Fatalf("New(%+v): %v", cfg, err)
	}
	h.qs = qs
	return h
}

// call is one request: StartRequest, then Finish in a goroutine whose
// execute blocks until released.
type call struct {
	req      *Request
	reason   RejectReason
	started  chan struct{}
	release  chan struct{}
	done     chan bool // Finish's result
	executed bool
	finished bool // released by the test
}

// flow returns a flow of schema name whose hash deals queue q first
// when the hand size is 1.
func flowTo(schema string, q uint64) Flow {
	return Flow{Hash: q, Schema: schema, Distinguisher: schema}
}

func seats(initial uint64) request.WorkEstimate {
	return request.WorkEstimate{InitialSeats: initial}
}

func (h *harness) start(ctx context.Context, flow Flow, work request.WorkEstimate) *call {
	h.t.Helper()
	c := &call{started: make(chan struct{}), release: make(chan struct{}), done: make(chan bool, 1)}
	c.req, c.reason = h.qs.StartRequest(ctx, work, flow, flow.Schema)
	if c.req == nil {
		close(c.done)
		return c
	}
	go func() {
		c.done <- c.req.Finish(func() {
			close(c.started)
			<-c.release
		})
	}()
	return c
}

// finish releases an executing call and waits until Finish returned,
// by which time the set has dispatched what the freed seats allow.
func (h *harness) finish(c *call) {
	h.t.Helper()
	if c.finished {
		return
	}
	c.finished = true
	select {
	case <-c.started:
	case <-time.After(10 * time.Second):
		h.t.Fatalf("finish: the request never started executing; dispatched so far %v", h.rec)
	}
	close(c.release)
	c.executed = <-c.done
}

// wait waits for a call that will not execute to return from Finish.
func (h *harness) wait(c *call) bool {
	h.t.Helper()
	select {
	case ex := <-c.done:
		c.executed = ex
		return ex
	case <-time.After(10 * time.Second):
		h.t.Fatalf("Finish never returned")
		return false
	}
}

func (h *harness) counts() Counts { return h.qs.Counts() }

func (h *harness) wantCounts(want Counts) {
	h.t.Helper()
	if got := h.counts(); got != want {
		h.t.Fatalf("counts = %+v, want %+v", got, want)
	}
}

// isExecuting says whether a call has been dispatched, from the set's
// state (not from its goroutine, which may not have run yet).
func (h *harness) isExecuting(c *call) bool {
	h.qs.mu.Lock()
	defer h.qs.mu.Unlock()
	return c.req != nil && c.req.state == stateExecuting
}

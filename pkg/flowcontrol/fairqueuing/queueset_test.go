package fairqueuing

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/pkg/flowcontrol/request"
)

var bg = context.Background()

func TestRequestsDispatchAtOnceWhileSeatsAreFreeAndQueueOtherwise(t *testing.T) {
	h := newHarness(t, Config{Name: "pl", Queues: 4, HandSize: 1, QueueLengthLimit: 10, ConcurrencyLimit: 2})
	a := h.start(bg, flowTo("a", 0), seats(1))
	b := h.start(bg, flowTo("b", 1), seats(1))
	if !h.isExecuting(a) || !h.isExecuting(b) {
		t.Fatal("the first two requests of a level of two seats must execute at once")
	}
	c := h.start(bg, flowTo("c", 2), seats(1))
	if h.isExecuting(c) {
		t.Fatal("a third request must queue while both seats are taken")
	}
	h.wantCounts(Counts{WaitingRequests: 1, ExecutingRequests: 2, WaitingSeats: 1, SeatsInUse: 2})
	if got := h.rec.inQueueOf("c"); got != [2]int{1, 1} {
		t.Errorf("observed in queue for c = %v, want 1 request of 1 seat", got)
	}

	h.finish(a)
	if !h.isExecuting(c) {
		t.Fatal("the queued request must be dispatched when a seat frees")
	}
	h.wantCounts(Counts{ExecutingRequests: 2, SeatsInUse: 2})
	h.finish(b)
	h.finish(c)
	h.wantCounts(Counts{})
	if !a.executed || !b.executed || !c.executed {
		t.Error("Finish must report that each request executed")
	}
	if !h.qs.IsIdle() {
		t.Error("the set must be idle once everything finished")
	}
	if got, want := h.rec.dispatches(), []string{"a", "b", "c"}; !slices.Equal(got, want) {
		t.Errorf("dispatches = %v, want %v", got, want)
	}
	for _, fs := range []string{"a", "b", "c"} {
		if got := h.rec.executingOf(fs); got != [2]int{} {
			t.Errorf("observed executing for %s after all finished = %v, want none", fs, got)
		}
	}
	if got := h.rec.allWaits(); len(got) != 3 || count(got, "c/true") != 1 {
		t.Errorf("waits observed = %v, want one per dispatch", got)
	}
}

func TestAFullQueueRejectsOnlyWhenEverySeatIsTaken(t *testing.T) {
	h := newHarness(t, Config{Name: "pl", Queues: 1, HandSize: 1, QueueLengthLimit: 2, ConcurrencyLimit: 1})
	running := h.start(bg, flowTo("f", 0), seats(1))
	q1 := h.start(bg, flowTo("f", 0), seats(1))
	q2 := h.start(bg, flowTo("f", 0), seats(1))
	over := h.start(bg, flowTo("f", 0), seats(1))
	if over.req != nil || over.reason != QueueFull {
		t.Fatalf("the request beyond the queue length limit: got %v, %q; want rejected %q", over.req, over.reason, QueueFull)
	}
	if got := h.rec.rejections(); !slices.Equal(got, []string{"f/queue-full"}) {
		t.Errorf("rejections observed = %v", got)
	}
	if got := h.rec.queueLengths(); !slices.Equal(got, []int{1, 1, 2}) {
		t.Errorf("queue lengths after enqueue = %v, want [1 1 2] (the first request passed through an empty queue)", got)
	}
	h.finish(running)
	h.finish(q1)
	h.finish(q2)
	h.wantCounts(Counts{})
	if d := h.qs.Dump(false); d.Rejected != 1 || d.Dispatched != 3 {
		t.Errorf("dump totals: rejected %d dispatched %d, want 1 and 3", d.Rejected, d.Dispatched)
	}
}

func TestALevelWithoutQueuesRejectsWhatDoesNotFit(t *testing.T) {
	h := newHarness(t, Config{Name: "pl", ConcurrencyLimit: 2})
	a := h.start(bg, flowTo("f", 0), seats(1))
	b := h.start(bg, flowTo("f", 0), seats(1))
	c := h.start(bg, flowTo("f", 0), seats(1))
	if c.req != nil || c.reason != ConcurrencyLimit {
		t.Fatalf("third request of a two-seat Reject level: %v %q, want rejected %q", c.req, c.reason, ConcurrencyLimit)
	}
	h.finish(a)
	wide := h.start(bg, flowTo("f", 0), seats(2))
	if wide.req != nil {
		t.Fatal("a two-seat request must not start while one of two seats is taken")
	}
	h.finish(b)
	wider := h.start(bg, flowTo("f", 0), seats(5))
	if wider.req == nil || !h.isExecuting(wider) {
		t.Fatal("a request wider than the limit must run when the whole level is free")
	}
	if got := h.counts().SeatsInUse; got != 2 {
		t.Errorf("a 5-seat request on a 2-seat level holds %d seats, want it cut down to 2", got)
	}
	if d := h.qs.Dump(false); len(d.QueuelessExecuting) != 1 || len(d.Queues) != 0 {
		t.Errorf("dump: %d queueless executing, %d queues; want 1 and 0", len(d.QueuelessExecuting), len(d.Queues))
	}
	h.finish(wider)
	h.wantCounts(Counts{})
	if got := h.rec.rejections(); !slices.Equal(got, []string{"f/concurrency-limit", "f/concurrency-limit"}) {
		t.Errorf("rejections = %v", got)
	}
}

func TestARequestWhoseContextEndsLeavesItsQueueHoldingNothing(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ctx    func() (context.Context, context.CancelFunc)
		reason RejectReason
	}{
		{"cancelled", func() (context.Context, context.CancelFunc) { return context.WithCancel(bg) }, Cancelled},
		// The deadline is real time; only its passing matters here.
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithDeadline(bg, time.Now().Add(-time.Second))
		}, TimeOut},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Config{Name: "pl", Queues: 2, HandSize: 1, QueueLengthLimit: 5, ConcurrencyLimit: 1})
			running := h.start(bg, flowTo("f", 0), seats(1))
			ctx, cancel := tc.ctx()
			defer cancel()
			waiting := h.start(ctx, flowTo("g", 1), request.WorkEstimate{InitialSeats: 1, FinalSeats: 2, AdditionalLatency: time.Second})
			if tc.reason == Cancelled {
				cancel()
			}
			if h.wait(waiting) {
				t.Fatal("a request whose context ended in its queue must not execute")
			}
			if got := waiting.req.RejectReason(); got != tc.reason {
				t.Errorf("RejectReason = %q, want %q", got, tc.reason)
			}
			h.wantCounts(Counts{ExecutingRequests: 1, SeatsInUse: 1})
			if got := h.rec.inQueueOf("g"); got != [2]int{} {
				t.Errorf("observed in queue after leaving = %v", got)
			}
			// kube-apiserver labels both cases time-out.
			if got := h.rec.rejections(); !slices.Equal(got, []string{"g/time-out"}) {
				t.Errorf("rejections = %v", got)
			}
			h.finish(running)
			h.wantCounts(Counts{})
			if h.clock.Pending() != 0 {
				t.Error("a request that never executed must not hold final seats")
			}
			d := h.qs.Dump(false)
			if d.Rejected != 1 || d.TimedOut+d.Cancelled != 1 || (tc.reason == TimeOut) != (d.TimedOut == 1) {
				t.Errorf("dump totals %+v", d)
			}
		})
	}
}

// A flow that floods its queue does not take the seats of a flow with
// few requests: with one seat, dispatches alternate between the two
// queues while both have requests waiting.
func TestAFloodingFlowGetsNoMoreThanItsShare(t *testing.T) {
	h := newHarness(t, Config{Name: "pl", Queues: 8, HandSize: 1, QueueLengthLimit: 100, ConcurrencyLimit: 1})
	blocker := h.start(bg, flowTo("blocker", 7), seats(1))
	var calls []*call
	for range 30 {
		calls = append(calls, h.start(bg, flowTo("flood", 0), seats(1)))
	}
	for range 5 {
		calls = append(calls, h.start(bg, flowTo("light", 1), seats(1)))
	}
	h.rec.resetDispatches()
	h.clock.Step(time.Millisecond)
	h.finish(blocker)
	for range len(calls) {
		var next *call
		for _, c := range calls {
			if h.isExecuting(c) && !c.finished {
				next = c
				break
			}
		}
		if next == nil {
			t.Fatalf("nothing executing; dispatches %v", h.rec)
		}
		h.clock.Step(5 * time.Millisecond)
		h.finish(next)
	}
	got := h.rec.dispatches()
	if n := count(got[:10], "light"); n != 5 {
		t.Errorf("light got %d of the first 10 dispatches, want all its 5: %v", n, got)
	}
	for i := 1; i < 10; i++ {
		if got[i] == got[i-1] {
			t.Errorf("dispatch %d repeats %s while both flows wait: %v", i, got[i], got[:10])
			break
		}
	}
	h.wantCounts(Counts{})
}

// A request needing more seats than are free blocks the dispatch of
// narrower ones behind it, so that it is not starved; once its turn
// comes it waits for enough seats.
func TestAWideRequestIsNotStarvedByNarrowOnes(t *testing.T) {
	h := newHarness(t, Config{Name: "pl", Queues: 8, HandSize: 1, QueueLengthLimit: 100, ConcurrencyLimit: 4})
	var executing []*call
	for i := range 4 {
		executing = append(executing, h.start(bg, flowTo("narrow", uint64(2+i)), seats(1)))
	}
	wide := h.start(bg, flowTo("wide", 0), seats(4))
	var narrow []*call
	for range 20 {
		narrow = append(narrow, h.start(bg, flowTo("narrow", 1), seats(1)))
	}
	h.rec.resetDispatches()
	for len(executing) > 0 && !h.isExecuting(wide) {
		c := executing[0]
		executing = executing[1:]
		h.clock.Step(3 * time.Millisecond)
		h.finish(c)
		for _, n := range narrow {
			if h.isExecuting(n) && !slices.Contains(executing, n) && !n.finished {
				executing = append(executing, n)
			}
		}
	}
	if !h.isExecuting(wide) {
		t.Fatalf("the wide request was never dispatched; dispatches %v", h.rec.dispatches())
	}
	if got := h.counts(); got.SeatsInUse != 4 || got.ExecutingRequests != 1 {
		t.Errorf("while the 4-seat request executes: %+v, want it alone on all 4 seats", got)
	}
	if h.rec.noAccommodations() == 0 {
		t.Error("the wide request must have been picked at least once while it did not fit")
	}
	if n := h.rec.countDispatches("narrow"); n > 4 {
		t.Errorf("%d narrow requests overtook the wide one, want at most 4 (its work equals 4 narrow ones)", n)
	}
	h.finish(wide)
	for _, n := range narrow {
		h.finish(n)
	}
	h.wantCounts(Counts{})
}

// Virtual finish order: a queue whose requests are cheaper gets more of
// them dispatched, in proportion to their work.
func TestDispatchFollowsVirtualFinishTime(t *testing.T) {
	h := newHarness(t, Config{Name: "pl", Queues: 8, HandSize: 1, QueueLengthLimit: 100, ConcurrencyLimit: 1})
	blocker := h.start(bg, flowTo("blocker", 7), seats(1))
	// heavy's requests carry 3ms x 3 seats of final work each beyond
	// their initial 3ms: four times light's work.
	heavyWork := request.WorkEstimate{InitialSeats: 1, FinalSeats: 1, AdditionalLatency: 9 * time.Millisecond}
	var all []*call
	for range 4 {
		all = append(all, h.start(bg, flowTo("heavy", 0), heavyWork))
	}
	for range 16 {
		all = append(all, h.start(bg, flowTo("light", 1), seats(1)))
	}
	h.rec.resetDispatches()
	h.finish(blocker)
	done := 0
	for done < len(all) {
		progressed := false
		for _, c := range all {
			if h.isExecuting(c) && !c.finished {
				// Requests run exactly the guessed 3ms; final seats are
				// released as the clock passes.
				h.clock.Step(3 * time.Millisecond)
				h.finish(c)
				h.clock.Step(9 * time.Millisecond)
				done++
				progressed = true
				break
			}
		}
		if !progressed {
			t.Fatalf("stuck after %d; dispatches %v", done, h.rec.dispatches())
		}
	}
	got := h.rec.dispatches()
	// In the first 10 dispatches light should get about 4 for every
	// heavy one.
	if n := count(got[:10], "heavy"); n < 1 || n > 3 {
		t.Errorf("heavy got %d of the first 10 dispatches, want 2 (1 to 3): %v", n, got)
	}
	h.wantCounts(Counts{})
}

func TestLimitChangesTakeEffectAtOnce(t *testing.T) {
	h := newHarness(t, Config{Name: "pl", Queues: 4, HandSize: 2, QueueLengthLimit: 10, ConcurrencyLimit: 1})
	var calls []*call
	for i := range 5 {
		calls = append(calls, h.start(bg, flowTo("f", uint64(i)), seats(1)))
	}
	h.wantCounts(Counts{WaitingRequests: 4, ExecutingRequests: 1, WaitingSeats: 4, SeatsInUse: 1})
	h.qs.SetConcurrencyLimit(3)
	h.wantCounts(Counts{WaitingRequests: 2, ExecutingRequests: 3, WaitingSeats: 2, SeatsInUse: 3})
	if got := h.rec.limitsSeen(); got != [2]int{3, 40} {
		t.Errorf("observed limits = %v, want 3 seats and 4x10 queue places", got)
	}
	h.qs.SetConcurrencyLimit(1)
	h.wantCounts(Counts{WaitingRequests: 2, ExecutingRequests: 3, WaitingSeats: 2, SeatsInUse: 3})
	var executing []*call
	for _, c := range calls {
		if h.isExecuting(c) {
			executing = append(executing, c)
		}
	}
	h.finish(executing[0])
	h.finish(executing[1])
	h.wantCounts(Counts{WaitingRequests: 2, ExecutingRequests: 1, WaitingSeats: 2, SeatsInUse: 1})
	h.finish(executing[2])
	h.wantCounts(Counts{WaitingRequests: 1, ExecutingRequests: 1, WaitingSeats: 1, SeatsInUse: 1})
	for _, c := range calls {
		h.finish(c)
	}
	h.wantCounts(Counts{})
}

func TestReconfigurationKeepsQueuedRequests(t *testing.T) {
	h := newHarness(t, Config{Name: "pl", Queues: 8, HandSize: 1, QueueLengthLimit: 10, ConcurrencyLimit: 1})
	running := h.start(bg, flowTo("f", 0), seats(1))
	inQueue6 := h.start(bg, flowTo("g", 6), seats(1))
	if err := h.qs.Configure(Config{Name: "pl", Queues: 2, HandSize: 1, QueueLengthLimit: 10, ConcurrencyLimit: 1}); err != nil {
		t.Fatal(err)
	}
	// The six idle queues go at once, the two busy ones stay.
	if d := h.qs.Dump(false); len(d.Queues) != 2 || d.Queues[1].Waiting[0].FlowSchema != "g" {
		t.Errorf("after shrinking from 8 to 2 queues with queues 0 and 6 busy: %+v", d.Queues)
	}
	if err := h.qs.Configure(Config{Name: "pl", ConcurrencyLimit: 1}); err != nil {
		t.Fatal(err)
	}
	if c := h.start(bg, flowTo("h", 0), seats(1)); c.reason != ConcurrencyLimit {
		t.Errorf("after reconfiguring to no queues, a request that does not fit: %q, want %q", c.reason, ConcurrencyLimit)
	}
	h.finish(running)
	if !h.isExecuting(inQueue6) {
		t.Fatal("a request queued before the reconfiguration must still be dispatched")
	}
	h.finish(inQueue6)
	if d := h.qs.Dump(false); len(d.Queues) != 0 {
		t.Errorf("%d queues left once they emptied, want 0", len(d.Queues))
	}
	if err := h.qs.Configure(Config{Name: "pl", Queues: 3, HandSize: 4, QueueLengthLimit: 1, ConcurrencyLimit: 1}); err == nil {
		t.Error("a hand larger than the deck must be refused")
	}
	h.wantCounts(Counts{})
}

func TestFinalSeatsAreHeldForTheAdditionalLatency(t *testing.T) {
	h := newHarness(t, Config{Name: "pl", Queues: 2, HandSize: 1, QueueLengthLimit: 10, ConcurrencyLimit: 3})
	w := h.start(bg, flowTo("w", 0), request.WorkEstimate{InitialSeats: 1, FinalSeats: 3, AdditionalLatency: time.Second})
	h.wantCounts(Counts{ExecutingRequests: 1, SeatsInUse: 3})
	next := h.start(bg, flowTo("n", 1), seats(1))
	h.finish(w)
	h.wantCounts(Counts{WaitingRequests: 1, WaitingSeats: 1, SeatsInUse: 3})
	if got := h.rec.executingOf("w"); got != [2]int{0, 3} {
		t.Errorf("observed executing of w after it returned = %v, want 0 requests on 3 seats", got)
	}
	h.clock.Step(999 * time.Millisecond)
	if h.isExecuting(next) {
		t.Fatal("final seats released before the additional latency passed")
	}
	h.clock.Step(time.Millisecond)
	if !h.isExecuting(next) {
		t.Fatal("the queued request must be dispatched once the final seats are released")
	}
	h.finish(next)
	h.wantCounts(Counts{})
}

// Final seats beyond the limit are capped at it, the latency stretched
// so that the work stays the same.
func TestFinalSeatsBeyondTheLimitAreCapped(t *testing.T) {
	h := newHarness(t, Config{Name: "pl", Queues: 2, HandSize: 1, QueueLengthLimit: 10, ConcurrencyLimit: 2})
	w := h.start(bg, flowTo("w", 0), request.WorkEstimate{InitialSeats: 1, FinalSeats: 4, AdditionalLatency: time.Second})
	d := h.qs.Dump(false)
	if got := d.Queues[0].Executing[0].Work; got.FinalSeats != 2 || got.AdditionalLatency != 2*time.Second {
		t.Errorf("work as dispatched = %+v, want 2 final seats for 2s", got)
	}
	h.finish(w)
	h.clock.Step(time.Second)
	if got := h.counts().SeatsInUse; got != 2 {
		t.Errorf("seats in use after 1s of 2s = %d, want 2", got)
	}
	h.clock.Step(time.Second)
	h.wantCounts(Counts{})
}

func TestAnExemptSetNeverQueuesButCounts(t *testing.T) {
	clock := NewFakeClock(epoch)
	rec := newRecorder()
	qs := NewExempt("exempt", Options{Clock: clock, Observer: rec})
	h := &harness{t: t, clock: clock, rec: rec, qs: qs}
	var calls []*call
	for range 50 {
		c := h.start(bg, flowTo("exempt", 0), seats(2))
		if c.req == nil || !h.isExecuting(c) {
			t.Fatal("an exempt request must execute at once")
		}
		calls = append(calls, c)
	}
	h.wantCounts(Counts{ExecutingRequests: 50, SeatsInUse: 100})
	if got := rec.executingOf("exempt"); got != [2]int{50, 100} {
		t.Errorf("observed executing = %v", got)
	}
	if got := rec.allWaits(); len(got) != 0 {
		t.Errorf("an exempt level observes no waits, got %v", got)
	}
	clock.Step(time.Second)
	for _, c := range calls {
		h.finish(c)
	}
	h.wantCounts(Counts{})
	sd := qs.ReadSeatDemand()
	if sd.Average != 100 || sd.HighWatermark != 100 || sd.StdDev != 0 {
		t.Errorf("seat demand %+v, want 100 seats for the whole second", sd)
	}
}

func TestSeatDemandStatisticsAreResetOnRead(t *testing.T) {
	h := newHarness(t, Config{Name: "pl", Queues: 4, HandSize: 1, QueueLengthLimit: 10, ConcurrencyLimit: 1})
	running := h.start(bg, flowTo("f", 0), seats(1))
	h.clock.Step(time.Second) // demand 1 for 1s
	q := h.start(bg, flowTo("g", 1), seats(2))
	h.clock.Step(time.Second) // demand 3 for 1s
	sd := h.qs.ReadSeatDemand()
	if sd.Duration != 2*time.Second || sd.Average != 2 || sd.StdDev != 1 || sd.HighWatermark != 3 {
		t.Errorf("first period %+v, want 2s, average 2, deviation 1, high watermark 3", sd)
	}
	h.clock.Step(time.Second)
	sd = h.qs.ReadSeatDemand()
	if sd.Duration != time.Second || sd.Average != 3 || sd.StdDev != 0 || sd.HighWatermark != 3 {
		t.Errorf("second period %+v, want 1s of a constant 3", sd)
	}
	if sd := h.qs.ReadSeatDemand(); !math.IsNaN(sd.Average) || sd.HighWatermark != 3 {
		t.Errorf("an empty period %+v, want NaN average and the current value as watermark", sd)
	}
	h.finish(running)
	h.finish(q)
	h.wantCounts(Counts{})
	if got := h.rec.lastTotals(); got != [4]int{} {
		t.Errorf("last observed totals %v, want zeros", got)
	}
}

func TestDumpShowsQueuesAndRequests(t *testing.T) {
	h := newHarness(t, Config{Name: "pl", Queues: 3, HandSize: 1, QueueLengthLimit: 10, ConcurrencyLimit: 1})
	running := h.start(bg, flowTo("f", 0), seats(1))
	h.clock.Step(time.Second)
	waiting := h.start(bg, Flow{Hash: 2, Schema: "g", Distinguisher: "alice"}, request.WorkEstimate{InitialSeats: 1, FinalSeats: 1, AdditionalLatency: 100 * time.Millisecond})
	d := h.qs.Dump(true)
	if len(d.Queues) != 3 || d.WaitingRequests != 1 || d.ExecutingRequests != 1 {
		t.Fatalf("dump %+v", d)
	}
	q0, q2 := d.Queues[0], d.Queues[2]
	if q0.ExecutingRequests != 1 || q0.SeatsInUse != 1 || len(q0.Executing) != 1 || q0.Executing[0].Start != epoch {
		t.Errorf("queue 0 %+v", q0)
	}
	if len(q2.Waiting) != 1 || q2.InitialSeatsSum != 1 || q2.MaxSeatsSum != 1 {
		t.Fatalf("queue 2 %+v", q2)
	}
	r := q2.Waiting[0]
	if r.FlowSchema != "g" || r.Distinguisher != "alice" || r.Arrival != epoch.Add(time.Second) || !r.Start.IsZero() || r.Descr != "g" {
		t.Errorf("waiting request %+v", r)
	}
	// 1 seat x 3ms + 1 seat x 100ms.
	if got := q2.TotalWorkSum.String(); got != "0.10300000ss" {
		t.Errorf("total work %s, want 0.10300000ss", got)
	}
	if d := h.qs.Dump(false); d.Queues[2].Waiting[0].Descr != nil {
		t.Error("descr must be left out without details")
	}
	h.finish(running)
	h.finish(waiting)
	h.clock.Step(time.Second)
	h.wantCounts(Counts{})
}

// A request whose context ended before anyone called Finish is dropped
// when its turn comes, and the next one is dispatched in its place.
func TestDispatchSkipsARequestWhoseContextEnded(t *testing.T) {
	h := newHarness(t, Config{Name: "pl", Queues: 1, HandSize: 1, QueueLengthLimit: 10, ConcurrencyLimit: 1})
	running := h.start(bg, flowTo("f", 0), seats(1))
	ctx, cancel := context.WithCancel(bg)
	gone, _ := h.qs.StartRequest(ctx, seats(1), flowTo("gone", 0), nil)
	next := h.start(bg, flowTo("next", 0), seats(1))
	cancel()
	h.finish(running)
	if !h.isExecuting(next) {
		t.Fatal("the request behind the cancelled one must be dispatched")
	}
	if gone.Finish(func() { t.Error("a cancelled request executed") }) {
		t.Error("Finish of a dropped request must report false")
	}
	if got := gone.RejectReason(); got != Cancelled {
		t.Errorf("reason %q, want %q", got, Cancelled)
	}
	if got := h.rec.dispatches(); !slices.Equal(got, []string{"f", "next"}) {
		t.Errorf("dispatches %v", got)
	}
	h.finish(next)
	h.wantCounts(Counts{})
}

// Calling Finish a second time executes nothing.
func TestFinishTwiceExecutesOnce(t *testing.T) {
	h := newHarness(t, Config{Name: "pl", ConcurrencyLimit: 1})
	r, _ := h.qs.StartRequest(bg, seats(1), flowTo("f", 0), nil)
	n := 0
	r.Finish(func() { n++ })
	if r.Finish(func() { n++ }) || n != 1 {
		t.Errorf("executed %d times", n)
	}
	h.wantCounts(Counts{})
}

// Virtual time is a uint64; near its end it is wound back by half its
// range with every reading, and dispatch carries on in the same order.
func TestAnEpochAdvanceKeepsTheOrder(t *testing.T) {
	h := newHarness(t, Config{Name: "pl", Queues: 4, HandSize: 1, QueueLengthLimit: 10, ConcurrencyLimit: 1})
	running := h.start(bg, flowTo("f", 0), seats(1))
	h.qs.mu.Lock()
	h.qs.r = highR - SeatsTimesDuration(1, 100*time.Millisecond)
	h.qs.queues[0].nextDispatchR = h.qs.r
	h.qs.mu.Unlock()
	a := h.start(bg, flowTo("a", 1), seats(1))
	b := h.start(bg, flowTo("b", 2), seats(1))
	h.clock.Step(2 * time.Second)
	h.finish(running)
	h.qs.mu.Lock()
	r := h.qs.r
	h.qs.mu.Unlock()
	if r >= rDecrement {
		t.Fatalf("R = %v was not wound back", r)
	}
	if got := h.rec.epochsSeen(); !slices.Equal(got, []bool{true}) {
		t.Errorf("epoch advances observed %v, want one successful", got)
	}
	h.finish(a)
	h.finish(b)
	if got := h.rec.dispatches(); !slices.Equal(got, []string{"f", "a", "b"}) {
		t.Errorf("dispatches %v", got)
	}
	h.wantCounts(Counts{})
}

// A level whose seats were all lent still runs one request at a time,
// queued or not; a wide one is cut down to that one seat.
func TestALimitOfZeroAdmitsOneAtATime(t *testing.T) {
	for _, queues := range []int{0, 2} {
		h := newHarness(t, Config{Name: "pl", Queues: queues, HandSize: min(queues, 1), QueueLengthLimit: 5})
		a := h.start(bg, flowTo("f", 0), seats(3))
		if !h.isExecuting(a) {
			t.Fatalf("queues %d: the first request must execute", queues)
		}
		h.wantCounts(Counts{ExecutingRequests: 1, SeatsInUse: 1})
		b := h.start(bg, flowTo("f", 1), seats(1))
		if h.isExecuting(b) {
			t.Fatalf("queues %d: a second request must not execute beside the first", queues)
		}
		h.finish(a)
		if queues > 0 {
			if !h.isExecuting(b) {
				t.Fatal("the queued request must follow")
			}
			h.finish(b)
		}
		h.wantCounts(Counts{})
	}
}

// noter records what the set tells a request's descr.
type noter struct{ notes []bool }

func (n *noter) NoteQueued(in bool) { n.notes = append(n.notes, in) }

func TestADescrIsToldWhenItsRequestEntersAndLeavesItsQueue(t *testing.T) {
	h := newHarness(t, Config{Name: "pl", Queues: 2, HandSize: 1, QueueLengthLimit: 5, ConcurrencyLimit: 1})
	first, second, gone := &noter{}, &noter{}, &noter{}
	r1, _ := h.qs.StartRequest(bg, seats(1), flowTo("f", 0), first)
	r2, _ := h.qs.StartRequest(bg, seats(1), flowTo("f", 0), second)
	ctx, cancel := context.WithCancel(bg)
	r3, _ := h.qs.StartRequest(ctx, seats(1), flowTo("f", 1), gone)
	cancel()
	if r3.Finish(func() {}) {
		t.Fatal("a cancelled request executed")
	}
	r1.Finish(func() {})
	r2.Finish(func() {})
	// Every request passes through its queue, even one dispatched at once.
	for name, tc := range map[string]struct {
		n    *noter
		want []bool
	}{"first": {first, []bool{true, false}}, "second": {second, []bool{true, false}}, "cancelled": {gone, []bool{true, false}}} {
		if !slices.Equal(tc.n.notes, tc.want) {
			t.Errorf("%s: notes %v, want %v", name, tc.n.notes, tc.want)
		}
	}
	h.wantCounts(Counts{})
}

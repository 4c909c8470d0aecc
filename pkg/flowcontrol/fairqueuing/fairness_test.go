package fairqueuing

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/pkg/flowcontrol/request"
)

// drain lets time pass in steps of G, the guessed service time, and at
// each step finishes every request that has run for G, oldest first,
// until every call has finished: every request runs exactly G, so no
// queue is credited or charged for its service time.
func drain(t *testing.T, h *harness, calls []*call) {
	t.Helper()
	for {
		h.clock.Step(estimatedServiceDuration)
		now := h.clock.Now()
		var due []*call
		for _, c := range calls {
			if !c.finished && c.req != nil && h.isExecuting(c) && !c.req.start.Add(estimatedServiceDuration).After(now) {
				due = append(due, c)
			}
		}
		if len(due) == 0 {
			break
		}
		slices.SortStableFunc(due, func(a, b *call) int { return a.req.start.Compare(b.req.start) })
		for _, c := range due {
			h.finish(c)
		}
	}
	h.clock.Step(time.Minute)
	for _, c := range calls {
		if c.req != nil && !c.finished {
			t.Fatalf("a request was never dispatched; dispatches %v", h.rec.dispatches())
		}
	}
}

// One elephant flow floods a 64-queue level dealing hands of 8, ten
// mice send a few requests each: the elephant fills at most the 8
// queues of its hand, each mouse spreads over queues of its own hand
// the elephant leaves short, and fair queuing gives every busy queue
// the same share, so the elephant gets at most 8 shares of every 18 (at
// least 10 busy mouse queues) while the mice wait.
func TestShuffleShardingShieldsMiceFromAnElephant(t *testing.T) {
	h := newHarness(t, Config{Name: "pl", Queues: 64, HandSize: 8, QueueLengthLimit: 1000, ConcurrencyLimit: 4})
	rng := rand.New(rand.NewPCG(5, 6))
	var calls []*call
	elephant := Flow{Hash: rng.Uint64(), Schema: "elephant"}
	for range 400 {
		calls = append(calls, h.start(bg, elephant, seats(1)))
	}
	mice := 10
	for i := range mice {
		mouse := Flow{Hash: rng.Uint64(), Schema: "mouse", Distinguisher: fmt.Sprint(i)}
		for range 10 {
			calls = append(calls, h.start(bg, mouse, seats(1)))
		}
	}
	drain(t, h, calls)
	got := h.rec.dispatches()
	lastMouse := 0
	for i, fs := range got {
		if fs == "mouse" {
			lastMouse = i
		}
	}
	elephantBefore := count(got[:lastMouse+1], "elephant")
	// 8 of every 18 dispatches, plus the 4 that took the seats first
	// and a round of slack.
	if limit := 100*8/10 + 4 + 8; elephantBefore > limit {
		t.Errorf("the elephant got %d dispatches before the last mouse's, want at most %d", elephantBefore, limit)
	}
	h.wantCounts(Counts{})
}

// Fairness is in seat-seconds: a flow whose requests hold two seats
// gets half as many dispatches as one whose requests hold one.
func TestWideRequestsCountTheirSeats(t *testing.T) {
	h := newHarness(t, Config{Name: "pl", Queues: 8, HandSize: 1, QueueLengthLimit: 1000, ConcurrencyLimit: 2})
	blocker := h.start(bg, flowTo("blocker", 7), request.WorkEstimate{InitialSeats: 2})
	var calls []*call
	for range 30 {
		calls = append(calls, h.start(bg, flowTo("wide", 0), seats(2)))
		calls = append(calls, h.start(bg, flowTo("narrow", 1), seats(1)))
		calls = append(calls, h.start(bg, flowTo("narrow", 1), seats(1)))
	}
	h.rec.resetDispatches()
	h.finish(blocker)
	drain(t, h, calls)
	got := h.rec.dispatches()
	// While both flows wait, narrow gets two dispatches for each of
	// wide's.
	first := got[:60]
	if w, n := count(first, "wide"), count(first, "narrow"); w < 19 || w > 21 || n < 39 || n > 41 {
		t.Errorf("in the first 60 dispatches wide got %d and narrow %d, want 20 and 40: %v", w, n, first)
	}
	h.wantCounts(Counts{})
}

// A queue does not bank the virtual time its requests spent waiting:
// after a dispatch its next start is never before its new head
// arrived, so a request does not overtake one of another flow that
// arrived with it (kube's anti-windup bound).
func TestAQueueDoesNotBankVirtualTime(t *testing.T) {
	h := newHarness(t, Config{Name: "pl", Queues: 4, HandSize: 1, QueueLengthLimit: 10, ConcurrencyLimit: 2})
	c1 := h.start(bg, flowTo("c", 2), seats(1))
	c2 := h.start(bg, flowTo("c", 3), seats(1))
	a1 := h.start(bg, flowTo("a", 0), seats(1))
	h.clock.Step(time.Second) // R advances while a1 waits
	a2 := h.start(bg, flowTo("a", 0), seats(1))
	b1 := h.start(bg, flowTo("b", 1), seats(1))
	// Each finish frees the seat for one dispatch; a1 keeps executing.
	h.finish(c1)
	h.finish(c2)
	if !h.isExecuting(a1) || !h.isExecuting(b1) || h.isExecuting(a2) {
		t.Fatalf("after a1, b1 must go before a2, which arrived with it; dispatches %v", h.rec.dispatches())
	}
	for _, c := range []*call{a1, b1, a2} {
		h.finish(c)
	}
	h.wantCounts(Counts{})
}

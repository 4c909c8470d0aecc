package fairqueuing

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/pkg/flowcontrol/request"
)

// checker is an Observer that checks, at every change, the invariants
// of the set's accounting.
type checker struct {
	*recorder
	t *testing.T
	// maxSeats is the most seats the set may have in use; 0 checks
	// nothing.
	maxSeats int
}

func (c *checker) ObserveTotals(w, e, s, d int) {
	c.recorder.ObserveTotals(w, e, s, d)
	if w < 0 || e < 0 || s < 0 || d != s+c.waitingSeats() {
		c.t.Errorf("inconsistent totals: waiting %d executing %d seats %d demand %d", w, e, s, d)
	}
	if c.maxSeats > 0 && s > c.maxSeats {
		c.t.Errorf("%d seats in use, limit %d", s, c.maxSeats)
	}
}

func (c *checker) waitingSeats() (n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, v := range c.inQueue {
		n += v[1]
	}
	return n
}

type randomLoad struct {
	requests     int
	flows        int
	maxWidth     int
	cancelOneIn  int
	reconfigure  bool
	limit        int
	checkMaxSeat bool
}

func runRandomLoad(t *testing.T, seed uint64, load randomLoad) {
	clock := NewFakeClock(epoch)
	chk := &checker{recorder: newRecorder(), t: t}
	if load.checkMaxSeat {
		chk.maxSeats = load.limit
	}
	cfg := Config{Name: "pl", Queues: 16, HandSize: 4, QueueLengthLimit: 20, ConcurrencyLimit: load.limit}
	qs, err := New(cfg, Options{Clock: clock, Observer: chk})
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var stepper sync.WaitGroup
	stepper.Add(1)
	go func() {
		defer stepper.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			clock.Step(time.Millisecond)
			runtime.Gosched()
		}
	}()
	if load.reconfigure {
		stepper.Add(1)
		go func() {
			defer stepper.Done()
			rng := rand.New(rand.NewPCG(seed, 99))
			for {
				select {
				case <-stop:
					return
				default:
				}
				if rng.IntN(2) == 0 {
					qs.SetConcurrencyLimit(1 + rng.IntN(load.limit))
				} else {
					c := cfg
					c.Queues = rng.IntN(20)
					c.HandSize = min(c.Queues, 1+rng.IntN(4))
					if err := qs.Configure(c); err != nil {
						t.Error(err)
					}
				}
				time.Sleep(100 * time.Microsecond)
			}
		}()
	}

	var executed, rejected atomic.Int64
	var wg sync.WaitGroup
	for i := range load.requests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(i)))
			flow := rng.IntN(load.flows)
			work := request.WorkEstimate{InitialSeats: uint64(1 + rng.IntN(load.maxWidth))}
			if rng.IntN(3) == 0 {
				work.FinalSeats = uint64(1 + rng.IntN(load.maxWidth))
				work.AdditionalLatency = time.Duration(1+rng.IntN(20)) * time.Millisecond
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if load.cancelOneIn > 0 && rng.IntN(load.cancelOneIn) == 0 {
				go func() { runtime.Gosched(); cancel() }()
			}
			req, reason := qs.StartRequest(ctx, work, Flow{Hash: uint64(flow) * 0x9e3779b97f4a7c15, Schema: fmt.Sprint("fs", flow)}, nil)
			if req == nil {
				if reason == NotRejected {
					t.Error("a nil request without a reason")
				}
				rejected.Add(1)
				return
			}
			if req.Finish(func() {
				for range rng.IntN(3) {
					runtime.Gosched()
				}
			}) {
				executed.Add(1)
			} else {
				if req.RejectReason() == NotRejected {
					t.Error("a request not executed without a reason")
				}
				rejected.Add(1)
			}
		}()
	}
	wg.Wait()
	close(stop)
	stepper.Wait()
	clock.Step(time.Second) // the last final seats
	if got := executed.Load() + rejected.Load(); got != int64(load.requests) {
		t.Errorf("%d requests accounted for, want %d", got, load.requests)
	}
	if got := qs.Counts(); got != (Counts{}) {
		t.Errorf("counts at the end %+v, want zero", got)
	}
	if !qs.IsIdle() {
		t.Error("the set is not idle at the end")
	}
	d := qs.Dump(false)
	if int64(d.Dispatched) != executed.Load() || int64(d.Rejected) != rejected.Load() {
		t.Errorf("dump totals dispatched %d rejected %d, want %d and %d", d.Dispatched, d.Rejected, executed.Load(), rejected.Load())
	}
	for fs, v := range chk.executing {
		if v != [2]int{} {
			t.Errorf("observed executing for %s at the end: %v", fs, v)
		}
	}
	for fs, v := range chk.inQueue {
		if v != [2]int{} {
			t.Errorf("observed in queue for %s at the end: %v", fs, v)
		}
	}
	if n := count(chk.dispatches(), ""); n != 0 {
		t.Errorf("%d dispatches without a flow schema", n)
	}
	if int64(len(chk.dispatches())) != executed.Load() {
		t.Errorf("observed %d dispatches, %d executed", len(chk.dispatches()), executed.Load())
	}
}

// Many requests at once, some cancelled, of random widths and final
// seats: the seats in use never exceed the limit and everything is
// given back at the end.
func TestRandomLoadKeepsTheAccountsStraight(t *testing.T) {
	for seed := range uint64(3) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			runRandomLoad(t, seed, randomLoad{requests: 300, flows: 6, maxWidth: 3, cancelOneIn: 5, limit: 4, checkMaxSeat: true})
		})
	}
}

// The same while the limit and the number of queues change under the
// load.
func TestRandomLoadWithReconfiguration(t *testing.T) {
	for seed := range uint64(3) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			runRandomLoad(t, seed, randomLoad{requests: 300, flows: 6, maxWidth: 3, cancelOneIn: 5, limit: 4, reconfigure: true})
		})
	}
}

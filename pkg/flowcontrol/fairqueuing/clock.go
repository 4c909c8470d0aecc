package fairqueuing

import (
	"sort"
	"sync"
	"time"
)

// Clock is the time a queue set reads: when requests arrive, start and
// finish, how fast virtual time advances, and when a request's final
// seats are released.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f, in a goroutine of its own or the clock's,
	// once d has passed.
	AfterFunc(d time.Duration, f func())
}

// RealClock is the wall clock.
func RealClock() Clock { return realClock{} }

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) AfterFunc(d time.Duration, f func()) { time.AfterFunc(d, f) }

// FakeClock is a Clock that moves only when told to, so that tests
// drive time without sleeping. Functions scheduled with AfterFunc run
// in the goroutine that steps the clock past their time, in time
// order, after the clock has moved.
type FakeClock struct {
	mu      sync.Mutex
	now     time.Time
	pending []fakeEvent
}

type fakeEvent struct {
	at time.Time
	f  func()
}

// NewFakeClock returns a FakeClock reading t.
func NewFakeClock(t time.Time) *FakeClock {
	return &FakeClock{now: t}
}

// Now implements Clock.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc implements Clock. A d of zero or less runs f at the next
// Step.
func (c *FakeClock) AfterFunc(d time.Duration, f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending = append(c.pending, fakeEvent{at: c.now.Add(d), f: f})
}

// Step moves the clock forward by d and runs the functions that have
// become due, each with the clock at its own time.
func (c *FakeClock) Step(d time.Duration) {
	c.mu.Lock()
	end := c.now.Add(d)
	c.mu.Unlock()
	for {
		c.mu.Lock()
		sort.SliceStable(c.pending, func(i, j int) bool { return c.pending[i].at.Before(c.pending[j].at) })
		if len(c.pending) == 0 || c.pending[0].at.After(end) {
			c.now = end
			c.mu.Unlock()
			return
		}
		ev := c.pending[0]
		c.pending = c.pending[1:]
		if ev.at.After(c.now) {
			c.now = ev.at
		}
		c.mu.Unlock()
		ev.f()
	}
}

// Pending is the number of functions waiting for their time.
func (c *FakeClock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pending)
}

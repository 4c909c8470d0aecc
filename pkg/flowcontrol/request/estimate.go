// Package request estimates the work of a request for API priority and
// fairness: how many seats of its priority level's concurrency it
// occupies, and for how long after it returns.
package request

import "time"

// WorkEstimate is the work a request costs its priority level, in seats
// (one seat is one unit of the level's concurrency limit).
//
// A request holds InitialSeats while it executes. A mutating request whose
// change the server must still deliver to watchers holds FinalSeats for
// AdditionalLatency after it has returned: the notifications are work the
// request caused, done after its response.
type WorkEstimate struct {
	// InitialSeats is at least 1.
	InitialSeats uint64
	// FinalSeats is 0 for most requests.
	FinalSeats        uint64
	AdditionalLatency time.Duration
}

// MaxSeats is the larger of the two seat counts: what the request needs
// free at once to be dispatched.
func (e WorkEstimate) MaxSeats() uint64 {
	return max(e.InitialSeats, e.FinalSeats)
}

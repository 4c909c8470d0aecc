package fairqueuing

import (
	"time"

	"github.com/kapi-dev/kapi/pkg/flowcontrol/request"
)

// Config is the configuration of one limited priority level's queue
// set, from its PriorityLevelConfiguration and the level's current
// concurrency limit.
type Config struct {
	// Name is the priority level's name; it labels the set's metrics.
	Name string
	// Queues is the number of queues; 0 means the level does not queue
	// (limitResponse Reject): what does not fit at once is rejected.
	Queues int
	// HandSize is the number of queues shuffle sharding deals a flow.
	// Only meaningful when Queues > 0.
	HandSize int
	// QueueLengthLimit is the most requests one queue holds.
	QueueLengthLimit int
	// ConcurrencyLimit is the number of seats requests may occupy at
	// once. 0 admits one request at a time.
	ConcurrencyLimit int
}

// Flow identifies the flow a request belongs to: the flow schema that
// matched it and the distinguisher (user or namespace, or none) its
// distinguisher method gave. Hash is the caller's hash of both, the
// entropy shuffle sharding deals from.
type Flow struct {
	Hash          uint64
	Schema        string
	Distinguisher string
}

// RejectReason says why a request was not executed. The values are
// the reason label of apiserver_flowcontrol_rejected_requests_total.
type RejectReason string

const (
	// NotRejected is the reason of a request that was not rejected.
	NotRejected RejectReason = ""
	// QueueFull: every seat was taken and the chosen queue was at its
	// length limit.
	QueueFull RejectReason = "queue-full"
	// ConcurrencyLimit: a level that does not queue had no room.
	ConcurrencyLimit RejectReason = "concurrency-limit"
	// TimeOut: the request's context reached its deadline while the
	// request waited in its queue.
	TimeOut RejectReason = "time-out"
	// Cancelled: the request's context was cancelled while the request
	// waited in its queue. kube-apiserver counts it in the metrics as
	// time-out, and so does kapi; the reason tells the caller which.
	Cancelled RejectReason = "cancelled"
)

// Counts are the instantaneous totals of a queue set.
type Counts struct {
	WaitingRequests   int
	ExecutingRequests int
	// WaitingSeats is the sum of the seats the waiting requests need.
	WaitingSeats int
	// SeatsInUse counts the seats of executing requests and of those
	// still holding their final seats.
	SeatsInUse int
}

// Dump is an instant picture of a queue set, for the debug endpoints
// /debug/api_priority_and_fairness/dump_*.
type Dump struct {
	Queues []QueueDump
	// QueuelessExecuting are the executing requests that were never
	// queued (every request of an exempt level or of a level that does
	// not queue), in the order they started.
	QueuelessExecuting []RequestDump
	Counts
	// Totals since the set was created.
	Dispatched, Rejected, TimedOut, Cancelled int
}

// QueueDump is one queue of a Dump.
type QueueDump struct {
	Index int
	// Waiting are the queued requests, oldest first.
	Waiting []RequestDump
	// Executing are the requests dispatched from this queue that are
	// executing, in the order they started.
	Executing         []RequestDump
	ExecutingRequests int
	SeatsInUse        int
	// NextDispatchR is the virtual time at which the queue's next
	// request starts.
	NextDispatchR SeatSeconds
	// Sums over the waiting requests.
	InitialSeatsSum int
	MaxSeatsSum     int
	TotalWorkSum    SeatSeconds
}

// RequestDump is one request of a Dump.
type RequestDump struct {
	FlowSchema    string
	Distinguisher string
	Arrival       time.Time
	// Start is when the request was dispatched; zero while it waits.
	Start time.Time
	Work  request.WorkEstimate
	// Descr is what the caller gave StartRequest, when Dump was asked
	// for details; nil otherwise.
	Descr any
}

// SeatDemand summarizes, over a period, the seats a level could have
// used: those in use plus those its waiting requests need. Borrowing
// reads it every adjustment period.
type SeatDemand struct {
	// Duration of the period.
	Duration time.Duration
	// Average and StdDev are weighted by time. Both are NaN for a
	// period of no duration.
	Average, StdDev float64
	// HighWatermark is the most seats wanted at any moment.
	HighWatermark float64
}

// Observer is told what happens in a queue set, for metrics. Each
// method is called with the set's lock held: it must be quick and must
// not call back into the set. pkg/flowcontrol/metrics implements it.
type Observer interface {
	// ObserveLimits gives the denominators of the utilization
	// histograms: the concurrency limit in seats and the number of
	// requests the queues hold at most.
	ObserveLimits(concurrencyLimit, queueCapacity int)
	// ObserveArrival: a request of flowSchema estimated at seats
	// (its MaxSeats) arrived.
	ObserveArrival(flowSchema string, seats int)
	// ObserveRejected: a request was rejected.
	ObserveRejected(flowSchema string, reason string)
	// ObserveEnqueued: a request entered a queue, which holds
	// queueLength requests now.
	ObserveEnqueued(flowSchema string, seats, queueLength int)
	// ObserveDequeued: a request left its queue, dispatched or not.
	ObserveDequeued(flowSchema string, seats int)
	// ObserveWait: a request of a limited level waited for wait before
	// it was dispatched (executed) or rejected (not executed).
	ObserveWait(flowSchema string, executed bool, wait time.Duration)
	// ObserveDispatched: a request starts executing.
	ObserveDispatched(flowSchema string)
	// ObserveExecuting adds requests and seats (either may be negative
	// or zero) to what flowSchema has executing.
	ObserveExecuting(flowSchema string, requests, seats int)
	// ObserveNoAccommodation: the request picked for dispatch did not
	// fit in the free seats.
	ObserveNoAccommodation(flowSchema string)
	// ObserveTotals gives the set's totals after a change; seatDemand
	// is the seats in use plus the seats the waiting requests need.
	ObserveTotals(waitingRequests, executingRequests, seatsInUse, seatDemand int)
	// ObserveR gives the progress meter R after it was brought up to
	// date.
	ObserveR(r float64)
	// ObserveDispatchR gives, at a dispatch from the queues: R, the
	// dispatched queue's start S, and the least and greatest start of
	// the queues with requests waiting, plain and less the estimated
	// work in progress.
	ObserveDispatchR(r, s, sMin, sMax, discountedSMin, discountedSMax float64)
	// ObserveEpochAdvance: R came so near overflowing that it and every
	// reading of it were wound back; success is false if a reading
	// underflowed.
	ObserveEpochAdvance(success bool)
}

// QueueNoter may be implemented by the descr a request is started with:
// the set then calls NoteQueued(true) when the request enters a queue
// and NoteQueued(false) when it leaves it, dispatched or not (kube's
// queueNoteFn). The filter counts waiting requests by kind with it. It
// is called with the set's lock held: it must be quick and must not
// call back into the set. Requests that never queue (exempt levels,
// levels without queues) are not noted.
type QueueNoter interface {
	NoteQueued(inQueue bool)
}

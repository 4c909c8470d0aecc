package fairqueuing

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/kapi-dev/kapi/pkg/flowcontrol/request"
)

// estimatedServiceDuration is G, the service time every request is
// assumed to take until it has finished (kube-apiserver's 3ms).
const estimatedServiceDuration = 3 * time.Millisecond

// Virtual time is a uint64: when R comes within a quarter of its range
// of overflowing, R and every reading of it are wound back by half the
// range (an epoch advance). At the rates seats allow that is years away.
const (
	rDecrement = MaxSeatSeconds / 2
	highR      = rDecrement + rDecrement/2
)

// Options are what a QueueSet is built with besides its Config.
type Options struct {
	// Clock defaults to RealClock.
	Clock Clock
	// Observer, when not nil, is told what happens, for metrics.
	Observer Observer
}

// QueueSet is the queuing and dispatching of one priority level. Its
// methods are safe for concurrent use.
type QueueSet struct {
	clock  Clock
	obs    Observer
	exempt bool

	mu  sync.Mutex
	cfg Config
	// dealer deals hands of cfg.Queues queues; unset when cfg.Queues
	// is 0.
	dealer dealer
	// queues may outnumber cfg.Queues after a reconfiguration, until
	// the extra ones are empty.
	queues []*queue
	// queueless are the executing requests that were never queued.
	queueless map[*Request]struct{}

	r        SeatSeconds
	lastSync time.Time
	// robin is the index of the queue dispatched from last.
	robin int
	// enqueues counts the requests ever queued; it rotates where the
	// search of a hand for the shortest queue starts.
	enqueues int

	waiting, executing       int
	seatsWaiting, seatsInUse int
	dispatched, rejected     int
	timedOut, cancelled      int
	demand                   integrator
}

type queue struct {
	index     int
	waiting   []*Request
	executing map[*Request]struct{}
	// seatsInUse counts the seats of the queue's executing requests and
	// of those still holding their final seats.
	seatsInUse    int
	nextDispatchR SeatSeconds
	// Sums over waiting.
	initialSeatsSum, maxSeatsSum int
	totalWorkSum                 SeatSeconds
}

func (q *queue) idle() bool {
	return len(q.waiting) == 0 && len(q.executing) == 0
}

// requestState is where a request is in its life.
type requestState int

const (
	stateWaiting requestState = iota
	stateExecuting
	stateRejected
)

// Request is a request admitted to a queue set, waiting or executing.
// Its owner must call Finish exactly once.
type Request struct {
	qs    *QueueSet
	ctx   context.Context
	flow  Flow
	descr any
	work  request.WorkEstimate
	// totalWork is the request's work in seat-seconds: its initial
	// seats for G plus finalWork, its final seats for its additional
	// latency.
	totalWork SeatSeconds
	finalWork SeatSeconds
	queue     *queue
	arrival   time.Time
	arrivalR  SeatSeconds
	start     time.Time

	// Guarded by qs.mu.
	state    requestState
	reason   RejectReason
	finished bool
	// decided is closed when state leaves stateWaiting.
	decided chan struct{}
}

// New returns the queue set of a limited priority level.
func New(cfg Config, opts Options) (*QueueSet, error) {
	d, err := checkConfig(cfg)
	if err != nil {
		return nil, err
	}
	qs := newSet(cfg.Name, opts)
	qs.mu.Lock()
	defer qs.mu.Unlock()
	qs.configureLocked(cfg, d)
	return qs, nil
}

// NewExempt returns the set of an exempt priority level: it never
// queues nor rejects, and counts what executes.
func NewExempt(name string, opts Options) *QueueSet {
	qs := newSet(name, opts)
	qs.exempt = true
	qs.mu.Lock()
	defer qs.mu.Unlock()
	qs.observeLimitsLocked()
	qs.observeTotalsLocked()
	return qs
}

func newSet(name string, opts Options) *QueueSet {
	clock := opts.Clock
	if clock == nil {
		clock = RealClock()
	}
	now := clock.Now()
	qs := &QueueSet{
		clock:     clock,
		obs:       opts.Observer,
		cfg:       Config{Name: name},
		queueless: map[*Request]struct{}{},
		lastSync:  now,
		demand:    newIntegrator(now),
	}
	if qs.obs != nil {
		qs.obs.ObserveR(0)
	}
	return qs
}

func checkConfig(cfg Config) (dealer, error) {
	switch {
	case cfg.Queues < 0:
		return dealer{}, fmt.Errorf("queues %d is negative", cfg.Queues)
	case cfg.ConcurrencyLimit < 0:
		return dealer{}, fmt.Errorf("concurrency limit %d is negative", cfg.ConcurrencyLimit)
	case cfg.Queues == 0:
		return dealer{}, nil
	case cfg.QueueLengthLimit <= 0:
		return dealer{}, fmt.Errorf("queue length limit %d is not positive", cfg.QueueLengthLimit)
	}
	d, err := newDealer(cfg.Queues, cfg.HandSize)
	if err != nil {
		return dealer{}, fmt.Errorf("invalid shuffle sharding (queues are the deck): %w", err)
	}
	return d, nil
}

// Name is the priority level's name.
func (qs *QueueSet) Name() string {
	qs.mu.Lock()
	defer qs.mu.Unlock()
	return qs.cfg.Name
}

// Config is the set's configuration now.
func (qs *QueueSet) Config() Config {
	qs.mu.Lock()
	defer qs.mu.Unlock()
	return qs.cfg
}

// Configure changes the configuration; requests already queued or
// executing stay. More queues are added at once; fewer take effect as
// the extra queues empty. With no queues, requests already queued still
// dispatch, new ones are admitted or rejected at once. An exempt set
// keeps only the name and the concurrency limit (which only scales its
// utilization metrics).
func (qs *QueueSet) Configure(cfg Config) error {
	d, err := checkConfig(cfg)
	if err != nil {
		return err
	}
	qs.mu.Lock()
	defer qs.mu.Unlock()
	qs.syncTimeLocked()
	if qs.exempt {
		qs.cfg.Name, qs.cfg.ConcurrencyLimit = cfg.Name, cfg.ConcurrencyLimit
		qs.observeLimitsLocked()
		return nil
	}
	qs.configureLocked(cfg, d)
	return nil
}

func (qs *QueueSet) configureLocked(cfg Config, d dealer) {
	qs.cfg = cfg
	qs.dealer = d
	for len(qs.queues) < cfg.Queues {
		qs.queues = append(qs.queues, &queue{index: len(qs.queues), executing: map[*Request]struct{}{}})
	}
	qs.pruneQueuesLocked()
	qs.observeLimitsLocked()
	qs.dispatchLocked()
	qs.observeTotalsLocked()
}

// SetConcurrencyLimit changes the number of seats at once: borrowing
// calls it every adjustment period. A higher limit dispatches what now
// fits; a lower one lets executing requests finish.
func (qs *QueueSet) SetConcurrencyLimit(seats int) {
	seats = max(seats, 0)
	qs.mu.Lock()
	defer qs.mu.Unlock()
	qs.syncTimeLocked()
	qs.cfg.ConcurrencyLimit = seats
	qs.observeLimitsLocked()
	qs.dispatchLocked()
	qs.observeTotalsLocked()
}

// StartRequest admits a request of the given work and flow, or rejects
// it (a nil Request and the reason). descr is kept for Dump. The request
// is queued or dispatched at once; Finish waits for the dispatch.
// When ctx ends while the request waits, it leaves its queue unexecuted.
func (qs *QueueSet) StartRequest(ctx context.Context, work request.WorkEstimate, flow Flow, descr any) (*Request, RejectReason) {
	if work.InitialSeats == 0 {
		work.InitialSeats = 1
	}
	qs.mu.Lock()
	defer qs.mu.Unlock()
	qs.syncTimeLocked()
	now := qs.clock.Now()
	req := &Request{
		qs:       qs,
		ctx:      ctx,
		flow:     flow,
		descr:    descr,
		work:     work,
		arrival:  now,
		arrivalR: qs.r,
		decided:  make(chan struct{}),
	}
	req.finalWork = SeatsTimesDuration(float64(work.FinalSeats), work.AdditionalLatency)
	req.totalWork = SeatsTimesDuration(float64(work.InitialSeats), estimatedServiceDuration) + req.finalWork
	seats := req.seats()
	if qs.obs != nil {
		qs.obs.ObserveArrival(flow.Schema, seats)
	}

	switch {
	case qs.exempt:
		qs.startQueuelessLocked(req)
		return req, NotRejected
	case qs.cfg.Queues == 0:
		work := qs.cappedLocked(req)
		if !qs.fitsLocked(int(work.MaxSeats())) {
			qs.rejectLocked(req, ConcurrencyLimit)
			return nil, ConcurrencyLimit
		}
		req.work = work
		if qs.obs != nil {
			qs.obs.ObserveWait(flow.Schema, true, 0)
		}
		qs.startQueuelessLocked(req)
		return req, NotRejected
	}

	q := qs.queues[qs.shuffleShardLocked(flow.Hash)]
	if qs.seatsInUse >= qs.limitLocked() && len(q.waiting) >= qs.cfg.QueueLengthLimit {
		qs.rejectLocked(req, QueueFull)
		return nil, QueueFull
	}
	qs.enqueueLocked(req, q)
	qs.dispatchLocked()
	qs.observeTotalsLocked()
	return req, NotRejected
}

// seats is what the request holds while it executes.
func (req *Request) seats() int {
	return int(req.work.MaxSeats())
}

func (qs *QueueSet) rejectLocked(req *Request, reason RejectReason) {
	qs.rejected++
	if qs.obs != nil {
		qs.obs.ObserveRejected(req.flow.Schema, string(reason))
		qs.obs.ObserveWait(req.flow.Schema, false, 0)
	}
}

// limitLocked is the number of seats requests may hold: the concurrency
// limit, but at least one, so that a level whose seats were all lent
// is slowed to one request at a time rather than starved.
func (qs *QueueSet) limitLocked() int {
	return max(1, qs.cfg.ConcurrencyLimit)
}

// fitsLocked says whether a request of seats can start now.
func (qs *QueueSet) fitsLocked(seats int) bool {
	return qs.exempt || qs.seatsInUse+seats <= qs.limitLocked()
}

// cappedLocked is the work of req if it starts now: no seat count above
// the limit. Final seats so capped hold on longer, so that the work stays
// the same; initial seats so capped just run narrower.
func (qs *QueueSet) cappedLocked(req *Request) request.WorkEstimate {
	w := req.work
	if qs.exempt {
		return w
	}
	limit := uint64(qs.limitLocked())
	w.InitialSeats = min(w.InitialSeats, limit)
	if w.FinalSeats > limit {
		w.AdditionalLatency = req.finalWork.DurationPerSeat(float64(limit))
		w.FinalSeats = limit
	}
	return w
}

func (qs *QueueSet) startQueuelessLocked(req *Request) {
	qs.queueless[req] = struct{}{}
	qs.startLocked(req)
	qs.observeTotalsLocked()
}

// startLocked marks req executing and takes its seats.
func (qs *QueueSet) startLocked(req *Request) {
	req.state = stateExecuting
	req.start = qs.clock.Now()
	close(req.decided)
	seats := req.seats()
	qs.executing++
	qs.seatsInUse += seats
	qs.dispatched++
	if req.queue != nil {
		req.queue.executing[req] = struct{}{}
		req.queue.seatsInUse += seats
	}
	if qs.obs != nil {
		qs.obs.ObserveDispatched(req.flow.Schema)
		qs.obs.ObserveExecuting(req.flow.Schema, 1, seats)
	}
}

// shuffleShardLocked picks the queue of a new request: of the hand the
// hash deals, the queue with the least work waiting. The search starts
// at a different card of the hand each time, so that ties rotate.
func (qs *QueueSet) shuffleShardLocked(hash uint64) int {
	var buf [8]int
	hand := qs.dealer.deal(hash, buf[:0])
	offset := qs.enqueues % len(hand)
	qs.enqueues++
	best, bestWork := -1, MaxSeatSeconds
	for i := range hand {
		idx := hand[(offset+i)%len(hand)]
		if w := qs.queues[idx].totalWorkSum; best < 0 || w < bestWork {
			best, bestWork = idx, w
		}
	}
	return best
}

func (qs *QueueSet) enqueueLocked(req *Request, q *queue) {
	if q.idle() {
		q.nextDispatchR = qs.r
	}
	req.queue = q
	q.waiting = append(q.waiting, req)
	q.initialSeatsSum += int(req.work.InitialSeats)
	q.maxSeatsSum += req.seats()
	q.totalWorkSum += req.totalWork
	qs.waiting++
	qs.seatsWaiting += req.seats()
	if qs.obs != nil {
		qs.obs.ObserveEnqueued(req.flow.Schema, req.seats(), len(q.waiting))
	}
	if n, ok := req.descr.(QueueNoter); ok {
		n.NoteQueued(true)
	}
	qs.boundNextDispatchLocked(q)
}

// removeWaitingLocked takes a waiting request out of its queue. The
// caller bounds the queue's next dispatch once it is done with the
// queue.
func (qs *QueueSet) removeWaitingLocked(req *Request) {
	q := req.queue
	for i, r := range q.waiting {
		if r == req {
			q.waiting = append(q.waiting[:i], q.waiting[i+1:]...)
			break
		}
	}
	q.initialSeatsSum -= int(req.work.InitialSeats)
	q.maxSeatsSum -= req.seats()
	q.totalWorkSum -= req.totalWork
	qs.waiting--
	qs.seatsWaiting -= req.seats()
	if qs.obs != nil {
		qs.obs.ObserveDequeued(req.flow.Schema, req.seats())
	}
	if n, ok := req.descr.(QueueNoter); ok {
		n.NoteQueued(false)
	}
}

// giveUpLocked takes a waiting request whose context ended out of its
// queue, unexecuted.
func (qs *QueueSet) giveUpLocked(req *Request) {
	qs.removeWaitingLocked(req)
	qs.boundNextDispatchLocked(req.queue)
	req.state = stateRejected
	req.reason = Cancelled
	qs.rejected++
	if errors.Is(req.ctx.Err(), context.DeadlineExceeded) {
		req.reason = TimeOut
		qs.timedOut++
	} else {
		qs.cancelled++
	}
	close(req.decided)
	if qs.obs != nil {
		// kube-apiserver labels both time-out.
		qs.obs.ObserveRejected(req.flow.Schema, string(TimeOut))
		qs.obs.ObserveWait(req.flow.Schema, false, qs.clock.Now().Sub(req.arrival))
	}
	qs.pruneQueuesLocked()
}

// boundNextDispatchLocked keeps a queue from banking virtual time it
// could not use: its next dispatch is never before its head arrived.
func (qs *QueueSet) boundNextDispatchLocked(q *queue) {
	if len(q.waiting) == 0 {
		return
	}
	if head := q.waiting[0]; q.nextDispatchR < head.arrivalR {
		q.nextDispatchR = head.arrivalR
	}
}

// dispatchLocked dispatches requests while the next one fits.
func (qs *QueueSet) dispatchLocked() {
	for qs.waiting > 0 && qs.seatsInUse < qs.limitLocked() && qs.dispatchOneLocked() {
	}
}

// dispatchOneLocked dispatches the head of the queue whose head would
// finish first in virtual time, if it fits. A request whose context has
// ended is dropped instead. It reports whether a request left a queue.
func (qs *QueueSet) dispatchOneLocked() bool {
	var best *queue
	bestIdx := 0
	bestFinish := MaxSeatSeconds
	sMin, dsMin := MaxSeatSeconds, MaxSeatSeconds
	var sMax, dsMax SeatSeconds
	n := len(qs.queues)
	idx := qs.robin
	for range n {
		idx = (idx + 1) % n
		q := qs.queues[idx]
		if len(q.waiting) == 0 {
			continue
		}
		sMin, sMax = min(sMin, q.nextDispatchR), max(sMax, q.nextDispatchR)
		inProgress := SeatsTimesDuration(float64(q.seatsInUse), estimatedServiceDuration)
		discounted := SeatSeconds(0)
		if q.nextDispatchR > inProgress {
			discounted = q.nextDispatchR - inProgress
		}
		dsMin, dsMax = min(dsMin, discounted), max(dsMax, discounted)
		if finish := q.nextDispatchR + q.waiting[0].totalWork; best == nil || finish < bestFinish {
			best, bestIdx, bestFinish = q, idx, finish
		}
	}
	if best == nil {
		return false
	}
	req := best.waiting[0]
	if req.ctx.Err() != nil {
		qs.giveUpLocked(req)
		return true
	}
	work := qs.cappedLocked(req)
	if !qs.fitsLocked(int(work.MaxSeats())) {
		if qs.obs != nil {
			qs.obs.ObserveNoAccommodation(req.flow.Schema)
		}
		return false
	}
	qs.robin = bestIdx
	if qs.obs != nil {
		qs.obs.ObserveDispatchR(qs.r.Float(), best.nextDispatchR.Float(), sMin.Float(), sMax.Float(), dsMin.Float(), dsMax.Float())
	}
	qs.removeWaitingLocked(req)
	req.work = work
	best.nextDispatchR += req.totalWork
	qs.boundNextDispatchLocked(best)
	qs.startLocked(req)
	if qs.obs != nil {
		qs.obs.ObserveWait(req.flow.Schema, true, req.start.Sub(req.arrival))
	}
	return true
}

// Finish waits until the request is dispatched, runs execute, and
// reports whether it did. The request then holds its seats for its
// AdditionalLatency without blocking the caller. If the request's
// context ends while it waits, it leaves its queue and Finish returns
// false without running execute; RejectReason says why.
func (req *Request) Finish(execute func()) (executed bool) {
	qs := req.qs
	select {
	case <-req.decided:
	case <-req.ctx.Done():
	}
	qs.mu.Lock()
	if req.finished {
		// A second call is a bug of the caller; it executes nothing.
		qs.mu.Unlock()
		return false
	}
	req.finished = true
	if req.state == stateWaiting {
		qs.syncTimeLocked()
		qs.giveUpLocked(req)
		qs.dispatchLocked()
		qs.observeTotalsLocked()
	}
	state := req.state
	qs.mu.Unlock()
	if state != stateExecuting {
		return false
	}
	defer qs.finishExecution(req)
	execute()
	return true
}

// RejectReason is why the request was not executed, once Finish has
// returned false; NotRejected otherwise.
func (req *Request) RejectReason() RejectReason {
	req.qs.mu.Lock()
	defer req.qs.mu.Unlock()
	return req.reason
}

// finishExecution ends the request's execution and releases its seats,
// at once or after its additional latency.
func (qs *QueueSet) finishExecution(req *Request) {
	qs.mu.Lock()
	defer qs.mu.Unlock()
	qs.syncTimeLocked()
	qs.executing--
	if qs.obs != nil {
		qs.obs.ObserveExecuting(req.flow.Schema, -1, 0)
	}
	if q := req.queue; q != nil {
		delete(q.executing, req)
		// Credit (or charge) the queue the difference between the
		// service time guessed at dispatch and the real one.
		ran := qs.clock.Now().Sub(req.start)
		if ran > estimatedServiceDuration {
			q.nextDispatchR += SeatsTimesDuration(float64(req.work.InitialSeats), ran-estimatedServiceDuration)
		} else {
			credit := SeatsTimesDuration(float64(req.work.InitialSeats), estimatedServiceDuration-ran)
			q.nextDispatchR -= min(credit, q.nextDispatchR)
		}
		qs.boundNextDispatchLocked(q)
	} else {
		delete(qs.queueless, req)
	}
	if req.work.AdditionalLatency <= 0 {
		qs.releaseSeatsLocked(req)
		return
	}
	// The seats stay taken, but the credit may have made another queue's
	// head the next to go, one that fits where the last one did not.
	qs.dispatchLocked()
	qs.observeTotalsLocked()
	qs.clock.AfterFunc(req.work.AdditionalLatency, func() {
		qs.mu.Lock()
		defer qs.mu.Unlock()
		qs.syncTimeLocked()
		qs.releaseSeatsLocked(req)
	})
}

func (qs *QueueSet) releaseSeatsLocked(req *Request) {
	seats := req.seats()
	qs.seatsInUse -= seats
	if req.queue != nil {
		req.queue.seatsInUse -= seats
	}
	if qs.obs != nil {
		qs.obs.ObserveExecuting(req.flow.Schema, 0, -seats)
	}
	qs.pruneQueuesLocked()
	qs.dispatchLocked()
	qs.observeTotalsLocked()
}

// pruneQueuesLocked removes extra queues once they are empty.
func (qs *QueueSet) pruneQueuesLocked() {
	if len(qs.queues) <= qs.cfg.Queues {
		return
	}
	kept := qs.queues[:0]
	extra := len(qs.queues) - qs.cfg.Queues
	for i, q := range qs.queues {
		if extra > 0 && q.idle() && q.seatsInUse == 0 {
			extra--
			if qs.robin >= i && qs.robin > 0 {
				qs.robin--
			}
			continue
		}
		q.index = len(kept)
		kept = append(kept, q)
	}
	clear(qs.queues[len(kept):])
	qs.queues = kept
	if len(qs.queues) > 0 {
		qs.robin %= len(qs.queues)
	} else {
		qs.robin = 0
	}
}

// syncTimeLocked brings R up to now: since the last sync, the busy
// queues shared min(limit, seats wanted) seats evenly.
func (qs *QueueSet) syncTimeLocked() {
	now := qs.clock.Now()
	elapsed := now.Sub(qs.lastSync)
	if elapsed <= 0 {
		return
	}
	qs.lastSync = now
	busy, wanted := 0, 0
	for _, q := range qs.queues {
		wanted += q.seatsInUse + q.maxSeatsSum
		if !q.idle() {
			busy++
		}
	}
	if busy == 0 {
		return
	}
	rate := float64(min(wanted, qs.cfg.ConcurrencyLimit)) / float64(busy)
	qs.r += SeatsTimesDuration(rate, elapsed)
	if qs.r >= highR {
		qs.advanceEpochLocked()
	}
	if qs.obs != nil {
		qs.obs.ObserveR(qs.r.Float())
	}
}

func (qs *QueueSet) advanceEpochLocked() {
	qs.r -= rDecrement
	success := true
	for _, q := range qs.queues {
		if q.idle() {
			q.nextDispatchR = 0
			continue
		}
		if q.nextDispatchR < rDecrement {
			success = false
		}
		q.nextDispatchR -= rDecrement
		for _, req := range q.waiting {
			if req.arrivalR < rDecrement {
				success = false
			}
			req.arrivalR -= rDecrement
		}
	}
	if qs.obs != nil {
		qs.obs.ObserveEpochAdvance(success)
	}
}

func (qs *QueueSet) observeLimitsLocked() {
	if qs.obs == nil {
		return
	}
	capacity := max(1, qs.cfg.QueueLengthLimit) * max(1, qs.cfg.Queues)
	qs.obs.ObserveLimits(qs.cfg.ConcurrencyLimit, capacity)
}

// observeTotalsLocked feeds the seat demand integrator and the
// observer after a change.
func (qs *QueueSet) observeTotalsLocked() {
	demand := qs.seatsInUse + qs.seatsWaiting
	qs.demand.set(qs.clock.Now(), float64(demand))
	if qs.obs != nil {
		qs.obs.ObserveTotals(qs.waiting, qs.executing, qs.seatsInUse, demand)
	}
}

// Counts are the set's totals now.
func (qs *QueueSet) Counts() Counts {
	qs.mu.Lock()
	defer qs.mu.Unlock()
	return qs.countsLocked()
}

func (qs *QueueSet) countsLocked() Counts {
	return Counts{
		WaitingRequests:   qs.waiting,
		ExecutingRequests: qs.executing,
		WaitingSeats:      qs.seatsWaiting,
		SeatsInUse:        qs.seatsInUse,
	}
}

// IsIdle says whether no request waits, executes or holds seats.
func (qs *QueueSet) IsIdle() bool {
	qs.mu.Lock()
	defer qs.mu.Unlock()
	return qs.waiting == 0 && qs.executing == 0 && qs.seatsInUse == 0
}

// ReadSeatDemand returns the statistics of the seat demand since the
// last read (or since the set was created) and starts a new period.
func (qs *QueueSet) ReadSeatDemand() SeatDemand {
	qs.mu.Lock()
	defer qs.mu.Unlock()
	return qs.demand.reset(qs.clock.Now())
}

// Dump is a picture of the set now. With details, each request's
// descr is included.
func (qs *QueueSet) Dump(includeDetails bool) Dump {
	qs.mu.Lock()
	defer qs.mu.Unlock()
	d := Dump{
		Queues:     make([]QueueDump, len(qs.queues)),
		Counts:     qs.countsLocked(),
		Dispatched: qs.dispatched,
		Rejected:   qs.rejected,
		TimedOut:   qs.timedOut,
		Cancelled:  qs.cancelled,
	}
	d.QueuelessExecuting = dumpSet(qs.queueless, includeDetails)
	for i, q := range qs.queues {
		qd := QueueDump{
			Index:             i,
			ExecutingRequests: len(q.executing),
			SeatsInUse:        q.seatsInUse,
			NextDispatchR:     q.nextDispatchR,
			InitialSeatsSum:   q.initialSeatsSum,
			MaxSeatsSum:       q.maxSeatsSum,
			TotalWorkSum:      q.totalWorkSum,
		}
		for _, req := range q.waiting {
			qd.Waiting = append(qd.Waiting, req.dump(includeDetails))
		}
		qd.Executing = dumpSet(q.executing, includeDetails)
		d.Queues[i] = qd
	}
	return d
}

// dumpSet dumps executing requests in the order they started.
func dumpSet(set map[*Request]struct{}, includeDetails bool) []RequestDump {
	var ds []RequestDump
	for req := range set {
		ds = append(ds, req.dump(includeDetails))
	}
	slices.SortStableFunc(ds, func(a, b RequestDump) int {
		if c := a.Start.Compare(b.Start); c != 0 {
			return c
		}
		return a.Arrival.Compare(b.Arrival)
	})
	return ds
}

func (req *Request) dump(includeDetails bool) RequestDump {
	rd := RequestDump{
		FlowSchema:    req.flow.Schema,
		Distinguisher: req.flow.Distinguisher,
		Arrival:       req.arrival,
		Start:         req.start,
		Work:          req.work,
	}
	if includeDetails {
		rd.Descr = req.descr
	}
	return rd
}

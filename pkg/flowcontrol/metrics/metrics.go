// Package metrics defines every apiserver_flowcontrol_* series of API
// priority and fairness, once, with kube-apiserver 1.37's names, help
// texts, types, labels and buckets, and apiserver_current_inqueue_requests,
// which only priority and fairness records.
//
// A Metrics is created per server and registered on the server's
// pkg/metrics.Registry. Each priority level gets a Level, which is the
// Observer its queue set (pkg/flowcontrol/fairqueuing) reports to, and
// which carries the series the configuration controller sets for the
// level (limits, seat demand statistics). The few series the filter
// records (execution time, watch counts, read-vs-write concurrency)
// are methods of Metrics.
package metrics

import (
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	kmetrics "github.com/kapi-dev/kapi/pkg/metrics"
)

// Label values of the phase label.
const (
	PhaseWaiting   = "waiting"
	PhaseExecuting = "executing"
)

// Request kinds of read_vs_write_current_requests, as
// apiserver_current_inflight_requests'.
const (
	ReadOnlyKind = kmetrics.ReadOnlyKind
	MutatingKind = kmetrics.MutatingKind
)

var (
	queueLengthBuckets     = []float64{0, 10, 25, 50, 100, 250, 500, 1000}
	requestDurationBuckets = []float64{0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30}
	seatUtilizationBuckets = []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1}
	requestUtilBuckets     = []float64{0, 0.001, 0.003, 0.01, 0.03, 0.1, 0.25, 0.5, 0.75, 1}
	readWriteBuckets       = []float64{0, 0.001, 0.01, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1}
	demandBuckets          = []float64{0.2, 0.4, 0.6, 0.8, 1, 1.2, 1.4, 1.7, 2, 2.8, 4, 6}
	watchCountBuckets      = []float64{0, 1, 10, 100, 1000, 10000}
	workSeatsBuckets       = []float64{1, 2, 4, 8, 16, 32, 64, 100}
)

const (
	plLabel = "priority_level"
	fsLabel = "flow_schema"
)

// Metrics holds the series of API priority and fairness of one server.
// Its methods are safe for concurrent use.
type Metrics struct {
	rejected        *prometheus.CounterVec
	dispatched      *prometheus.CounterVec
	currentR        *prometheus.GaugeVec
	dispatchR       *prometheus.GaugeVec
	latestS         *prometheus.GaugeVec
	nextSBounds     *prometheus.GaugeVec
	nextDiscSBounds *prometheus.GaugeVec
	inqueueRequests *prometheus.GaugeVec
	inqueueSeats    *prometheus.GaugeVec
	queueLength     *prometheus.HistogramVec
	executingReqs   *prometheus.GaugeVec
	executingSeats  *prometheus.GaugeVec
	waitDuration    *prometheus.HistogramVec
	execution       *prometheus.HistogramVec
	watchCount      *prometheus.HistogramVec
	epochAdvances   *prometheus.CounterVec
	workSeats       *prometheus.HistogramVec
	noAccommodation *prometheus.CounterVec
	nominalLimit    *prometheus.GaugeVec
	lowerLimit      *prometheus.GaugeVec
	upperLimit      *prometheus.GaugeVec
	demandHWM       *prometheus.GaugeVec
	demandAverage   *prometheus.GaugeVec
	demandStdev     *prometheus.GaugeVec
	demandSmoothed  *prometheus.GaugeVec
	targetSeats     *prometheus.GaugeVec
	fairFrac        prometheus.Gauge
	currentLimit    *prometheus.GaugeVec

	seatUtilization    *timingRatioVec
	requestUtilization *timingRatioVec
	readVsWrite        *timingRatioVec
	demand             *timingRatioVec

	inqueue *kmetrics.Watermark
	reg     *kmetrics.Registry

	mu        sync.Mutex
	levels    map[string]*Level
	readWrite map[[2]string]*timingRatio
	// counts of requests by phase and kind, for the watermarks.
	counts map[[2]string]int
}

func counterVec(name, help string, labels ...string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
}

func gaugeVec(name, help string, labels ...string) *prometheus.GaugeVec {
	return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labels)
}

func histogramVec(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
	return prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}, labels)
}

// New creates the series and registers them on reg. now is the clock
// of the time-weighted histograms; nil is time.Now.
func New(reg *kmetrics.Registry, now func() time.Time) *Metrics {
	if now == nil {
		now = time.Now
	}
	const p = "apiserver_flowcontrol_"
	m := &Metrics{
		rejected:        counterVec(p+"rejected_requests_total", "[BETA] Number of requests rejected by API Priority and Fairness subsystem", plLabel, fsLabel, "reason"),
		dispatched:      counterVec(p+"dispatched_requests_total", "[BETA] Number of requests executed by API Priority and Fairness subsystem", plLabel, fsLabel),
		currentR:        gaugeVec(p+"current_r", "[ALPHA] R(time of last change)", plLabel),
		dispatchR:       gaugeVec(p+"dispatch_r", "[ALPHA] R(time of last dispatch)", plLabel),
		latestS:         gaugeVec(p+"latest_s", "[ALPHA] S(most recently dispatched request)", plLabel),
		nextSBounds:     gaugeVec(p+"next_s_bounds", "[ALPHA] min and max, over queues, of S(oldest waiting request in queue)", plLabel, "bound"),
		nextDiscSBounds: gaugeVec(p+"next_discounted_s_bounds", "[ALPHA] min and max, over queues, of S(oldest waiting request in queue) - estimated work in progress", plLabel, "bound"),
		inqueueRequests: gaugeVec(p+"current_inqueue_requests", "[BETA] Number of requests currently pending in queues of the API Priority and Fairness subsystem", plLabel, fsLabel),
		inqueueSeats:    gaugeVec(p+"current_inqueue_seats", "[ALPHA] Number of seats currently pending in queues of the API Priority and Fairness subsystem", plLabel, fsLabel),
		queueLength:     histogramVec(p+"request_queue_length_after_enqueue", "[ALPHA] Length of queue in the API Priority and Fairness subsystem, as seen by each request after it is enqueued", queueLengthBuckets, plLabel, fsLabel),
		executingReqs:   gaugeVec(p+"current_executing_requests", "[BETA] Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem", plLabel, fsLabel),
		executingSeats:  gaugeVec(p+"current_executing_seats", "[BETA] Concurrency (number of seats) occupied by the currently executing (initial stage for a WATCH, any stage otherwise) requests in the API Priority and Fairness subsystem", plLabel, fsLabel),
		waitDuration:    histogramVec(p+"request_wait_duration_seconds", "[BETA] Length of time a request spent waiting in its queue", requestDurationBuckets, plLabel, fsLabel, "execute"),
		execution:       histogramVec(p+"request_execution_seconds", "[ALPHA] Duration of initial stage (for a WATCH) or any (for a non-WATCH) stage of request execution in the API Priority and Fairness subsystem", requestDurationBuckets, plLabel, fsLabel, "type"),
		watchCount:      histogramVec(p+"watch_count_samples", "[ALPHA] count of watchers for mutating requests in API Priority and Fairness", watchCountBuckets, plLabel, fsLabel),
		epochAdvances:   counterVec(p+"epoch_advance_total", "[ALPHA] Number of times the queueset's progress meter jumped backward", plLabel, "success"),
		workSeats:       histogramVec(p+"work_estimated_seats", "[ALPHA] Number of estimated seats (maximum of initial and final seats) associated with requests in API Priority and Fairness", workSeatsBuckets, plLabel, fsLabel),
		noAccommodation: counterVec(p+"request_dispatch_no_accommodation_total", "[ALPHA] Number of times a dispatch attempt resulted in a non accommodation due to lack of available seats", plLabel, fsLabel),
		nominalLimit:    gaugeVec(p+"nominal_limit_seats", "[BETA] Nominal number of execution seats configured for each priority level", plLabel),
		lowerLimit:      gaugeVec(p+"lower_limit_seats", "[ALPHA] Configured lower bound on number of execution seats available to each priority level", plLabel),
		upperLimit:      gaugeVec(p+"upper_limit_seats", "[ALPHA] Configured upper bound on number of execution seats available to each priority level", plLabel),
		demandHWM:       gaugeVec(p+"demand_seats_high_watermark", "[ALPHA] High watermark, over last adjustment period, of demand_seats", plLabel),
		demandAverage:   gaugeVec(p+"demand_seats_average", "[ALPHA] Time-weighted average, over last adjustment period, of demand_seats", plLabel),
		demandStdev:     gaugeVec(p+"demand_seats_stdev", "[ALPHA] Time-weighted standard deviation, over last adjustment period, of demand_seats", plLabel),
		demandSmoothed:  gaugeVec(p+"demand_seats_smoothed", "[ALPHA] Smoothed seat demands", plLabel),
		targetSeats:     gaugeVec(p+"target_seats", "[ALPHA] Seat allocation targets", plLabel),
		fairFrac: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: p + "seat_fair_frac",
			Help: "[ALPHA] Fair fraction of server's concurrency to allocate to each priority level that can use it",
		}),
		currentLimit: gaugeVec(p+"current_limit_seats", "[ALPHA] current derived number of execution seats available to each priority level", plLabel),

		seatUtilization: newTimingRatioVec(p+"priority_level_seat_utilization",
			"EXPERIMENTAL: [ALPHA] Observations, at the end of every nanosecond, of utilization of seats for any stage of execution (but only initial stage for WATCHes)",
			seatUtilizationBuckets, prometheus.Labels{"phase": PhaseExecuting}, now, plLabel),
		requestUtilization: newTimingRatioVec(p+"priority_level_request_utilization",
			"EXPERIMENTAL: [ALPHA] Observations, at the end of every nanosecond, of number of requests (as a fraction of the relevant limit) waiting or in any stage of execution (but only initial stage for WATCHes)",
			requestUtilBuckets, nil, now, "phase", plLabel),
		readVsWrite: newTimingRatioVec(p+"read_vs_write_current_requests",
			"EXPERIMENTAL: [ALPHA] Observations, at the end of every nanosecond, of the number of requests (as a fraction of the relevant limit) waiting or in regular stage of execution",
			readWriteBuckets, nil, now, "phase", "request_kind"),
		demand: newTimingRatioVec(p+"demand_seats",
			"EXPERIMENTAL: [ALPHA] Observations, at the end of every nanosecond, of (the number of seats each priority level could use) / (nominal number of seats for that level)",
			demandBuckets, nil, now, plLabel),

		inqueue: kmetrics.NewInqueueWatermark(),
		reg:     reg,

		levels:    map[string]*Level{},
		readWrite: map[[2]string]*timingRatio{},
		counts:    map[[2]string]int{},
	}
	reg.MustRegister(
		m.rejected, m.dispatched, m.currentR, m.dispatchR, m.latestS, m.nextSBounds, m.nextDiscSBounds,
		m.inqueueRequests, m.inqueueSeats, m.queueLength, m.executingReqs, m.executingSeats,
		m.waitDuration, m.execution, m.watchCount, m.epochAdvances, m.workSeats, m.noAccommodation,
		m.nominalLimit, m.lowerLimit, m.upperLimit, m.demandHWM, m.demandAverage, m.demandStdev,
		m.demandSmoothed, m.targetSeats, m.fairFrac, m.currentLimit,
		m.seatUtilization, m.requestUtilization, m.readVsWrite, m.demand,
		m.inqueue,
	)
	// The read-vs-write series exist from the start, as kube's.
	for _, phase := range []string{PhaseWaiting, PhaseExecuting} {
		for _, kind := range []string{ReadOnlyKind, MutatingKind} {
			m.readWrite[[2]string{phase, kind}] = m.readVsWrite.with(0, 1, phase, kind)
		}
	}
	return m
}

// Level returns the metrics of one priority level, creating its
// time-weighted series on first use (they then accumulate time from
// that moment, as kube's do from the level's creation).
func (m *Metrics) Level(priorityLevel string) *Level {
	m.mu.Lock()
	defer m.mu.Unlock()
	if l, ok := m.levels[priorityLevel]; ok {
		return l
	}
	l := &Level{m: m, name: priorityLevel, concurrencyDenominator: 1}
	l.seatUtil = m.seatUtilization.with(0, 1, priorityLevel)
	l.waitingUtil = m.requestUtilization.with(0, 1, PhaseWaiting, priorityLevel)
	l.executingUtil = m.requestUtilization.with(0, 1, PhaseExecuting, priorityLevel)
	l.demand = m.demand.with(0, 1, priorityLevel)
	m.levels[priorityLevel] = l
	return l
}

// SetFairFrac sets apiserver_flowcontrol_seat_fair_frac: the fair
// fraction of the server's concurrency borrowing last computed.
func (m *Metrics) SetFairFrac(f float64) { m.fairFrac.Set(f) }

// ObserveExecution records how long a request executed: its initial
// stage for a WATCH (watch true), all of it otherwise.
func (m *Metrics) ObserveExecution(priorityLevel, flowSchema string, watch bool, d time.Duration) {
	typ := "regular"
	if watch {
		typ = "watch"
	}
	m.execution.WithLabelValues(priorityLevel, flowSchema, typ).Observe(d.Seconds())
}

// ObserveWatchCount records the number of watchers a mutating request
// will notify, as the work estimator sampled it.
func (m *Metrics) ObserveWatchCount(priorityLevel, flowSchema string, n int) {
	m.watchCount.WithLabelValues(priorityLevel, flowSchema).Observe(float64(n))
}

// SetReadWriteLimits sets the denominators of
// read_vs_write_current_requests: the most requests that may wait and
// execute in the whole server.
func (m *Metrics) SetReadWriteLimits(maxWaiting, maxExecuting int) {
	for _, kind := range []string{ReadOnlyKind, MutatingKind} {
		m.readVsWrite.setDenominator(m.readWrite[[2]string{PhaseWaiting, kind}], float64(maxWaiting))
		m.readVsWrite.setDenominator(m.readWrite[[2]string{PhaseExecuting, kind}], float64(maxExecuting))
	}
}

// AddWaiting adds delta to the requests of kind (ReadOnlyKind or
// MutatingKind) waiting in the queues of any level: the filter calls it
// when a request enters its queue (+1) and leaves it (-1). It feeds
// read_vs_write_current_requests and apiserver_current_inqueue_requests.
func (m *Metrics) AddWaiting(kind string, delta int) {
	if n, ok := m.addCount(PhaseWaiting, kind, delta); ok {
		m.inqueue.Observe(kind, n)
	}
}

// AddExecuting adds delta to the requests of kind executing (their
// initial stage for a WATCH): the filter calls it when a request starts
// (+1) and ends (-1). It feeds read_vs_write_current_requests and
// apiserver_current_inflight_requests, which priority and fairness
// records in place of max-in-flight.
func (m *Metrics) AddExecuting(kind string, delta int) {
	if n, ok := m.addCount(PhaseExecuting, kind, delta); ok {
		m.reg.ObserveInflight(kind, n)
	}
}

func (m *Metrics) addCount(phase, kind string, delta int) (int, bool) {
	key := [2]string{phase, kind}
	c, ok := m.readWrite[key]
	if !ok {
		return 0, false
	}
	m.mu.Lock()
	m.counts[key] += delta
	n := m.counts[key]
	m.mu.Unlock()
	m.readVsWrite.set(c, float64(n))
	return n, true
}

// AddReadWrite adds delta to the requests of kind (ReadOnlyKind or
// MutatingKind) in phase (PhaseWaiting or PhaseExecuting): AddWaiting
// or AddExecuting by phase. Other values are ignored.
func (m *Metrics) AddReadWrite(phase, kind string, delta int) {
	switch phase {
	case PhaseWaiting:
		m.AddWaiting(kind, delta)
	case PhaseExecuting:
		m.AddExecuting(kind, delta)
	}
}

// Level is the metrics of one priority level. It implements
// fairqueuing.Observer for the level's queue set; the controller sets
// the level's limits and demand statistics through it.
type Level struct {
	m    *Metrics
	name string

	seatUtil, waitingUtil, executingUtil, demand *timingRatio

	mu                     sync.Mutex
	concurrencyDenominator int
}

// Name is the priority level's name.
func (l *Level) Name() string { return l.name }

// SetLimits sets the level's configured limits: nominal, lower
// (nominal less lendable) and upper (nominal plus borrowing) seats.
func (l *Level) SetLimits(nominal, lower, upper int) {
	l.m.nominalLimit.WithLabelValues(l.name).Set(float64(nominal))
	l.m.lowerLimit.WithLabelValues(l.name).Set(float64(lower))
	l.m.upperLimit.WithLabelValues(l.name).Set(float64(upper))
}

// Adjustment is what borrowing computed for a level in one adjustment
// period.
type Adjustment struct {
	// The seat demand statistics of the period, and their smoothing.
	HighWatermark, Average, StdDev, Smoothed float64
	// Target is the seats the level asked for in the allocation.
	Target float64
	// CurrentLimit is the concurrency limit given to the level.
	CurrentLimit int
	// ConcurrencyDenominator scales the level's utilization and demand
	// histograms: CurrentLimit, or when that is 0, a tenth of the
	// server's concurrency limit (at least 1), as kube-apiserver does.
	ConcurrencyDenominator int
}

// NoteAdjustment records a borrowing adjustment of the level.
func (l *Level) NoteAdjustment(a Adjustment) {
	m := l.m
	m.demandHWM.WithLabelValues(l.name).Set(a.HighWatermark)
	m.demandAverage.WithLabelValues(l.name).Set(a.Average)
	m.demandStdev.WithLabelValues(l.name).Set(a.StdDev)
	m.demandSmoothed.WithLabelValues(l.name).Set(a.Smoothed)
	m.targetSeats.WithLabelValues(l.name).Set(a.Target)
	m.currentLimit.WithLabelValues(l.name).Set(float64(a.CurrentLimit))
	den := max(1, a.ConcurrencyDenominator)
	l.mu.Lock()
	l.concurrencyDenominator = den
	l.mu.Unlock()
	m.demand.setDenominator(l.demand, float64(den))
}

// ObserveLimits implements fairqueuing.Observer.
func (l *Level) ObserveLimits(concurrencyLimit, queueCapacity int) {
	den := concurrencyLimit
	if den <= 0 {
		l.mu.Lock()
		den = l.concurrencyDenominator
		l.mu.Unlock()
	}
	l.m.seatUtilization.setDenominator(l.seatUtil, float64(den))
	l.m.requestUtilization.setDenominator(l.executingUtil, float64(den))
	l.m.requestUtilization.setDenominator(l.waitingUtil, float64(max(1, queueCapacity)))
}

// ObserveArrival implements fairqueuing.Observer.
func (l *Level) ObserveArrival(flowSchema string, seats int) {
	l.m.workSeats.WithLabelValues(l.name, flowSchema).Observe(float64(seats))
}

// ObserveRejected implements fairqueuing.Observer.
func (l *Level) ObserveRejected(flowSchema, reason string) {
	l.m.rejected.WithLabelValues(l.name, flowSchema, reason).Inc()
}

// ObserveEnqueued implements fairqueuing.Observer.
func (l *Level) ObserveEnqueued(flowSchema string, seats, queueLength int) {
	l.m.inqueueRequests.WithLabelValues(l.name, flowSchema).Inc()
	l.m.inqueueSeats.WithLabelValues(l.name, flowSchema).Add(float64(seats))
	l.m.queueLength.WithLabelValues(l.name, flowSchema).Observe(float64(queueLength))
}

// ObserveDequeued implements fairqueuing.Observer.
func (l *Level) ObserveDequeued(flowSchema string, seats int) {
	l.m.inqueueRequests.WithLabelValues(l.name, flowSchema).Dec()
	l.m.inqueueSeats.WithLabelValues(l.name, flowSchema).Sub(float64(seats))
}

// ObserveWait implements fairqueuing.Observer.
func (l *Level) ObserveWait(flowSchema string, executed bool, wait time.Duration) {
	l.m.waitDuration.WithLabelValues(l.name, flowSchema, strconv.FormatBool(executed)).Observe(wait.Seconds())
}

// ObserveDispatched implements fairqueuing.Observer.
func (l *Level) ObserveDispatched(flowSchema string) {
	l.m.dispatched.WithLabelValues(l.name, flowSchema).Inc()
}

// ObserveExecuting implements fairqueuing.Observer.
func (l *Level) ObserveExecuting(flowSchema string, requests, seats int) {
	if requests != 0 {
		l.m.executingReqs.WithLabelValues(l.name, flowSchema).Add(float64(requests))
	}
	if seats != 0 {
		l.m.executingSeats.WithLabelValues(l.name, flowSchema).Add(float64(seats))
	}
}

// ObserveNoAccommodation implements fairqueuing.Observer.
func (l *Level) ObserveNoAccommodation(flowSchema string) {
	l.m.noAccommodation.WithLabelValues(l.name, flowSchema).Inc()
}

// ObserveTotals implements fairqueuing.Observer.
func (l *Level) ObserveTotals(waitingRequests, executingRequests, seatsInUse, seatDemand int) {
	l.m.requestUtilization.set(l.waitingUtil, float64(waitingRequests))
	l.m.requestUtilization.set(l.executingUtil, float64(executingRequests))
	l.m.seatUtilization.set(l.seatUtil, float64(seatsInUse))
	l.m.demand.set(l.demand, float64(seatDemand))
}

// ObserveR implements fairqueuing.Observer.
func (l *Level) ObserveR(r float64) {
	l.m.currentR.WithLabelValues(l.name).Set(r)
}

// ObserveDispatchR implements fairqueuing.Observer.
func (l *Level) ObserveDispatchR(r, s, sMin, sMax, discountedSMin, discountedSMax float64) {
	m := l.m
	m.dispatchR.WithLabelValues(l.name).Set(r)
	m.latestS.WithLabelValues(l.name).Set(s)
	m.nextSBounds.WithLabelValues(l.name, "min").Set(sMin)
	m.nextSBounds.WithLabelValues(l.name, "max").Set(sMax)
	m.nextDiscSBounds.WithLabelValues(l.name, "min").Set(discountedSMin)
	m.nextDiscSBounds.WithLabelValues(l.name, "max").Set(discountedSMax)
}

// ObserveEpochAdvance implements fairqueuing.Observer.
func (l *Level) ObserveEpochAdvance(success bool) {
	l.m.epochAdvances.WithLabelValues(l.name, strconv.FormatBool(success)).Inc()
}

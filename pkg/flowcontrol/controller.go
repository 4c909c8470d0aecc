package flowcontrol

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	apisflowcontrol "github.com/kapi-dev/kapi/pkg/apis/flowcontrol"
	"github.com/kapi-dev/kapi/pkg/flowcontrol/fairqueuing"
	fcmetrics "github.com/kapi-dev/kapi/pkg/flowcontrol/metrics"
	"github.com/kapi-dev/kapi/pkg/flowcontrol/request"
)

// BorrowingAdjustmentPeriod is how often the current concurrency limits
// are recomputed from the levels' seat demand, as in kube-apiserver.
const BorrowingAdjustmentPeriod = 10 * time.Second

// seatDemandSmoothing is the weight of the past in the smoothed seat
// demand: kube-apiserver's, a half-life of five minutes at one
// adjustment every ten seconds.
const seatDemandSmoothing = 0.977

// Config is what a Controller is built from.
type Config struct {
	// ServerConcurrencyLimit is the server's total concurrency limit,
	// --max-requests-inflight plus --max-mutating-requests-inflight,
	// shared among the limited priority levels.
	ServerConcurrencyLimit int
	// FlowSchemas and PriorityLevels are informers of the
	// configuration objects; the controller adds its handlers to them,
	// someone else starts them.
	FlowSchemas, PriorityLevels cache.SharedIndexInformer
	// Metrics records the apiserver_flowcontrol_* series; nil records
	// nothing.
	Metrics *fcmetrics.Metrics
	// Logger; nil discards.
	Logger *slog.Logger
	// Clock is the queue sets' clock; nil is the real one.
	Clock fairqueuing.Clock
}

// Controller is the configuration controller of API priority and
// fairness and the admission of requests it configures. It digests the
// FlowSchemas and PriorityLevelConfigurations into an immutable snapshot
// that classification reads without a lock (so that requests never wait
// for a reconfiguration), and keeps a queue set per priority level.
//
// Digestion follows kube-apiserver: a PriorityLevelConfiguration that is
// malformed is left out; a FlowSchema whose level is left out or does not
// exist is dangling and matches nothing (apfstatus marks it); the
// mandatory exempt and catch-all objects are imagined while they do not
// exist; a level that was removed keeps its queue set, and its share of
// the server, until its requests have drained.
type Controller struct {
	serverCL   int
	metrics    *fcmetrics.Metrics
	log        *slog.Logger
	clock      fairqueuing.Clock
	retryAfter *RetryAfter
	synced     []cache.InformerSynced
	fsStore    cache.Store
	plStore    cache.Store

	// trigger holds a token when the configuration must be digested.
	trigger chan struct{}

	// current is what requests are classified by.
	current atomic.Pointer[snapshot]

	// mu serializes digestion, limit adjustment and the dumps, and
	// guards levels and nominalCLSum.
	mu           sync.Mutex
	levels       map[string]*level
	nominalCLSum int
}

// snapshot is one digested configuration; nothing in it changes.
type snapshot struct {
	// schemas are in matching order: precedence, then name.
	schemas []schemaEntry
	levels  map[string]*level
}

type schemaEntry struct {
	fs    *flowcontrolv1.FlowSchema
	pl    *flowcontrolv1.PriorityLevelConfiguration
	level *level
	// queuing says the level has more than one queue, so that the
	// request's flow matters.
	queuing bool
}

// level is one priority level's state. Its queue set is safe for
// concurrent use; the other fields but maxSeats and quiescing are
// guarded by Controller.mu.
type level struct {
	name      string
	pl        *flowcontrolv1.PriorityLevelConfiguration
	exempt    bool
	queues    *fairqueuing.QueueSet
	limits    levelLimits
	current   int
	stats     seatDemandStats
	maxSeats  atomic.Uint64
	quiescing atomic.Bool
}

// seatDemandStats are a level's seat demand over the last period, and
// smoothed over time: kube-apiserver's envelope (average plus standard
// deviation), decaying at seatDemandSmoothing but never below the last
// envelope.
type seatDemandStats struct {
	average, stdDev float64
	highWatermark   int
	smoothed        float64
}

func (s *seatDemandStats) update(d fairqueuing.SeatDemand) {
	s.highWatermark = int(math.Round(d.HighWatermark))
	if d.Duration <= 0 {
		return
	}
	stdDev := d.StdDev
	if math.IsNaN(stdDev) {
		stdDev = 0
	}
	s.average, s.stdDev = d.Average, stdDev
	envelope := d.Average + stdDev
	s.smoothed = math.Max(envelope, seatDemandSmoothing*s.smoothed+(1-seatDemandSmoothing)*envelope)
}

// New returns a controller that starts with the mandatory configuration
// (everything exempt for system:masters, the catch-all level for
// everyone else) until Run has digested the objects.
func New(c Config) *Controller {
	ctl := &Controller{
		serverCL: c.ServerConcurrencyLimit,
		metrics:  c.Metrics,
		log:      c.Logger,
		clock:    c.Clock,
		trigger:  make(chan struct{}, 1),
		levels:   map[string]*level{},
	}
	if ctl.log == nil {
		ctl.log = slog.New(slog.DiscardHandler)
	}
	if ctl.clock == nil {
		ctl.clock = fairqueuing.RealClock()
	}
	ctl.retryAfter = NewRetryAfter(ctl.clock.Now)
	ctl.digest(nil, nil)
	if c.FlowSchemas != nil && c.PriorityLevels != nil {
		ctl.fsStore, ctl.plStore = c.FlowSchemas.GetStore(), c.PriorityLevels.GetStore()
		ctl.synced = []cache.InformerSynced{c.FlowSchemas.HasSynced, c.PriorityLevels.HasSynced}
		// kube-apiserver reacts to changes of a level's spec, and of a
		// schema's spec or status.
		_, _ = c.PriorityLevels.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc: func(any) { ctl.poke() },
			UpdateFunc: func(oldObj, newObj any) {
				o, n := oldObj.(*flowcontrolv1.PriorityLevelConfiguration), newObj.(*flowcontrolv1.PriorityLevelConfiguration)
				if !apiequality.Semantic.DeepEqual(o.Spec, n.Spec) {
					ctl.poke()
				}
			},
			DeleteFunc: func(any) { ctl.poke() },
		})
		_, _ = c.FlowSchemas.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc: func(any) { ctl.poke() },
			UpdateFunc: func(oldObj, newObj any) {
				o, n := oldObj.(*flowcontrolv1.FlowSchema), newObj.(*flowcontrolv1.FlowSchema)
				if !apiequality.Semantic.DeepEqual(o.Spec, n.Spec) || !apiequality.Semantic.DeepEqual(o.Status, n.Status) {
					ctl.poke()
				}
			},
			DeleteFunc: func(any) { ctl.poke() },
		})
	}
	return ctl
}

func (c *Controller) poke() {
	select {
	case c.trigger <- struct{}{}:
	default:
	}
}

// Run digests the configuration whenever it changes and adjusts the
// levels' limits every BorrowingAdjustmentPeriod, until ctx ends. The
// informers must be started by the caller.
func (c *Controller) Run(ctx context.Context) error {
	if !cache.WaitForCacheSync(ctx.Done(), c.synced...) {
		return errors.New("the informers of the priority and fairness configuration did not sync")
	}
	c.poke()
	tick := time.NewTicker(BorrowingAdjustmentPeriod)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-c.trigger:
			c.digest(listOf[*flowcontrolv1.FlowSchema](c.fsStore), listOf[*flowcontrolv1.PriorityLevelConfiguration](c.plStore))
		case <-tick.C:
			c.adjust()
		}
	}
}

func listOf[T any](s cache.Store) []T {
	objs := s.List()
	out := make([]T, 0, len(objs))
	for _, o := range objs {
		if t, ok := o.(T); ok {
			out = append(out, t)
		}
	}
	return out
}

// Configure makes fss and pls the configuration, as Run does whenever
// the objects change; it is for controllers that are not given
// informers.
func (c *Controller) Configure(fss []*flowcontrolv1.FlowSchema, pls []*flowcontrolv1.PriorityLevelConfiguration) {
	c.digest(slices.Clone(fss), slices.Clone(pls))
}

// digest makes fss and pls the configuration.
func (c *Controller) digest(fss []*flowcontrolv1.FlowSchema, pls []*flowcontrolv1.PriorityLevelConfiguration) {
	c.mu.Lock()
	defer c.mu.Unlock()

	newLevels := map[string]*level{}
	var shareSum float64
	keep := func(l *level) {
		newLevels[l.name] = l
		shareSum += float64(shares(l.pl))
	}
	slices.SortFunc(pls, func(a, b *flowcontrolv1.PriorityLevelConfiguration) int { return cmp.Compare(a.Name, b.Name) })
	for _, pl := range pls {
		if err := checkLevel(pl); err != nil {
			c.log.Warn("Ignoring a malformed PriorityLevelConfiguration", "name", pl.Name, "err", err)
			continue
		}
		if _, dup := newLevels[pl.Name]; dup {
			continue
		}
		l := c.levels[pl.Name]
		if l == nil {
			var err error
			if l, err = c.newLevel(pl); err != nil {
				c.log.Warn("Ignoring a PriorityLevelConfiguration whose queuing is invalid", "name", pl.Name, "err", err)
				continue
			}
		} else {
			if !l.exempt {
				if err := l.queues.Configure(queueConfig(pl, l.current)); err != nil {
					c.log.Warn("Ignoring a PriorityLevelConfiguration whose queuing is invalid", "name", pl.Name, "err", err)
					continue
				}
			}
			l.pl = pl
			l.quiescing.Store(false)
		}
		keep(l)
	}

	// Schemas whose level is missing are dangling: they match nothing.
	schemas := make([]*flowcontrolv1.FlowSchema, 0, len(fss)+2)
	seen := map[string]bool{}
	for _, fs := range fss {
		if seen[fs.Name] || newLevels[fs.Spec.PriorityLevelConfiguration.Name] == nil {
			continue
		}
		seen[fs.Name] = true
		schemas = append(schemas, fs)
	}
	slices.SortFunc(schemas, func(a, b *flowcontrolv1.FlowSchema) int {
		return cmp.Or(cmp.Compare(a.Spec.MatchingPrecedence, b.Spec.MatchingPrecedence), cmp.Compare(a.Name, b.Name))
	})
	if !seen[flowcontrolv1.FlowSchemaNameExempt] {
		schemas = append([]*flowcontrolv1.FlowSchema{mandatorySchema(flowcontrolv1.FlowSchemaNameExempt)}, schemas...)
	}
	if !seen[flowcontrolv1.FlowSchemaNameCatchAll] {
		schemas = append(schemas, mandatorySchema(flowcontrolv1.FlowSchemaNameCatchAll))
	}

	// Levels that are gone stay while requests are in them; the
	// mandatory ones stay for good.
	for name, l := range c.levels {
		if newLevels[name] != nil {
			continue
		}
		if name != flowcontrolv1.PriorityLevelConfigurationNameExempt && name != flowcontrolv1.PriorityLevelConfigurationNameCatchAll {
			if l.queues.IsIdle() {
				continue
			}
			if !l.quiescing.Swap(true) {
				c.log.Info("Priority level became undesired; it is kept until its requests have drained", "name", name)
			}
		}
		keep(l)
	}
	for _, name := range []string{flowcontrolv1.PriorityLevelConfigurationNameExempt, flowcontrolv1.PriorityLevelConfigurationNameCatchAll} {
		if newLevels[name] == nil {
			l, err := c.newLevel(mandatoryLevel(name))
			if err != nil {
				panic(err) // the mandatory levels are valid
			}
			keep(l)
		}
	}

	// Each level's share of the server, and its queue set configured.
	c.nominalCLSum = 0
	maxWaiting := 0
	for _, l := range newLevels {
		var lendable, borrowing *int32
		if lim := l.pl.Spec.Limited; lim != nil {
			lendable, borrowing = lim.LendablePercent, lim.BorrowingLimitPercent
		} else if ex := l.pl.Spec.Exempt; ex != nil {
			lendable = ex.LendablePercent
		}
		l.limits = limitsFor(c.serverCL, shares(l.pl), shareSum, lendable, borrowing)
		c.nominalCLSum += l.limits.nominalCL
		if c.metrics != nil {
			c.metrics.Level(l.name).SetLimits(l.limits.nominalCL, l.limits.minCL, l.limits.maxCL)
		}
		// Only a queuing level caps its requests' seats, as in
		// kube-apiserver; the estimator's own limits bound the others.
		l.maxSeats.Store(0)
		if q := queuingOf(l.pl); q != nil {
			maxWaiting += int(q.Queues * q.QueueLengthLimit)
			l.maxSeats.Store(maxSeatsFor(l.limits.nominalCL, q.HandSize))
		}
	}
	c.levels = newLevels
	if c.metrics != nil {
		c.metrics.SetReadWriteLimits(maxWaiting, c.nominalCLSum)
	}
	c.adjustLocked()

	snap := &snapshot{schemas: make([]schemaEntry, 0, len(schemas)), levels: newLevels}
	for _, fs := range schemas {
		l := newLevels[fs.Spec.PriorityLevelConfiguration.Name]
		q := queuingOf(l.pl)
		snap.schemas = append(snap.schemas, schemaEntry{fs: fs, pl: l.pl, level: l, queuing: q != nil && q.Queues > 1})
	}
	c.current.Store(snap)
}

// newLevel makes the state of a level that is new, with no concurrency
// until its limits are computed.
func (c *Controller) newLevel(pl *flowcontrolv1.PriorityLevelConfiguration) (*level, error) {
	l := &level{name: pl.Name, pl: pl, exempt: pl.Spec.Type == flowcontrolv1.PriorityLevelEnablementExempt}
	opts := fairqueuing.Options{Clock: c.clock}
	if c.metrics != nil {
		opts.Observer = c.metrics.Level(pl.Name)
	}
	if l.exempt {
		l.queues = fairqueuing.NewExempt(pl.Name, opts)
		return l, nil
	}
	var err error
	l.queues, err = fairqueuing.New(queueConfig(pl, 0), opts)
	return l, err
}

func queueConfig(pl *flowcontrolv1.PriorityLevelConfiguration, limit int) fairqueuing.Config {
	cfg := fairqueuing.Config{Name: pl.Name, ConcurrencyLimit: limit}
	if q := queuingOf(pl); q != nil {
		cfg.Queues, cfg.HandSize, cfg.QueueLengthLimit = int(q.Queues), int(q.HandSize), int(q.QueueLengthLimit)
	}
	return cfg
}

func queuingOf(pl *flowcontrolv1.PriorityLevelConfiguration) *flowcontrolv1.QueuingConfiguration {
	if l := pl.Spec.Limited; l != nil && l.LimitResponse.Type == flowcontrolv1.LimitResponseTypeQueue {
		return l.LimitResponse.Queuing
	}
	return nil
}

// shares is a level's nominal concurrency shares (0 if unset).
func shares(pl *flowcontrolv1.PriorityLevelConfiguration) int32 {
	var p *int32
	if l := pl.Spec.Limited; l != nil {
		p = l.NominalConcurrencyShares
	} else if e := pl.Spec.Exempt; e != nil {
		p = e.NominalConcurrencyShares
	}
	if p == nil {
		return 0
	}
	return *p
}

// checkLevel rejects what kube-apiserver's controller cannot digest:
// broken unions, and an exempt level that is not the one named exempt
// (or the other way round).
func checkLevel(pl *flowcontrolv1.PriorityLevelConfiguration) error {
	limited := pl.Spec.Type == flowcontrolv1.PriorityLevelEnablementLimited
	exempt := pl.Spec.Type == flowcontrolv1.PriorityLevelEnablementExempt
	switch {
	case limited != (pl.Spec.Limited != nil):
		return errors.New("broken union structure at the top, for Limited")
	case exempt != (pl.Spec.Exempt != nil):
		return errors.New("broken union structure at the top, for Exempt")
	case exempt != (pl.Name == flowcontrolv1.PriorityLevelConfigurationNameExempt):
		return errors.New("non-alignment between name and type")
	case limited && (pl.Spec.Limited.LimitResponse.Type == flowcontrolv1.LimitResponseTypeReject) != (pl.Spec.Limited.LimitResponse.Queuing == nil):
		return errors.New("broken union structure for limit response")
	}
	return nil
}

// mandatoryLevel and mandatorySchema are the mandatory objects, defaulted,
// imagined while the real ones do not exist.
func mandatoryLevel(name string) *flowcontrolv1.PriorityLevelConfiguration {
	for _, pl := range apisflowcontrol.MandatoryPriorityLevelConfigurations() {
		if pl.Name == name {
			apisflowcontrol.SetDefaultsPriorityLevelConfiguration(pl)
			return pl
		}
	}
	panic("no mandatory priority level " + name)
}

func mandatorySchema(name string) *flowcontrolv1.FlowSchema {
	for _, fs := range apisflowcontrol.MandatoryFlowSchemas() {
		if fs.Name == name {
			apisflowcontrol.SetDefaultsFlowSchema(fs)
			return fs
		}
	}
	panic("no mandatory flow schema " + name)
}

// adjust recomputes the current limits from the seat demand.
func (c *Controller) adjust() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.adjustLocked()
}

func (c *Controller) adjustLocked() {
	names := make([]string, 0, len(c.levels))
	for name := range c.levels {
		names = append(names, name)
	}
	slices.Sort(names)
	demands := make([]demand, len(names))
	for i, name := range names {
		l := c.levels[name]
		l.stats.update(l.queues.ReadSeatDemand())
		demands[i] = demand{limits: l.limits, exempt: l.exempt, highWatermark: l.stats.highWatermark, smoothed: l.stats.smoothed}
	}
	current, fair := adjustLimits(c.nominalCLSum, demands)
	if c.metrics != nil {
		c.metrics.SetFairFrac(fair)
	}
	for i, name := range names {
		l := c.levels[name]
		l.current = current[i]
		if c.metrics != nil {
			// The utilization of a level with no seats is measured
			// against a tenth of the server, as in kube-apiserver.
			denominator := l.current
			if denominator <= 0 {
				denominator = max(1, int(math.Round(float64(c.serverCL)/10)))
			}
			c.metrics.Level(name).NoteAdjustment(fcmetrics.Adjustment{
				HighWatermark: float64(l.stats.highWatermark), Average: l.stats.average, StdDev: l.stats.stdDev, Smoothed: l.stats.smoothed,
				Target:       math.Max(float64(max(l.limits.minCL, min(l.limits.nominalCL, l.stats.highWatermark))), l.stats.smoothed),
				CurrentLimit: l.current, ConcurrencyDenominator: denominator,
			})
		}
		if !l.exempt {
			l.queues.SetConcurrencyLimit(l.current)
		}
	}
}

// Classification is where a request was classified: the FlowSchema that
// matched it and its priority level, by name and UID (the UIDs of
// imagined mandatory objects are empty).
type Classification struct {
	FlowSchema, PriorityLevel       string
	FlowSchemaUID, PriorityLevelUID types.UID
	Exempt                          bool
}

// classify finds the schema that matches d: the first in matching order.
// The catch-all schema matches everyone authenticated or not; should a
// request match nothing, it goes to catch-all all the same, as in
// kube-apiserver.
func (s *snapshot) classify(d Digest) *schemaEntry {
	var catchAll *schemaEntry
	for i := range s.schemas {
		e := &s.schemas[i]
		if matchesFlowSchema(d, e.fs) {
			return e
		}
		if e.fs.Name == flowcontrolv1.FlowSchemaNameCatchAll {
			catchAll = e
		}
	}
	return catchAll
}

// Classify returns where d goes, without admitting it.
func (c *Controller) Classify(d Digest) Classification {
	return c.current.Load().classify(d).classification()
}

func (e *schemaEntry) classification() Classification {
	return Classification{
		FlowSchema: e.fs.Name, FlowSchemaUID: e.fs.UID,
		PriorityLevel: e.pl.Name, PriorityLevelUID: e.pl.UID,
		Exempt: e.level.exempt,
	}
}

// Handle classifies the request of ctx described by d and waits until
// its priority level admits it or rejects it. If admitted, execute runs
// (in the calling goroutine), given where the request was classified,
// and Handle returns once it has, with reason NotRejected; if rejected,
// execute does not run and reason says why. estimate gives the request's
// work once classified; it is not called for exempt requests, which
// count as one seat. ctx bounds the time the request may wait in a
// queue, and nothing else.
func (c *Controller) Handle(ctx context.Context, d Digest, estimate func(Classification) request.WorkEstimate, execute func(Classification)) (cl Classification, reason fairqueuing.RejectReason) {
	e := c.current.Load().classify(d)
	cl = e.classification()
	work := request.WorkEstimate{InitialSeats: 1}
	if !cl.Exempt && estimate != nil {
		work = estimate(cl)
	}
	flow := fairqueuing.Flow{Schema: cl.FlowSchema}
	if e.queuing {
		flow.Distinguisher = flowDistinguisher(d, e.fs.Spec.DistinguisherMethod)
		flow.Hash = flowHash(cl.FlowSchema, flow.Distinguisher)
	}
	// The request's description in the dumps is its context, which
	// holds the user and the request info; with metrics, a requestDescr
	// that also counts the request while it waits in a queue.
	var descr any = ctx
	kind := fcmetrics.ReadOnlyKind
	if isMutating(d.Info.Verb) {
		kind = fcmetrics.MutatingKind
	}
	if c.metrics != nil {
		descr = &requestDescr{ctx: ctx, metrics: c.metrics, kind: kind}
	}
	req, reason := e.level.queues.StartRequest(ctx, work, flow, descr)
	if req == nil {
		return cl, reason
	}
	executed := req.Finish(func() {
		if c.metrics == nil {
			execute(cl)
			return
		}
		c.metrics.AddExecuting(kind, 1)
		start := c.clock.Now()
		defer func() {
			c.metrics.ObserveExecution(cl.PriorityLevel, cl.FlowSchema, d.Info.Verb == "watch", c.clock.Now().Sub(start))
			c.metrics.AddExecuting(kind, -1)
		}()
		execute(cl)
	})
	// A level that was removed goes once it has drained.
	if e.level.quiescing.Load() && e.level.queues.IsIdle() {
		c.poke()
	}
	if !executed {
		return cl, req.RejectReason()
	}
	return cl, fairqueuing.NotRejected
}

// RetryAfter records a rejection at level and returns the Retry-After,
// in seconds, to answer it with (see RetryAfter).
func (c *Controller) RetryAfter(level string) int64 {
	return c.retryAfter.Rejected(level)
}

// MaxSeats is the most seats the work estimator may give one request of
// a level that queues: 15% of its nominal limit, at most its nominal
// limit divided by its hand size, at least 1. It is 0 for other levels
// and unknown ones: no cap but the estimator's own.
func (c *Controller) MaxSeats(level string) uint64 {
	if l := c.current.Load().levels[level]; l != nil {
		return l.maxSeats.Load()
	}
	return 0
}

// isMutating is kube-apiserver's split of read_vs_write_current_requests:
// everything but get, list and watch.
func isMutating(verb string) bool {
	switch verb {
	case "get", "list", "watch":
		return false
	}
	return true
}

// requestDescr describes a request to its queue set: its context, for
// the dumps, and its kind, to count it in read_vs_write_current_requests
// and apiserver_current_inqueue_requests while it waits.
type requestDescr struct {
	ctx     context.Context
	metrics *fcmetrics.Metrics
	kind    string
}

// NoteQueued implements fairqueuing.QueueNoter.
func (d *requestDescr) NoteQueued(in bool) {
	delta := -1
	if in {
		delta = 1
	}
	d.metrics.AddWaiting(d.kind, delta)
}

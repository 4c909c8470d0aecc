package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// watchOptions configures the watch suite.
type watchOptions struct {
	watchers  []int // one fan-out per entry, with that many watchers
	events    int   // writes, so events per watcher, of each fan-out
	writers   int
	objects   int     // configmaps the writers update in turn
	perClient int     // watchers per HTTP client (connection)
	writeRate float64 // updates per second of all writers; 0: as fast as they go
	timeout   time.Duration
	settle    time.Duration
}

// runWatch runs the watch suite repeat times: in a fresh namespace, create
// the objects, then one fan-out for each --watchers entry.
func runWatch(ctx context.Context, o apiOptions, wo watchOptions, p *printer) error {
	env, err := connect(o, p)
	if err != nil {
		return err
	}
	defer env.close()
	rate := "each writer in a closed loop"
	if wo.writeRate > 0 {
		rate = fmt.Sprintf("at most %g/s", wo.writeRate)
	}
	p.comment("watch: fan-outs to %v watchers (%d per connection) of %d updates (%s) by %d writers to %d configmaps of %d B payload",
		wo.watchers, wo.perClient, wo.events, rate, wo.writers, wo.objects, o.payloadBytes)
	p.comment("watchers decode JSON events only as far as type and resourceVersion; latency: write ack (from_send: write sent) to event read, per event per watcher")
	return env.runRuns(ctx, "watch", p, func(ctx context.Context, ns string, r *result, p *printer) error {
		created, rvs := env.create(ctx, ns, wo.objects)
		if created.errors > 0 || created.ok != wo.objects {
			return fmt.Errorf("creating %d configmaps: %d failed, first: %v", wo.objects, created.errors, created.firstErr)
		}
		for _, n := range wo.watchers {
			if err := pause(ctx, wo.settle); err != nil {
				return err
			}
			if err := env.fanout(ctx, ns, n, wo, rvs, r, p); err != nil {
				return fmt.Errorf("fan-out to %d watchers: %w", n, err)
			}
		}
		return nil
	})
}

// pause waits d, or until ctx is done.
func pause(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// fanoutKey is the key of a fan-out figure, e.g.
// "watch_fanout_1000_all_delivered_s".
func fanoutKey(watchers int, name string) string {
	return "watch_fanout_" + strconv.Itoa(watchers) + "_" + name
}

// ackedWrite is one update a writer made: when it was sent and when its
// response came back, since the fan-out's base time, and the
// resourceVersion the server gave it.
type ackedWrite struct {
	sent, ack time.Duration
	rv        uint64
	err       error
}

// fanout starts n watchers on the configmaps of ns from the current
// resourceVersion, makes wo.events updates with wo.writers writers, waits
// until every watcher has received every event (or wo.timeout after the
// last write), and records the figures under watch_fanout_<n>_. rvs are
// the objects' current resourceVersions; fanout updates them.
func (env *apiEnv) fanout(ctx context.Context, ns string, n int, wo watchOptions, rvs []string, r *result, p *printer) error {
	key := func(name string) string { return fanoutKey(n, name) }
	before := takeSample(env.o.serverPID, env.o.etcdPID)

	// The watches start from the resourceVersion of a list, so that they
	// see exactly the updates made after it, however long they take to
	// start.
	list, err := env.cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		return fmt.Errorf("listing for the current resourceVersion: %w", err)
	}
	url := env.lister.rest.Get().Namespace(ns).Resource("configmaps").
		Param("watch", "true").
		Param("resourceVersion", list.ResourceVersion).
		// Longer than any fan-out, so that no watch ends on its own.
		Param("timeoutSeconds", "3600").
		URL().String()

	clients, transports, err := newWatchClients(env.cfg, (n+wo.perClient-1)/wo.perClient)
	if err != nil {
		return err
	}
	defer func() {
		for _, tr := range transports {
			utilnet.CloseIdleConnectionsFor(tr)
		}
	}()

	// base is the origin of all times of the fan-out, the watchers' and
	// the writers'; the figures count from the first write's send time.
	base := time.Now()
	watchCtx, stopWatches := context.WithCancel(ctx)
	defer stopWatches()
	watchers := make([]*watcher, n)
	started := make(chan error, n)
	var wg sync.WaitGroup
	setupStart := time.Now()
	for i := range watchers {
		w := &watcher{recv: make([]time.Duration, 0, wo.events), rvs: make([]uint64, 0, wo.events)}
		watchers[i] = w
		client := clients[i/wo.perClient]
		wg.Go(func() { w.watch(watchCtx, client, url, base, started) })
	}
	var startErrors int
	var firstStartErr error
	// A server that never answers a watch would keep the bench waiting:
	// after wo.timeout the watches are cancelled, which makes the ones
	// still waiting report an error.
	setupTimeout := time.AfterFunc(wo.timeout, stopWatches)
	for range n {
		if err := <-started; err != nil {
			startErrors++
			if firstStartErr == nil {
				firstStartErr = err
			}
		}
	}
	timedOutStarting := !setupTimeout.Stop()
	setup := time.Since(setupStart)
	r.addDuration(key("setup_s"), setup)
	r.addInt(key("start_errors"), int64(startErrors))
	if firstStartErr != nil {
		p.comment("%s: %d watches did not start, first: %v", key("start_errors"), startErrors, firstStartErr)
	}
	if startErrors == n {
		return fmt.Errorf("no watch started, first error: %w", firstStartErr)
	}
	if timedOutStarting {
		return fmt.Errorf("the watches took more than --watch-timeout %s to start", wo.timeout)
	}

	// Write, with the watchers' clock: event times and ack times are
	// both since base.
	writeStart := time.Now()
	writes := env.writeEvents(ctx, ns, wo, rvs, base)
	writeWall := time.Since(writeStart)
	acked := make(map[uint64]ackedWrite, len(writes))
	var writeErrors int
	var firstWriteErr error
	var firstSent, lastAck time.Duration = -1, 0
	var writeLat []time.Duration
	for _, w := range writes {
		if w.err != nil {
			writeErrors++
			if firstWriteErr == nil {
				firstWriteErr = w.err
			}
			continue
		}
		acked[w.rv] = w
		if firstSent < 0 || w.sent < firstSent {
			firstSent = w.sent
		}
		lastAck = max(lastAck, w.ack)
		writeLat = append(writeLat, w.ack-w.sent)
	}
	slices.Sort(writeLat)
	want := len(acked)
	if want == 0 {
		return fmt.Errorf("no update succeeded, first error: %w", firstWriteErr)
	}
	r.addFloat(key("updates_per_s"), perSecond(want, writeWall))
	r.addDuration(key("update_p50_ms"), percentile(writeLat, 50))
	r.addDuration(key("update_p99_ms"), percentile(writeLat, 99))
	r.addInt(key("update_errors"), int64(writeErrors))
	if firstWriteErr != nil {
		p.comment("%s: %d updates failed, first: %v", key("update_errors"), writeErrors, firstWriteErr)
	}

	// Wait for delivery: every watcher has want events or has failed.
	timedOut := waitDelivered(ctx, watchers, want, wo.timeout)
	after := takeSample(env.o.serverPID, env.o.etcdPID)
	stopWatches()
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}

	s := analyzeFanout(watchers, acked, want)
	// Times were taken since base; the figures count from the first
	// write's send time.
	allDelivered := s.allDelivered - firstSent
	r.addInt(key("watchers_complete"), int64(s.complete))
	r.addInt(key("watchers_failed"), int64(s.failed))
	r.addInt(key("events_delivered"), s.delivered)
	// Without a complete watcher there is no delivery time; the figures
	// are left out rather than printed as a misleading 0 (and the medians
	// of several runs are then taken only over the keys all runs have).
	if s.complete > 0 {
		r.addDuration(key("all_delivered_s"), allDelivered)
		r.addFloat(key("events_per_s"), perSecond(int(s.delivered-s.unexpected), allDelivered))
		r.addDuration(key("drain_after_last_write_ms"), s.allDelivered-lastAck)
	}
	if len(s.latencies) > 0 {
		r.addDuration(key("latency_p50_ms"), percentile(s.latencies, 50))
		r.addDuration(key("latency_p99_ms"), percentile(s.latencies, 99))
		r.addInt(key("deliveries_before_ack"), s.early)
		for _, q := range []float64{10, 50, 90, 99} {
			r.addDuration(key(fmt.Sprintf("event_after_ack_p%g_ms", q)), percentile(s.afterAck, q))
		}
		r.addDuration(key("latency_from_send_p50_ms"), percentile(s.fromSend, 50))
		r.addDuration(key("latency_from_send_p99_ms"), percentile(s.fromSend, 99))
	}
	u := &result{}
	recordUsage(u, p, before, after, env.o.serverPID, env.o.etcdPID)
	r.add(u.withPrefix(key("")))

	if s.failed > 0 {
		reasons := failureReasons(watchers, want, 3)
		p.comment("%s: %d of %d watchers incomplete or failed (timed out: %v); e.g. %s",
			key("watchers_failed"), s.failed, n, timedOut, reasons)
		if s.delivered == 0 {
			p.comment("%s: no watcher received any event: the server's watches are stuck", key("watchers_failed"))
		} else if s.complete > 0 {
			p.comment("%s: times are those of the %d complete watchers", key("all_delivered_s"), s.complete)
		}
	}
	if s.unexpected > 0 {
		p.comment("%s: %d events with a resourceVersion no update returned", key("events_delivered"), s.unexpected)
	}
	return nil
}

// waitDelivered waits until every watcher has received want events or has
// failed, or timeout has passed; it says whether it timed out.
func waitDelivered(ctx context.Context, watchers []*watcher, want int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		done := true
		for _, w := range watchers {
			if w.count.Load() < int64(want) && !w.failed.Load() {
				done = false
				break
			}
		}
		if done {
			return false
		}
		if time.Now().After(deadline) {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
	}
}

// failureReasons describes up to max watchers that did not complete.
func failureReasons(watchers []*watcher, want, limit int) string {
	var out []string
	for i, w := range watchers {
		if len(out) == limit {
			break
		}
		switch {
		case w.failed.Load():
			out = append(out, fmt.Sprintf("watcher %d: %v", i, w.err))
		case len(w.recv) < want:
			out = append(out, fmt.Sprintf("watcher %d: %d of %d events", i, len(w.recv), want))
		}
	}
	return fmt.Sprint(out)
}

// writeEvents makes wo.events updates to the configmaps of ns with
// wo.writers writers and returns each update's outcome. Update k changes
// object k mod wo.objects; each object belongs to one writer, which updates
// it with the resourceVersion its previous update returned, so writers
// never conflict. Each update of the process writes a payload of its own
// (env.updates), so that no update leaves its object unchanged, also
// across fan-outs. With wo.writeRate, update k is not sent before its
// slot, k/writeRate seconds after the first; a writer that is behind
// sends at once.
func (env *apiEnv) writeEvents(ctx context.Context, ns string, wo watchOptions, rvs []string, base time.Time) []ackedWrite {
	client := env.cs.CoreV1().ConfigMaps(ns)
	writes := make([]ackedWrite, wo.events)
	basePayload := payload(env.o.payloadBytes, 0)
	start := time.Now()
	var wg sync.WaitGroup
	for writer := range wo.writers {
		wg.Go(func() {
			for k := range wo.events {
				obj := k % wo.objects
				if obj%wo.writers != writer {
					continue
				}
				if wo.writeRate > 0 {
					slot := start.Add(time.Duration(float64(k) / wo.writeRate * float64(time.Second)))
					if d := time.Until(slot); d > 0 {
						_ = pause(ctx, d)
					}
				}
				if ctx.Err() != nil {
					writes[k].err = ctx.Err()
					continue
				}
				cm := &corev1.ConfigMap{
					ObjectMeta: metav1.ObjectMeta{
						Name:            configMapName(obj),
						Labels:          map[string]string{"app": "kapi-bench"},
						ResourceVersion: rvs[obj],
					},
					Data: map[string]string{"payload": eventPayload(basePayload, int(env.updates.Add(1)))},
				}
				w := &writes[k]
				w.sent = time.Since(base)
				out, err := client.Update(ctx, cm, metav1.UpdateOptions{})
				w.ack = time.Since(base)
				if err == nil {
					w.rv, err = newResourceVersion(rvs[obj], out.ResourceVersion)
					rvs[obj] = out.ResourceVersion
				}
				w.err = err
			}
		})
	}
	wg.Wait()
	return writes
}

// newResourceVersion parses the resourceVersion an update returned and
// checks that it is newer than the object's previous one, prev: a server
// answers an update that changes nothing with the object as it was, without
// writing it or sending an event, and such an update must not be counted
// as an event.
func newResourceVersion(prev, got string) (uint64, error) {
	rv, err := strconv.ParseUint(got, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("resourceVersion %q is not a number", got)
	}
	if old, err := strconv.ParseUint(prev, 10, 64); err == nil && rv <= old {
		return 0, fmt.Errorf("update was not written: resourceVersion %s, before %s", got, prev)
	}
	return rv, nil
}

// eventPayload is the payload of update k: the base payload with k written
// over its start, so that every update changes its object and keeps its
// size.
func eventPayload(base string, k int) string {
	tag := strconv.Itoa(k) + ":"
	if len(tag) >= len(base) {
		return tag
	}
	return tag + base[len(tag):]
}

package metrics

import (
	"bufio"
	"context"
	"maps"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/kapi-dev/kapi/pkg/flowcontrol/fairqueuing"
	"github.com/kapi-dev/kapi/pkg/flowcontrol/request"
	kmetrics "github.com/kapi-dev/kapi/pkg/metrics"
)

var _ fairqueuing.Observer = (*Level)(nil)

// family is what the text format says of one metric family.
type family struct {
	help, typ string
	labels    []string   // label names but le, sorted
	buckets   []string   // le values of a histogram, in order
	seen      bool       // has samples
	labelSets [][]string // label name=value pairs of each sample
}

var sampleRE = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? `)
var labelRE = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"`)

// parseText reads the families of the Prometheus text format that
// start with prefix.
func parseText(t *testing.T, text, prefix string) map[string]*family {
	t.Helper()
	fams := map[string]*family{}
	get := func(name string) *family {
		if fams[name] == nil {
			fams[name] = &family{}
		}
		return fams[name]
	}
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "# HELP "); ok {
			name, help, _ := strings.Cut(rest, " ")
			if strings.HasPrefix(name, prefix) {
				get(name).help = help
			}
			continue
		}
		if rest, ok := strings.CutPrefix(line, "# TYPE "); ok {
			name, typ, _ := strings.Cut(rest, " ")
			if strings.HasPrefix(name, prefix) {
				get(name).typ = typ
			}
			continue
		}
		m := sampleRE.FindStringSubmatch(line)
		if m == nil || !strings.HasPrefix(m[1], prefix) {
			continue
		}
		name := m[1]
		if _, ok := fams[name]; !ok {
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				if base, ok := strings.CutSuffix(name, suffix); ok && fams[base] != nil {
					name = base
					break
				}
			}
		}
		f := get(name)
		f.seen = true
		var names, pairs []string
		le := ""
		for _, lm := range labelRE.FindAllStringSubmatch(m[2], -1) {
			if lm[1] == "le" {
				le = lm[2]
				continue
			}
			names = append(names, lm[1])
			pairs = append(pairs, lm[1]+"="+lm[2])
		}
		sort.Strings(names)
		sort.Strings(pairs)
		f.labels = names
		f.labelSets = append(f.labelSets, pairs)
		if le != "" && !slices.Contains(f.buckets, le) {
			f.buckets = append(f.buckets, le)
		}
	}
	return fams
}

// exercise drives every series kapi defines at least once: a queue set
// reporting to its Level through queuing, rejection and time-out, and
// the controller's and the filter's methods.
func exercise(t *testing.T, m *Metrics, clock *fairqueuing.FakeClock) {
	t.Helper()
	l := m.Level("apfq-tiny")
	qs, err := fairqueuing.New(fairqueuing.Config{Name: "apfq-tiny", Queues: 2, HandSize: 1, QueueLengthLimit: 1, ConcurrencyLimit: 1},
		fairqueuing.Options{Clock: clock, Observer: l})
	if err != nil {
		t.Fatal(err)
	}
	flow := fairqueuing.Flow{Hash: 0, Schema: "apfq-tiny"}
	one := request.WorkEstimate{InitialSeats: 1}
	running, _ := qs.StartRequest(context.Background(), one, flow, nil)
	ctx, cancel := context.WithCancel(context.Background())
	queued, _ := qs.StartRequest(ctx, one, flow, nil)
	if r, reason := qs.StartRequest(context.Background(), one, flow, nil); r != nil || reason != fairqueuing.QueueFull {
		t.Fatalf("want the third request rejected queue-full, got %q", reason)
	}
	cancel()
	if queued.Finish(func() {}) {
		t.Fatal("a cancelled request executed")
	}
	running.Finish(func() {})

	// A wide request that does not fit in the one free seat of two: no
	// accommodation.
	qs.SetConcurrencyLimit(2)
	narrow, _ := qs.StartRequest(context.Background(), one, flow, nil)
	wide, _ := qs.StartRequest(context.Background(), request.WorkEstimate{InitialSeats: 2}, fairqueuing.Flow{Hash: 1, Schema: "apfq-tiny"}, nil)
	narrow.Finish(func() {})
	wide.Finish(func() {})

	l.SetLimits(3, 3, 3)
	l.NoteAdjustment(Adjustment{HighWatermark: 1, Average: 0.5, StdDev: 0.5, Smoothed: 0.7, Target: 3, CurrentLimit: 3, ConcurrencyDenominator: 3})
	m.SetFairFrac(1)
	m.ObserveExecution("apfq-tiny", "apfq-tiny", false, time.Millisecond)
	m.ObserveWatchCount("apfq-tiny", "apfq-tiny", 3)
	m.SetReadWriteLimits(600, 600)
	m.AddReadWrite(PhaseExecuting, ReadOnlyKind, 1)
	m.AddWaiting(MutatingKind, 1)
	m.AddWaiting(MutatingKind, -1)
	l.ObserveEpochAdvance(true)

	exempt := fairqueuing.NewExempt("exempt", fairqueuing.Options{Clock: clock, Observer: m.Level("exempt")})
	r, _ := exempt.StartRequest(context.Background(), one, fairqueuing.Flow{Schema: "exempt"}, nil)
	r.Finish(func() {})
}

func gather(t *testing.T, reg *kmetrics.Registry) string {
	t.Helper()
	mfs, err := reg.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, mf := range mfs {
		writeFamily(&b, mf)
	}
	return b.String()
}

// writeFamily writes the text format, enough for parseText.
func writeFamily(b *strings.Builder, mf *dto.MetricFamily) {
	name := mf.GetName()
	b.WriteString("# HELP " + name + " " + mf.GetHelp() + "\n")
	b.WriteString("# TYPE " + name + " " + strings.ToLower(mf.GetType().String()) + "\n")
	for _, m := range mf.GetMetric() {
		var ls []string
		for _, lp := range m.GetLabel() {
			ls = append(ls, lp.GetName()+`="`+lp.GetValue()+`"`)
		}
		if h := m.GetHistogram(); h != nil {
			for _, bk := range h.GetBucket() {
				b.WriteString(name + "_bucket{" + strings.Join(append(slices.Clone(ls), `le="`+formatFloat(bk.GetUpperBound())+`"`), ",") + "} 1\n")
			}
			b.WriteString(name + "_bucket{" + strings.Join(append(slices.Clone(ls), `le="+Inf"`), ",") + "} 1\n")
			continue
		}
		b.WriteString(name + "{" + strings.Join(ls, ",") + "} 1\n")
	}
}

func formatFloat(f float64) string {
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func TestEverySeriesMatchesKubeAPIServer(t *testing.T) {
	recorded, err := os.ReadFile("testdata/oracle-metrics.txt")
	if err != nil {
		t.Fatal(err)
	}
	oracle := parseText(t, string(recorded), "apiserver_flowcontrol_")
	maps.Copy(oracle, parseText(t, string(recorded), "apiserver_current_inqueue_requests"))
	if len(oracle) < 31 {
		t.Fatalf("the recording holds %d families; it should hold kube-apiserver's 31", len(oracle))
	}
	reg := kmetrics.NewRegistry()
	m := New(reg, nil)
	exercise(t, m, fairqueuing.NewFakeClock(time.Now()))
	kapi := parseText(t, gather(t, reg), "apiserver_flowcontrol_")
	maps.Copy(kapi, parseText(t, gather(t, reg), "apiserver_current_inqueue_requests"))

	for name, want := range oracle {
		got, ok := kapi[name]
		if !ok {
			t.Errorf("%s: kube-apiserver exports it, kapi does not", name)
			continue
		}
		if got.help != want.help {
			t.Errorf("%s: help\n got %q\nwant %q", name, got.help, want.help)
		}
		if got.typ != want.typ {
			t.Errorf("%s: type %s, want %s", name, got.typ, want.typ)
		}
		if !slices.Equal(got.labels, want.labels) {
			t.Errorf("%s: labels %v, want %v", name, got.labels, want.labels)
		}
		if !slices.Equal(got.buckets, want.buckets) {
			t.Errorf("%s: buckets %v, want %v", name, got.buckets, want.buckets)
		}
	}
	// Seen in kube-apiserver's source but not in the recording: an
	// epoch advance takes years, and no accommodation needs a wide LIST
	// on a busy level, which the recording could not provoke.
	notRecorded := []string{"apiserver_flowcontrol_epoch_advance_total", "apiserver_flowcontrol_request_dispatch_no_accommodation_total"}
	for name, f := range kapi {
		if _, ok := oracle[name]; ok {
			continue
		}
		if !slices.Contains(notRecorded, name) {
			t.Errorf("%s: kapi exports it, kube-apiserver does not", name)
		}
		if !f.seen {
			t.Errorf("%s: the exercise recorded nothing", name)
		}
	}
}

// The queue set's observations land on the series of its level and of
// the request's flow schema, with the reason and execute labels.
func TestQueueSetObservationsCarryTheirLabels(t *testing.T) {
	reg := kmetrics.NewRegistry()
	m := New(reg, nil)
	exercise(t, m, fairqueuing.NewFakeClock(time.Now()))
	kapi := parseText(t, gather(t, reg), "apiserver_flowcontrol_")
	for _, tc := range []struct {
		family string
		labels []string
	}{
		{"apiserver_flowcontrol_rejected_requests_total", []string{"flow_schema=apfq-tiny", "priority_level=apfq-tiny", "reason=queue-full"}},
		{"apiserver_flowcontrol_rejected_requests_total", []string{"flow_schema=apfq-tiny", "priority_level=apfq-tiny", "reason=time-out"}},
		{"apiserver_flowcontrol_request_wait_duration_seconds", []string{"execute=false", "flow_schema=apfq-tiny", "priority_level=apfq-tiny"}},
		{"apiserver_flowcontrol_request_wait_duration_seconds", []string{"execute=true", "flow_schema=apfq-tiny", "priority_level=apfq-tiny"}},
		{"apiserver_flowcontrol_dispatched_requests_total", []string{"flow_schema=exempt", "priority_level=exempt"}},
		{"apiserver_flowcontrol_current_inqueue_requests", []string{"flow_schema=apfq-tiny", "priority_level=apfq-tiny"}},
		{"apiserver_flowcontrol_current_executing_seats", []string{"flow_schema=apfq-tiny", "priority_level=apfq-tiny"}},
		{"apiserver_flowcontrol_request_queue_length_after_enqueue", []string{"flow_schema=apfq-tiny", "priority_level=apfq-tiny"}},
		{"apiserver_flowcontrol_request_dispatch_no_accommodation_total", []string{"flow_schema=apfq-tiny", "priority_level=apfq-tiny"}},
		{"apiserver_flowcontrol_priority_level_seat_utilization", []string{"phase=executing", "priority_level=exempt"}},
		{"apiserver_flowcontrol_priority_level_request_utilization", []string{"phase=waiting", "priority_level=apfq-tiny"}},
		{"apiserver_flowcontrol_next_s_bounds", []string{"bound=min", "priority_level=apfq-tiny"}},
		{"apiserver_flowcontrol_current_r", []string{"priority_level=exempt"}},
		{"apiserver_flowcontrol_work_estimated_seats", []string{"flow_schema=exempt", "priority_level=exempt"}},
		{"apiserver_flowcontrol_read_vs_write_current_requests", []string{"phase=waiting", "request_kind=mutating"}},
	} {
		f := kapi[tc.family]
		if f == nil || !slices.ContainsFunc(f.labelSets, func(ls []string) bool { return slices.Equal(ls, tc.labels) }) {
			t.Errorf("%s has no series %v", tc.family, tc.labels)
		}
	}
}

// Values, read back from the registry.
func value(t *testing.T, reg *kmetrics.Registry, name string, labels map[string]string) *dto.Metric {
	t.Helper()
	mfs, err := reg.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	next:
		for _, m := range mf.GetMetric() {
			got := map[string]string{}
			for _, lp := range m.GetLabel() {
				got[lp.GetName()] = lp.GetValue()
			}
			for k, v := range labels {
				if got[k] != v {
					continue next
				}
			}
			return m
		}
	}
	t.Fatalf("%s%v not found", name, labels)
	return nil
}

func TestGaugesFollowTheQueueSet(t *testing.T) {
	reg := kmetrics.NewRegistry()
	clock := fairqueuing.NewFakeClock(time.Now())
	m := New(reg, clock.Now)
	qs, err := fairqueuing.New(fairqueuing.Config{Name: "pl", Queues: 4, HandSize: 1, QueueLengthLimit: 10, ConcurrencyLimit: 2},
		fairqueuing.Options{Clock: clock, Observer: m.Level("pl")})
	if err != nil {
		t.Fatal(err)
	}
	fs := map[string]string{"priority_level": "pl", "flow_schema": "fs"}
	var reqs []*fairqueuing.Request
	for range 3 {
		r, _ := qs.StartRequest(context.Background(), request.WorkEstimate{InitialSeats: 1, FinalSeats: 2, AdditionalLatency: time.Second}, fairqueuing.Flow{Schema: "fs"}, nil)
		reqs = append(reqs, r)
	}
	// Two seats: the first holds both (its final seats), two wait.
	if got := value(t, reg, "apiserver_flowcontrol_current_executing_seats", fs).GetGauge().GetValue(); got != 2 {
		t.Errorf("executing seats %v, want 2", got)
	}
	if got := value(t, reg, "apiserver_flowcontrol_current_inqueue_requests", fs).GetGauge().GetValue(); got != 2 {
		t.Errorf("in-queue requests %v, want 2", got)
	}
	if got := value(t, reg, "apiserver_flowcontrol_current_inqueue_seats", fs).GetGauge().GetValue(); got != 4 {
		t.Errorf("in-queue seats %v, want 4", got)
	}
	clock.Step(time.Second)
	// Seat utilization was 2/2 for one second.
	h := value(t, reg, "apiserver_flowcontrol_priority_level_seat_utilization", map[string]string{"priority_level": "pl"}).GetHistogram()
	if h.GetSampleCount() != uint64(time.Second) || h.GetSampleSum() != float64(time.Second) {
		t.Errorf("seat utilization count %d sum %v, want 1e9 ns at ratio 1", h.GetSampleCount(), h.GetSampleSum())
	}
	if b := h.GetBucket(); b[len(b)-2].GetCumulativeCount() != 0 || b[len(b)-1].GetCumulativeCount() != uint64(time.Second) {
		t.Errorf("a ratio of 1 belongs in the le=1 bucket only: %v", b)
	}
	// Demand: 6 seats wanted against the default denominator of 1.
	d := value(t, reg, "apiserver_flowcontrol_demand_seats", map[string]string{"priority_level": "pl"}).GetHistogram()
	if d.GetSampleSum() != 6*float64(time.Second) {
		t.Errorf("demand sum %v, want 6 x 1e9", d.GetSampleSum())
	}
	// Each request, once dispatched, returns at once and holds its
	// final seats for a second, after which the next is dispatched.
	for _, r := range reqs {
		if !r.Finish(func() {}) {
			t.Fatal("a request did not execute")
		}
		clock.Step(time.Second)
	}
	if got := value(t, reg, "apiserver_flowcontrol_current_executing_seats", fs).GetGauge().GetValue(); got != 0 {
		t.Errorf("executing seats at the end %v, want 0", got)
	}
	if got := value(t, reg, "apiserver_flowcontrol_dispatched_requests_total", fs).GetCounter().GetValue(); got != 3 {
		t.Errorf("dispatched %v, want 3", got)
	}
}

// The filter's counts of waiting and executing requests by kind feed
// the read-vs-write histograms and the per-second watermarks.
func TestWaitingAndExecutingByKind(t *testing.T) {
	reg := kmetrics.NewRegistry()
	clock := fairqueuing.NewFakeClock(time.Now())
	m := New(reg, clock.Now)
	m.SetReadWriteLimits(10, 4)
	m.AddExecuting(MutatingKind, 1)
	m.AddExecuting(MutatingKind, 1)
	m.AddWaiting(ReadOnlyKind, 3)
	clock.Step(time.Second)
	h := value(t, reg, "apiserver_flowcontrol_read_vs_write_current_requests", map[string]string{"phase": "executing", "request_kind": "mutating"}).GetHistogram()
	// 2 of 4 for one second.
	if h.GetSampleSum() != 0.5*float64(time.Second) {
		t.Errorf("executing mutating sum %v, want 0.5 x 1e9", h.GetSampleSum())
	}
	w := value(t, reg, "apiserver_flowcontrol_read_vs_write_current_requests", map[string]string{"phase": "waiting", "request_kind": "readOnly"}).GetHistogram()
	if w.GetSampleSum() != 0.3*float64(time.Second) {
		t.Errorf("waiting read-only sum %v, want 0.3 x 1e9", w.GetSampleSum())
	}
	m.AddExecuting(MutatingKind, -2)
	m.AddWaiting(ReadOnlyKind, -3)
	m.AddWaiting("bogus", 1) // ignored
	for _, kind := range []string{ReadOnlyKind, MutatingKind} {
		value(t, reg, "apiserver_current_inqueue_requests", map[string]string{"request_kind": kind})
		value(t, reg, "apiserver_current_inflight_requests", map[string]string{"request_kind": kind})
	}
}

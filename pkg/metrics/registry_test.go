package metrics

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/kapi-dev/kapi/internal/required"
)

var podsList = RequestLabels{Verb: "LIST", Version: "v1", Resource: "pods", Scope: "namespace", Component: APIServerComponent}

func TestObserveRequest(t *testing.T) {
	r := NewRegistry()
	r.ObserveRequest(podsList, 200, 30*time.Millisecond, 5000)
	r.ObserveRequest(podsList, 200, 70*time.Millisecond, 15000)
	create := RequestLabels{Verb: "POST", Version: "v1", Resource: "pods", Scope: "resource", Component: APIServerComponent}
	r.ObserveRequest(create, 201, time.Second, 800)

	if got := value(t, r.requests.WithLabelValues("LIST", "", "", "v1", "pods", "", "namespace", "apiserver", "200")); got != 2 {
		t.Errorf("LIST 200 counted %v times, want 2", got)
	}
	if got := value(t, r.requests.WithLabelValues("POST", "", "", "v1", "pods", "", "resource", "apiserver", "201")); got != 1 {
		t.Errorf("POST 201 counted %v times, want 1", got)
	}

	// Durations of both verbs; sizes of reads only.
	if got := histogramCount(t, r, "apiserver_request_duration_seconds", "LIST"); got != 2 {
		t.Errorf("LIST durations observed: %d, want 2", got)
	}
	if got := histogramCount(t, r, "apiserver_request_duration_seconds", "POST"); got != 1 {
		t.Errorf("POST durations observed: %d, want 1", got)
	}
	if got := histogramCount(t, r, "apiserver_response_sizes", "LIST"); got != 2 {
		t.Errorf("LIST sizes observed: %d, want 2", got)
	}
	if got := histogramCount(t, r, "apiserver_response_sizes", "POST"); got != 0 {
		t.Errorf("POST sizes observed: %d, want 0", got)
	}
}

// Authenticated users are counted by category, never by their name.
func TestAuthenticatedUsersAreCountedByCategory(t *testing.T) {
	for name, want := range map[string]string{
		"admin":   "admin",
		"kubelet": "kubelet",
		"system:serviceaccount:kube-system:default": "system:serviceaccount:kube-system:default",
		"system:serviceaccount:ns:builder":          "other",
		"jane@example.com":                          "email_id",
		"kubernetes-admin":                          "other",
	} {
		if got := usernameCategory(name); got != want {
			t.Errorf("%s counts as %q, want %q", name, got, want)
		}
	}
}

func TestRequestDurationBucketsAreKubeAPIServers(t *testing.T) {
	r := NewRegistry()
	r.ObserveRequest(podsList, 200, time.Millisecond, 0)
	h := findHistogram(t, r, "apiserver_request_duration_seconds", "LIST")
	var bounds []float64
	for _, b := range h.GetBucket() {
		bounds = append(bounds, b.GetUpperBound())
	}
	want := []float64{0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60}
	if len(bounds) != len(want) {
		t.Fatalf("buckets %v, want %v", bounds, want)
	}
	for i := range want {
		if bounds[i] != want[i] {
			t.Fatalf("buckets %v, want %v", bounds, want)
		}
	}
}

func TestCountRequestObservesNoDuration(t *testing.T) {
	r := NewRegistry()
	r.CountRequest(podsList, 429)
	if got := value(t, r.requests.WithLabelValues("LIST", "", "", "v1", "pods", "", "namespace", "apiserver", "429")); got != 1 {
		t.Errorf("429s counted: %v, want 1", got)
	}
	if got := histogramCount(t, r, "apiserver_request_duration_seconds", "LIST"); got != 0 {
		t.Errorf("durations observed: %d, want 0", got)
	}
}

func TestRecordTermination(t *testing.T) {
	r := NewRegistry()
	r.RecordTermination(podsList, 504)
	r.RecordTermination(podsList, 504)
	if got := value(t, r.terminations.WithLabelValues("LIST", "", "v1", "pods", "", "namespace", "apiserver", "504")); got != 2 {
		t.Errorf("terminations counted: %v, want 2", got)
	}
}

func TestTrackLongRunning(t *testing.T) {
	r := NewRegistry()
	watch := RequestLabels{Verb: "WATCH", Version: "v1", Resource: "pods", Scope: "cluster", Component: APIServerComponent}
	gauge := r.longRunning.WithLabelValues("WATCH", "", "v1", "pods", "", "cluster", "apiserver")

	done1 := r.TrackLongRunning(watch)
	done2 := r.TrackLongRunning(watch)
	if got := value(t, gauge); got != 2 {
		t.Errorf("with two watches open: %v, want 2", got)
	}
	done1()
	done2()
	if got := value(t, gauge); got != 0 {
		t.Errorf("with the watches closed: %v, want 0", got)
	}
}

func TestHandlerServesTextFormat(t *testing.T) {
	r := NewRegistry()
	r.ObserveRequest(podsList, 200, time.Millisecond, 10)

	rec := httptest.NewRecorder()
	r.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d, want 200", rec.Code)
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("Content-Type %q, want the Prometheus text format", ct)
	}
	body := rec.Body.String()
	for _, want := range []string{
		`apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1"} 1`,
		`apiserver_current_inflight_requests{request_kind="mutating"} 0`,
		`apiserver_current_inflight_requests{request_kind="readOnly"} 0`,
		"# TYPE go_goroutines gauge",
		"# TYPE go_sched_gomaxprocs_threads gauge",
		"# TYPE process_start_time_seconds gauge",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

func TestRegistriesAreIndependent(t *testing.T) {
	a, b := NewRegistry(), NewRegistry()
	a.CountRequest(podsList, 200)
	if n := seriesCount(t, b.requests); n != 0 {
		t.Errorf("a request counted in one registry shows %d series in another", n)
	}
}

// referenceMetrics is the list of metric families kube-apiserver 1.37
// exported, with their HELP and TYPE lines.
const referenceMetrics = "health/metrics-names-and-help.txt"

type familyHeader struct{ help, typ string }

// TestNamesAndHelpMatchKubeAPIServer checks that every family we export
// that kube-apiserver also exports has the same help text and type, and
// that we export every Go runtime and process family it does.
func TestNamesAndHelpMatchKubeAPIServer(t *testing.T) {
	reference := readReference(t)

	r := NewRegistry()
	// Make every vector have a series, so that it is gathered.
	r.ObserveRequest(podsList, 200, time.Millisecond, 10)
	r.TrackLongRunning(podsList)
	r.ObserveAuthentication(AuthenticationSuccess, "admin", time.Millisecond)
	r.ObserveAuthorization(AuthorizationAllowed, time.Millisecond)

	families, err := r.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	ours := map[string]familyHeader{}
	for _, mf := range families {
		ours[mf.GetName()] = familyHeader{help: mf.GetHelp(), typ: strings.ToLower(mf.GetType().String())}
	}

	for _, name := range []string{
		"apiserver_request_total",
		"apiserver_request_duration_seconds",
		"apiserver_response_sizes",
		"apiserver_longrunning_requests",
		"apiserver_current_inflight_requests",
		"authenticated_user_requests",
		"authentication_attempts",
		"authentication_duration_seconds",
		"authorization_attempts_total",
		"authorization_duration_seconds",
	} {
		want, ok := reference[name]
		if !ok {
			t.Errorf("%s is not in the reference", name)
			continue
		}
		if got := ours[name]; got != want {
			t.Errorf("%s:\n got  %+v\n want %+v", name, got, want)
		}
	}

	for name, want := range reference {
		if !strings.HasPrefix(name, "go_") && !strings.HasPrefix(name, "process_") {
			continue
		}
		got, ok := ours[name]
		if !ok {
			t.Errorf("kube-apiserver exports %s, we do not", name)
			continue
		}
		if got.typ != want.typ {
			t.Errorf("%s has type %s, kube-apiserver %s", name, got.typ, want.typ)
		}
	}
}

func readReference(t *testing.T) map[string]familyHeader {
	t.Helper()
	f, err := os.Open(required.Reference(t, referenceMetrics))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return parseHelpAndType(t, f)
}

// parseHelpAndType reads "# HELP name text" and "# TYPE name type" lines.
func parseHelpAndType(t *testing.T, r io.Reader) map[string]familyHeader {
	t.Helper()
	out := map[string]familyHeader{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		fields := strings.SplitN(sc.Text(), " ", 4)
		if len(fields) < 3 || fields[0] != "#" {
			continue
		}
		name, rest := fields[2], ""
		if len(fields) == 4 {
			rest = fields[3]
		}
		h := out[name]
		switch fields[1] {
		case "HELP":
			h.help = rest
		case "TYPE":
			h.typ = rest
		}
		out[name] = h
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func findHistogram(t *testing.T, r *Registry, name, verb string) *dto.Histogram {
	t.Helper()
	families, err := r.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range families {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "verb" && l.GetValue() == verb {
					return m.GetHistogram()
				}
			}
		}
	}
	return nil
}

func histogramCount(t *testing.T, r *Registry, name, verb string) uint64 {
	t.Helper()
	return findHistogram(t, r, name, verb).GetSampleCount()
}

// value is the current value of a counter or gauge.
func value(t *testing.T, m prometheus.Metric) float64 {
	t.Helper()
	var out dto.Metric
	if err := m.Write(&out); err != nil {
		t.Fatal(err)
	}
	if c := out.GetCounter(); c != nil {
		return c.GetValue()
	}
	return out.GetGauge().GetValue()
}

// seriesCount is the number of series c collects.
func seriesCount(t *testing.T, c prometheus.Collector) int {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, mf := range families {
		n += len(mf.GetMetric())
	}
	return n
}

package main

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestFormatValue(t *testing.T) {
	tests := []struct {
		key  string
		val  value
		want string
	}{
		{"create_errors", value{f: 0, integer: true}, "0"},
		{"list_json_rv0_bytes", value{f: 7404309, integer: true}, "7404309"},
		// Times always keep three decimals, however large.
		{"create_p50_ms", value{f: 34.5271}, "34.527"},
		{"list_json_rv0_ms", value{f: 103}, "103.000"},
		{"get_p50_ms", value{f: 0.0421}, "0.042"},
		{"suite_wall_s", value{f: 37.3284}, "37.328"},
		// Other floats: three decimals below 100, one above.
		{"create_configmaps_per_s", value{f: 877.66}, "877.7"},
		{"server_rss_mib", value{f: 71.2}, "71.200"},
		{"watch_events_per_s", value{f: 14290.71}, "14290.7"},
		{"idle_rss_mib", value{f: -150.25}, "-150.2"},
	}
	for _, tt := range tests {
		if got := formatValue(tt.key, tt.val); got != tt.want {
			t.Errorf("formatValue(%s, %v) = %q, want %q", tt.key, tt.val.f, got, tt.want)
		}
	}
}

func TestAddDurationUnits(t *testing.T) {
	r := &result{}
	r.addDuration("x_ms", 1500*time.Microsecond)
	r.addDuration("y_s", 1500*time.Millisecond)
	if v, _ := r.get("x_ms"); v.f != 1.5 || v.integer {
		t.Errorf("x_ms = %+v, want 1.5", v)
	}
	if v, _ := r.get("y_s"); v.f != 1.5 || v.integer {
		t.Errorf("y_s = %+v, want 1.5", v)
	}
	defer func() {
		if recover() == nil {
			t.Error("addDuration accepted a key without a time unit suffix")
		}
	}()
	r.addDuration("create_configmaps_per_s", time.Second)
}

func TestPrinter(t *testing.T) {
	var b strings.Builder
	p := &printer{w: &b}
	p.comment("run %d namespace %s", 1, "bench-1")
	p.comment("two\nlines")
	r := &result{}
	r.addFloat("create_configmaps_per_s", 1032.31)
	r.addDuration("create_p99_ms", 74916*time.Microsecond)
	r.addInt("create_errors", 0)
	p.result(runPrefix(2, 3), r)
	p.blank()
	p.result(runPrefix(1, 1), r)

	want := `# run 1 namespace bench-1
# two
# lines
run2.create_configmaps_per_s 1032.3
run2.create_p99_ms 74.916
run2.create_errors 0

create_configmaps_per_s 1032.3
create_p99_ms 74.916
create_errors 0
`
	if b.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", b.String(), want)
	}
	if p.err != nil {
		t.Errorf("err = %v", p.err)
	}
}

type failingWriter struct{ n int }

func (w *failingWriter) Write(b []byte) (int, error) {
	w.n++
	return 0, errors.New("disk full")
}

func TestPrinterKeepsFirstError(t *testing.T) {
	w := &failingWriter{}
	p := &printer{w: w}
	p.comment("a")
	p.comment("b")
	if p.err == nil || w.n != 1 {
		t.Errorf("err = %v after %d writes, want the first error and no further writes", p.err, w.n)
	}
}

func TestMedianResult(t *testing.T) {
	run := func(rate float64, bytes int64, withRSS bool) *result {
		r := &result{}
		r.addFloat("create_configmaps_per_s", rate)
		r.addInt("list_json_rv0_bytes", bytes)
		if withRSS {
			r.addFloat("server_rss_mib", 100)
		}
		return r
	}
	got := medianResult([]*result{run(877.7, 7404309, true), run(1032.3, 7410092, false), run(1039.4, 7410092, true)})
	var b strings.Builder
	(&printer{w: &b}).result("", got)
	// server_rss_mib is missing from one run, so it has no median.
	want := "create_configmaps_per_s 1032.3\nlist_json_rv0_bytes 7410092\n"
	if b.String() != want {
		t.Errorf("median output:\n%s\nwant:\n%s", b.String(), want)
	}

	// An even number of integer runs averages the middle two and rounds.
	got = medianResult([]*result{run(1, 10, false), run(2, 11, false)})
	if v, _ := got.get("list_json_rv0_bytes"); !v.integer || formatValue("list_json_rv0_bytes", v) != "11" {
		t.Errorf("median bytes = %+v (%s), want integer 11", v, formatValue("list_json_rv0_bytes", v))
	}
	if len(medianResult(nil).metrics) != 0 {
		t.Error("median of no runs has figures")
	}
}

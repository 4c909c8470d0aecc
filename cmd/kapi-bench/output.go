package main

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// The output format is the one of the kube-apiserver baseline
// (reference/kube-apiserver-v1.37.1/bench-baseline.txt): one "key value" per
// line, "#" lines for context. Keeping the same format and key names lets a
// plain diff or a two-line awk script put kapi's figures beside the
// baseline's.

// value is one measured figure. Counts and byte sizes are integers and are
// printed without decimals; everything else is a float.
type value struct {
	f       float64
	integer bool
}

// metric is one named figure of a run.
type metric struct {
	key string
	val value
}

// result is the ordered list of figures of one run of a suite. Order is
// kept so that the output reads in the order the suite measured things.
type result struct {
	metrics []metric
}

func (r *result) addInt(key string, v int64) {
	r.metrics = append(r.metrics, metric{key, value{f: float64(v), integer: true}})
}

func (r *result) addFloat(key string, v float64) {
	r.metrics = append(r.metrics, metric{key, value{f: v}})
}

// addDuration records d in the unit named by the key's suffix: "_ms" for
// milliseconds, "_s" for seconds. Tying the unit to the key name means a
// reader never has to guess it.
func (r *result) addDuration(key string, d time.Duration) {
	switch timeUnit(key) {
	case time.Millisecond:
		r.addFloat(key, float64(d)/float64(time.Millisecond))
	case time.Second:
		r.addFloat(key, d.Seconds())
	default:
		panic("addDuration: key without a time unit suffix: " + key)
	}
}

// timeUnit returns the unit a key's suffix names, or 0 if the key is not a
// time: "_ms" and "_s" are times, "_per_s" is a rate.
func timeUnit(key string) time.Duration {
	switch {
	case strings.HasSuffix(key, "_ms"):
		return time.Millisecond
	case strings.HasSuffix(key, "_per_s"):
		return 0
	case strings.HasSuffix(key, "_s"):
		return time.Second
	}
	return 0
}

// get returns the value of key, if the run has it.
func (r *result) get(key string) (value, bool) {
	for _, m := range r.metrics {
		if m.key == key {
			return m.val, true
		}
	}
	return value{}, false
}

// formatValue prints v for key. Times ("_ms", "_s") always keep three
// decimals, i.e. microsecond resolution for latencies, because p50s of
// loopback requests can be well under a millisecond. Other floats (rates,
// MiB) keep three decimals below 100 and one above, which is the precision
// the baseline prints and more than the run-to-run noise.
func formatValue(key string, v value) string {
	if v.integer {
		return strconv.FormatInt(int64(math.Round(v.f)), 10)
	}
	if math.IsNaN(v.f) || math.IsInf(v.f, 0) {
		return "NaN"
	}
	if timeUnit(key) != 0 || math.Abs(v.f) < 100 {
		return strconv.FormatFloat(v.f, 'f', 3, 64)
	}
	return strconv.FormatFloat(v.f, 'f', 1, 64)
}

// printer writes the machine-readable output. Lines are written as soon as
// they are known, so a long or interrupted run still leaves its figures. The
// first write error is kept and reported once at the end instead of
// checking every line.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) write(s string) {
	if p.err != nil {
		return
	}
	_, p.err = io.WriteString(p.w, s)
}

// comment writes a "#" line. Embedded newlines would break the format, so
// each line of a multi-line message becomes its own comment line.
func (p *printer) comment(format string, args ...any) {
	for _, line := range strings.Split(fmt.Sprintf(format, args...), "\n") {
		p.write("# " + line + "\n")
	}
}

// blank writes an empty line, separating sections as the baseline does.
func (p *printer) blank() { p.write("\n") }

// result writes every figure of r, each key prefixed with prefix (e.g.
// "run1." or "" for medians).
func (p *printer) result(prefix string, r *result) {
	for _, m := range r.metrics {
		p.write(prefix + m.key + " " + formatValue(m.key, m.val) + "\n")
	}
}

// runPrefix is the key prefix of run's figures: "runN." when there are
// several runs, whose medians then go unprefixed, and none for a single run,
// whose figures are the result.
func runPrefix(run, runs int) string {
	if runs == 1 {
		return ""
	}
	return fmt.Sprintf("run%d.", run)
}

// medianResult returns, for every key present in all runs, the median of its
// values, in the key order of the first run. A key missing from some run
// (e.g. a figure that could not be read once) is left out rather than being
// the median of fewer runs under the same name.
func medianResult(runs []*result) *result {
	out := &result{}
	if len(runs) == 0 {
		return out
	}
	for _, m := range runs[0].metrics {
		vals := make([]float64, 0, len(runs))
		for _, r := range runs {
			v, ok := r.get(m.key)
			if !ok {
				break
			}
			vals = append(vals, v.f)
		}
		if len(vals) != len(runs) {
			continue
		}
		out.metrics = append(out.metrics, metric{m.key, value{f: median(vals), integer: m.val.integer}})
	}
	return out
}

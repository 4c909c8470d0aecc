package flowcontrol

import (
	"bufio"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// oracleGauges reads testdata/oracle-limits.txt: gauge name -> level ->
// value, from kube-apiserver's /metrics.
func oracleGauges(t *testing.T) (map[string]map[string]float64, float64) {
	t.Helper()
	f, err := os.Open("testdata/oracle-limits.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	line := regexp.MustCompile(`^apiserver_flowcontrol_(\w+)\{priority_level="([^"]+)"\} (\S+)$`)
	out := map[string]map[string]float64{}
	var fair float64
	s := bufio.NewScanner(f)
	for s.Scan() {
		text := s.Text()
		if v, ok := strings.CutPrefix(text, "apiserver_flowcontrol_seat_fair_frac "); ok {
			fair, _ = strconv.ParseFloat(v, 64)
			continue
		}
		m := line.FindStringSubmatch(text)
		if m == nil {
			continue
		}
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			t.Fatal(err)
		}
		if out[m[1]] == nil {
			out[m[1]] = map[string]float64{}
		}
		out[m[1]][m[2]] = v
	}
	return out, fair
}

// TestLimitsOfTheBootstrapConfigurationMatchKubeAPIServer gives the
// controller kube-apiserver's bootstrap configuration and its default
// total of 600 seats, with no demand, and expects the nominal, lower and
// upper limits kube-apiserver reported, and its current limits: with no
// demand every limited level is lent its lendable seats back, in
// proportion to what it may not lend (the fair fraction 602/258).
func TestLimitsOfTheBootstrapConfigurationMatchKubeAPIServer(t *testing.T) {
	rec := readClassificationRecording(t)
	ctl := New(Config{ServerConcurrencyLimit: 600})
	var bootstrapFS = rec.FlowSchemas[:0:0]
	for _, fs := range rec.FlowSchemas {
		if !strings.HasPrefix(fs.Name, "apf-") {
			bootstrapFS = append(bootstrapFS, fs)
		}
	}
	levels := rec.PriorityLevels[:0:0]
	for _, pl := range rec.PriorityLevels {
		if !strings.HasPrefix(pl.Name, "apf-") {
			levels = append(levels, pl)
		}
	}
	ctl.digest(bootstrapFS, levels)
	gauges, fair := oracleGauges(t)
	if len(gauges["nominal_limit_seats"]) != 8 {
		t.Fatalf("recorded limits of %d levels, want the 8 of the bootstrap configuration", len(gauges["nominal_limit_seats"]))
	}
	ctl.mu.Lock()
	defer ctl.mu.Unlock()
	if len(ctl.levels) != 8 {
		t.Errorf("%d levels, want 8", len(ctl.levels))
	}
	for name, l := range ctl.levels {
		check := func(gauge string, got int) {
			if want := gauges[gauge][name]; float64(got) != want {
				t.Errorf("%s %s = %d, kube-apiserver %v", name, gauge, got, want)
			}
		}
		check("nominal_limit_seats", l.limits.nominalCL)
		check("lower_limit_seats", l.limits.minCL)
		check("upper_limit_seats", l.limits.maxCL)
		if !l.exempt {
			// The exempt level is charged its high watermark, which
			// was not 0 on the oracle (the scrape itself).
			check("current_limit_seats", l.current)
		}
	}
	if fair == 0 {
		t.Fatal("no fair fraction recorded")
	}
}

// TestFairAllocation checks the defining property of the allocation:
// the allocations sum to the total, stay within their bounds, and every
// allocation strictly within its bounds is the same multiple of its
// target.
func TestFairAllocation(t *testing.T) {
	cases := []struct {
		name  string
		total int
		items []allocItem
		want  []float64 // nil: only the properties
		err   bool
	}{
		{name: "no bounds matter", total: 60, items: []allocItem{{target: 10, lower: 0, upper: 100}, {target: 20, lower: 0, upper: 100}}, want: []float64{20, 40}},
		{name: "a lower bound holds", total: 60, items: []allocItem{{target: 10, lower: 0, upper: 100}, {target: 40, lower: 40, upper: 100}, {target: 15, lower: 15, upper: 100}}},
		{name: "an upper bound holds", total: 100, items: []allocItem{{target: 10, lower: 0, upper: 20}, {target: 10, lower: 0, upper: 100}}, want: []float64{20, 80}},
		{name: "lower bounds take everything", total: 30, items: []allocItem{{target: 10, lower: 10, upper: 20}, {target: 20, lower: 20, upper: 30}}, want: []float64{10, 20}},
		{name: "upper bounds take everything", total: 50, items: []allocItem{{target: 10, lower: 10, upper: 20}, {target: 20, lower: 20, upper: 30}}, want: []float64{20, 30}},
		{name: "zero targets share evenly", total: 10, items: []allocItem{{}, {upper: 10}, {upper: 10}}, want: []float64{0, 5, 5}},
		{name: "nothing to share", total: 0, items: []allocItem{{upper: 3}}, want: []float64{0}},
		{name: "lower bounds exceed the total", total: 5, items: []allocItem{{target: 10, lower: 10, upper: 20}}, err: true},
		{name: "upper bounds fall short", total: 50, items: []allocItem{{target: 10, lower: 10, upper: 20}}, err: true},
		{name: "target below its lower bound", total: 20, items: []allocItem{{target: 1, lower: 10, upper: 20}}, err: true},
		{name: "negative total", total: -1, err: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, fair, err := fairAllocation(c.total, c.items)
			if c.err {
				if err == nil {
					t.Fatalf("got %v, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var sum float64
			for i, a := range got {
				it := c.items[i]
				sum += a
				if a < it.lower-allocEpsilon || a > it.upper+allocEpsilon {
					t.Errorf("item %d got %v outside [%v, %v]", i, a, it.lower, it.upper)
				}
				if a > it.lower+allocEpsilon && a < it.upper-allocEpsilon {
					if want := fair * math.Max(it.target, minTarget); math.Abs(a-want) > 1e-6 {
						t.Errorf("item %d got %v, not %v times its target %v", i, a, fair, it.target)
					}
				}
			}
			if math.Abs(sum-float64(c.total)) > 1e-6 {
				t.Errorf("allocations %v sum to %v, want %d", got, sum, c.total)
			}
			for i := range c.want {
				if math.Abs(got[i]-c.want[i]) > 1e-6 {
					t.Errorf("allocations %v, want %v", got, c.want)
					break
				}
			}
		})
	}
}

// TestAdjustLimits covers the three regimes of kube-apiserver's
// adjustment, for two limited levels (nominal 50 each, of which 20
// lendable, borrowing up to 100) and an exempt one.
func TestAdjustLimits(t *testing.T) {
	limited := levelLimits{nominalCL: 50, minCL: 30, maxCL: 150}
	exempt := levelLimits{nominalCL: 0, minCL: 0, maxCL: 100}
	cases := []struct {
		name   string
		levels []demand
		want   []int
	}{{
		name:   "idle: what may be lent is shared back in proportion",
		levels: []demand{{limits: limited}, {limits: limited}, {limits: exempt, exempt: true}},
		want:   []int{50, 50, 0},
	}, {
		name: "a busy level borrows what an idle one lends",
		levels: []demand{
			{limits: limited, highWatermark: 80, smoothed: 90},
			{limits: limited},
			{limits: exempt, exempt: true},
		},
		// targets 90 and 30, fair 100/120: 75 and 25 -> 25 is below 30.
		want: []int{70, 30, 0},
	}, {
		name: "exempt use beyond the minimums leaves everyone its minimum",
		levels: []demand{
			{limits: limited, highWatermark: 80, smoothed: 90},
			{limits: limited, highWatermark: 80, smoothed: 90},
			{limits: exempt, exempt: true, highWatermark: 45},
		},
		want: []int{30, 30, 45},
	}, {
		name: "exempt use cuts into the recent demands in proportion",
		levels: []demand{
			{limits: limited, highWatermark: 50, smoothed: 50},
			{limits: limited, highWatermark: 40, smoothed: 40},
			{limits: exempt, exempt: true, highWatermark: 20},
		},
		// 80 seats remain for minimums of 60 and demands of 90: each
		// level gets two thirds of its demand above its minimum.
		want: []int{43, 37, 20},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, _ := adjustLimits(100, c.levels)
			for i := range c.want {
				if got[i] != c.want[i] {
					t.Fatalf("limits %v, want %v", got, c.want)
				}
			}
		})
	}
}

func TestMaxSeats(t *testing.T) {
	cases := []struct {
		nominal  int
		handSize int32
		want     uint64
	}{
		{nominal: 245, handSize: 6, want: 37}, // ceil(36.75), 245/6 = 40
		{nominal: 49, handSize: 6, want: 8},   // ceil(7.35), 49/6 = 8
		{nominal: 25, handSize: 4, want: 4},   // ceil(3.75), 25/4 = 6
		{nominal: 3, handSize: 6, want: 1},    // 3/6 = 0, at least 1
		{nominal: 0, handSize: 6, want: 1},
	}
	for _, c := range cases {
		if got := maxSeatsFor(c.nominal, c.handSize); got != c.want {
			t.Errorf("maxSeatsFor(%d, %d) = %d, want %d", c.nominal, c.handSize, got, c.want)
		}
	}
}

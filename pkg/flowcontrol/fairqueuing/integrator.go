package fairqueuing

import (
	"math"
	"time"
)

// integrator accumulates the time-weighted moments of a value that
// changes in steps: the seat demand of a level, between two reads by
// borrowing.
type integrator struct {
	since, last time.Time
	x           float64
	// Integrals over time (in seconds) of 1, x and x².
	dt, x1, x2 float64
	high       float64
}

func newIntegrator(now time.Time) integrator {
	return integrator{since: now, last: now}
}

func (g *integrator) advance(now time.Time) {
	if dt := now.Sub(g.last).Seconds(); dt > 0 {
		g.dt += dt
		g.x1 += g.x * dt
		g.x2 += g.x * g.x * dt
		g.last = now
	}
}

func (g *integrator) set(now time.Time, x float64) {
	g.advance(now)
	g.x = x
	g.high = max(g.high, x)
}

// reset returns the statistics since the last reset and starts anew at
// the current value.
func (g *integrator) reset(now time.Time) SeatDemand {
	g.advance(now)
	d := SeatDemand{
		Duration:      now.Sub(g.since),
		Average:       math.NaN(),
		StdDev:        math.NaN(),
		HighWatermark: g.high,
	}
	if g.dt > 0 {
		d.Average = g.x1 / g.dt
		// Rounding can make a constant's variance slightly negative.
		d.StdDev = math.Sqrt(max(0, g.x2/g.dt-d.Average*d.Average))
	}
	*g = integrator{since: now, last: now, x: g.x, high: g.x}
	return d
}

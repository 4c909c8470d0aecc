package fairqueuing

import (
	"fmt"
	"math"
	"time"
)

// SeatSeconds is an amount of work, or a reading of virtual time, in
// seat-seconds: one seat occupied for one second. It is fixed point
// (a unit is 10ns of one seat), so that virtual times compare exactly
// and add without rounding drift, as kube-apiserver's do.
type SeatSeconds uint64

const ssScale = 1e8

// MaxSeatSeconds is the largest SeatSeconds.
const MaxSeatSeconds = SeatSeconds(math.MaxUint64)

// SeatsTimesDuration is the work of seats held for d.
func SeatsTimesDuration(seats float64, d time.Duration) SeatSeconds {
	return SeatSeconds(int64(math.Round(seats * float64(d) / (1e9 / ssScale))))
}

// Float is the amount in seat-seconds, as a float.
func (ss SeatSeconds) Float() float64 { return float64(ss) / ssScale }

// DurationPerSeat is how long seats must be held to do this work.
func (ss SeatSeconds) DurationPerSeat(seats float64) time.Duration {
	return time.Duration(float64(ss) / seats * (float64(time.Second) / ssScale))
}

// String formats like kube-apiserver's debug dumps: "12.00300000ss".
func (ss SeatSeconds) String() string {
	const unit = SeatSeconds(ssScale)
	return fmt.Sprintf("%d.%08dss", ss/unit, ss%unit)
}

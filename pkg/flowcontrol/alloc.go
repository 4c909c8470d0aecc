package flowcontrol

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// The limits of a priority level (KEP-1040, "borrowing"): a limited level
// gets the nominal concurrency limit
//
//	nominalCL = ceil(serverCL * shares / sum of all levels' shares)
//
// of which it may lend lendablePercent (minCL = nominalCL - lendable) and
// beyond which it may borrow borrowingLimitPercent (maxCL = nominalCL +
// borrowable; no limit means up to the server's whole limit). Every
// adjustment period the current limits are recomputed from each level's
// seat demand: each non-exempt level gets at least the lesser of its
// demand's high watermark and its nominal limit (and never less than its
// minCL), and the rest of the server's concurrency is shared in
// proportion to the smoothed demands, within each level's bounds (the
// fair allocation below). Exempt levels are not limited, but what they use
// is taken from what the others share.

// levelLimits are the configured limits of one level.
type levelLimits struct {
	nominalCL, minCL, maxCL int
}

// limitsFor computes a level's limits from its shares and percentages.
// shareSum is the sum of the shares of every level, serverCL the server's
// total concurrency limit; a nil borrowing limit lets a level borrow up
// to serverCL.
func limitsFor(serverCL int, shares int32, shareSum float64, lendablePercent, borrowingLimitPercent *int32) levelLimits {
	var nominal int
	if shareSum > 0 {
		nominal = int(math.Ceil(float64(serverCL) * float64(shares) / shareSum))
	}
	lendable := 0
	if lendablePercent != nil {
		lendable = int(math.Round(float64(nominal) * float64(*lendablePercent) / 100))
	}
	borrowable := serverCL
	if borrowingLimitPercent != nil {
		borrowable = int(math.Round(float64(nominal) * float64(*borrowingLimitPercent) / 100))
	}
	return levelLimits{nominalCL: nominal, minCL: nominal - lendable, maxCL: nominal + borrowable}
}

// maxSeatsFor is the most seats the work estimator may give one request
// of a queuing level: 15% of its nominal limit, but no more than a hand's
// share of it, and at least 1 (kube-apiserver's rule, which keeps the 10
// seats of old for the default levels of a 600-seat server).
func maxSeatsFor(nominalCL int, handSize int32) uint64 {
	m := math.Ceil(float64(nominalCL) * 0.15)
	m = math.Min(m, float64(int32(nominalCL)/max(handSize, 1)))
	return uint64(math.Max(1, m))
}

// demand is what one level brings to an adjustment of the current limits.
type demand struct {
	limits levelLimits
	exempt bool
	// highWatermark is the most seats in demand (executing or waiting)
	// at once during the period; smoothed is the smoothed envelope of
	// the demand (see seatDemandStats).
	highWatermark int
	smoothed      float64
}

// adjustLimits returns the current limit of each level, in the order of
// levels, for a server whose levels' nominal limits sum to nominalCLSum,
// and the fair proportion reached (0 when the minimums take everything).
func adjustLimits(nominalCLSum int, levels []demand) ([]int, float64) {
	current := make([]int, len(levels))
	remaining := nominalCLSum
	var minCLSum, minCurrentSum int
	var items []allocItem
	var itemOf []int
	for i, l := range levels {
		if l.exempt {
			// An exempt level is charged what it used, or what it may
			// not lend, whichever is more.
			current[i] = max(l.limits.minCL, l.highWatermark)
			remaining -= current[i]
			continue
		}
		minCurrent := max(l.limits.minCL, min(l.limits.nominalCL, l.highWatermark))
		minCLSum += l.limits.minCL
		minCurrentSum += minCurrent
		itemOf = append(itemOf, i)
		items = append(items, allocItem{lower: float64(minCurrent), upper: float64(l.limits.maxCL), target: math.Max(float64(minCurrent), l.smoothed)})
	}
	switch {
	case remaining <= minCLSum:
		// Nothing to share: everyone gets its minimum.
		for _, i := range itemOf {
			current[i] = levels[i].limits.minCL
		}
		return current, 0
	case remaining <= minCurrentSum:
		// Not enough to give everyone its recent demand: share what
		// there is above the minimums in proportion.
		frac := float64(remaining-minCLSum) / float64(minCurrentSum-minCLSum)
		for k, i := range itemOf {
			minCL := levels[i].limits.minCL
			current[i] = minCL + int(math.Round((items[k].lower-float64(minCL))*frac))
		}
		return current, 0
	}
	allocs, fair, err := fairAllocation(nominalCLSum, items)
	if err != nil {
		// Cannot happen with consistent limits; keep the demands' floor.
		for k, i := range itemOf {
			current[i] = int(items[k].lower)
		}
		return current, 0
	}
	for k, i := range itemOf {
		current[i] = int(math.Round(allocs[k]))
	}
	return current, fair
}

// allocItem is one class of a fair allocation: it gets fair*target,
// bounded by lower and upper.
type allocItem struct {
	target, lower, upper float64
}

// minTarget replaces smaller targets, so that proportions are defined.
const minTarget = 0.001

const allocEpsilon = 1e-7

// fairAllocation divides total among items: it finds the proportion fair
// such that the allocations clamp(fair*target, lower, upper) sum to
// total, and returns them. It is an error if the bounds make that
// impossible, or an item is inconsistent (negative lower bound, target
// below the lower bound, upper below lower).
//
// The sum is a non-decreasing, piecewise linear function of fair whose
// pieces end where fair*target meets a bound; the solution lies on the
// first piece whose end reaches total.
func fairAllocation(total int, items []allocItem) ([]float64, float64, error) {
	if total < 0 {
		return nil, 0, errors.New("negative sums are not supported")
	}
	want := float64(total)
	var lowSum, highSum float64
	targets := make([]float64, len(items))
	breaks := make([]float64, 0, 2*len(items))
	for i, it := range items {
		switch {
		case it.lower < 0:
			return nil, 0, fmt.Errorf("lower bound %d is %v, negative", i, it.lower)
		case it.target < it.lower:
			return nil, 0, fmt.Errorf("target %d is %v, below its lower bound %v", i, it.target, it.lower)
		case it.upper < it.lower:
			return nil, 0, fmt.Errorf("upper bound %d is %v, below its lower bound %v", i, it.upper, it.lower)
		}
		targets[i] = math.Max(it.target, minTarget)
		lowSum += it.lower
		highSum += it.upper
		breaks = append(breaks, it.lower/targets[i], it.upper/targets[i])
	}
	if lowSum-want > allocEpsilon {
		return nil, 0, fmt.Errorf("lower bounds sum to %v, more than %v", lowSum, total)
	}
	if want-highSum > allocEpsilon {
		return nil, 0, fmt.Errorf("upper bounds sum to %v, less than %v", highSum, total)
	}
	out := make([]float64, len(items))
	if total == 0 {
		return out, 0, nil
	}
	slices.Sort(breaks)
	sumAt := func(p float64) float64 {
		var s float64
		for i, it := range items {
			s += math.Max(it.lower, math.Min(it.upper, p*targets[i]))
		}
		return s
	}
	fill := func(p float64) ([]float64, float64, error) {
		for i, it := range items {
			out[i] = math.Max(it.lower, math.Min(it.upper, p*targets[i]))
		}
		return out, p, nil
	}
	if lowSum-want > -allocEpsilon {
		for i, it := range items {
			out[i] = it.lower
		}
		return out, breaks[0], nil
	}
	if want-highSum > -allocEpsilon {
		for i, it := range items {
			out[i] = it.upper
		}
		return out, breaks[len(breaks)-1], nil
	}
	prev, prevSum := breaks[0], sumAt(breaks[0])
	for _, b := range breaks[1:] {
		s := sumAt(b)
		if s >= want {
			if s == prevSum {
				return fill(b)
			}
			return fill(prev + (want-prevSum)*(b-prev)/(s-prevSum))
		}
		prev, prevSum = b, s
	}
	return fill(breaks[len(breaks)-1])
}

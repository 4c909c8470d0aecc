package request

import (
	"time"

	"github.com/kapi-dev/kapi/pkg/features"
)

// kube-apiserver's constants of the work estimator (its
// WorkEstimatorConfig defaults, which no flag changes).
const (
	// minimumSeats is what every request costs at least.
	minimumSeats = 1
	// maximumListSeatsLimit caps the seats of a list or watch: 100 when
	// lists are costed by size (SizeBasedListCostEstimate, on by default
	// in 1.37), 10 when they are costed by object count.
	maximumListSeatsLimit          = 100
	maximumListSeatsLimitByCount   = 10
	maximumMutatingSeatsLimit      = 10
	objectsPerSeat                 = 100.0
	watchesPerSeat                 = 10.0
	eventAdditionalDuration        = 5 * time.Millisecond
	enableMutatingWorkEstimator    = true
	bytesPerSeat                   = 100_000
	cacheWithStreamingMaxMemory    = 1_000_000
	maxObjectSize                  = 1_500_000 // etcd's default request size limit
	infiniteObjectCount            = 1_000_000_000
	sizeBasedListCostEstimateGate  = "SizeBasedListCostEstimate"
	watchListGate                  = "WatchList"
	defaultConsistentListFromCache = true
)

// Config parameterises the work estimator. DefaultConfig gives
// kube-apiserver's.
type Config struct {
	// MinimumSeats is what every request costs at least.
	MinimumSeats uint64
	// MaximumListSeatsLimit and MaximumMutatingSeatsLimit cap the seats of
	// lists (and watches) and of mutating requests, whatever the
	// priority level allows.
	MaximumListSeatsLimit     uint64
	MaximumMutatingSeatsLimit uint64

	// SizeBasedListCost costs a list by the memory it takes (object count
	// times average object size, BytesPerSeat a seat) rather than by the
	// objects it reads (ObjectsPerSeat a seat): the gate
	// SizeBasedListCostEstimate.
	SizeBasedListCost bool
	ObjectsPerSeat    float64
	// WatchesCostAsLists costs a watch that starts with the current state
	// as the list it sends: the gate WatchList. Without it every watch
	// costs MinimumSeats.
	WatchesCostAsLists bool
	// ConsistentListFromCache says that a list without a resourceVersion
	// is served from the watch cache (etcd supports progress requests,
	// as every etcd since 3.4.31 and 3.5.13 does).
	ConsistentListFromCache bool

	// MutatingWorkEstimator charges mutating requests for the watch
	// notifications they cause: FinalSeats, one per WatchesPerSeat
	// interested watchers, each for EventAdditionalDuration.
	MutatingWorkEstimator   bool
	WatchesPerSeat          float64
	EventAdditionalDuration time.Duration

	// MaxSeats returns the most seats a request of a priority level may
	// take (the configuration controller's: 15% of the level's nominal
	// concurrency limit, at most the limit over the hand size, at least
	// 1); 0, or a nil MaxSeats, means the limits above alone.
	MaxSeats func(priorityLevel string) uint64
	// ObserveWatchCount, if set, is told the interested watchers of each
	// mutating request the estimator charges for them
	// (apiserver_flowcontrol_watch_count_samples).
	ObserveWatchCount func(priorityLevel, flowSchema string, watchers int)
}

// DefaultConfig returns kube-apiserver's configuration under gates.
func DefaultConfig(gates features.Gates) Config {
	c := Config{
		MinimumSeats:              minimumSeats,
		MaximumListSeatsLimit:     maximumListSeatsLimitByCount,
		MaximumMutatingSeatsLimit: maximumMutatingSeatsLimit,
		SizeBasedListCost:         gates.Enabled(sizeBasedListCostEstimateGate),
		ObjectsPerSeat:            objectsPerSeat,
		WatchesCostAsLists:        gates.Enabled(watchListGate),
		ConsistentListFromCache:   defaultConsistentListFromCache,
		MutatingWorkEstimator:     enableMutatingWorkEstimator,
		WatchesPerSeat:            watchesPerSeat,
		EventAdditionalDuration:   eventAdditionalDuration,
	}
	if c.SizeBasedListCost {
		c.MaximumListSeatsLimit = maximumListSeatsLimit
	}
	return c
}

// levelMax returns the seat cap of a request of priorityLevel under limit.
func (c *Config) levelMax(priorityLevel string, limit uint64) uint64 {
	var m uint64
	if c.MaxSeats != nil {
		m = c.MaxSeats(priorityLevel)
	}
	if m == 0 || m > limit {
		return limit
	}
	return m
}

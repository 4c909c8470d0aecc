package request

import (
	"errors"
	"math"
	"net/http"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	apirequest "github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/storage"
	"github.com/kapi-dev/kapi/pkg/storage/objectcount"
)

// ObjectCounts knows how many objects of each resource are stored, and
// how big they are (an *objectcount.Tracker). Get returns
// objectcount.ErrUnknown for a resource it does not count and
// objectcount.ErrStale, with the last stats, for a count that has not been
// refreshed for minutes.
type ObjectCounts interface {
	Get(resource schema.GroupResource) (storage.Stats, error)
}

// WatchCounts knows how many watchers a write of an object reaches: those
// of its resource, of its namespace and of the object itself (a
// *generic.WatchCaches).
type WatchCounts interface {
	InterestedWatchers(resource schema.GroupResource, namespace, name string) int
}

// Estimator returns the work estimate of a request classified into
// flowSchema and priorityLevel. The request's context carries its
// RequestInfo.
type Estimator func(r *http.Request, flowSchema, priorityLevel string) WorkEstimate

// NewEstimator returns kube-apiserver's work estimator: a list costs by
// the objects it reads, or the memory they take (see Config); a watch that
// starts with the current state costs as that list; a create, update,
// patch or delete costs one seat and, afterwards, a seat per ten watchers
// it notifies; everything else costs one seat. objectCounts and
// watchCounts may be nil: lists then cost the minimum, as a list of a
// resource whose count is unknown does, and writes notify nobody.
func NewEstimator(objectCounts ObjectCounts, watchCounts WatchCounts, config Config) Estimator {
	e := &estimator{objects: objectCounts, watches: watchCounts, cfg: config}
	return e.estimate
}

type estimator struct {
	objects ObjectCounts
	watches WatchCounts
	cfg     Config
}

func (e *estimator) estimate(r *http.Request, flowSchema, priorityLevel string) WorkEstimate {
	info, ok := apirequest.RequestInfoFrom(r.Context())
	if !ok {
		// Never happens behind the request info filter; the most a
		// request can cost is the safe answer.
		return WorkEstimate{InitialSeats: e.cfg.levelMax(priorityLevel, max(e.cfg.MaximumListSeatsLimit, e.cfg.MaximumMutatingSeatsLimit))}
	}
	switch info.Verb {
	case "list":
		return e.list(r, info, priorityLevel)
	case "watch":
		if e.cfg.WatchesCostAsLists {
			return e.list(r, info, priorityLevel)
		}
	case "create", "update", "patch", "delete":
		return e.mutating(info, flowSchema, priorityLevel)
	}
	return WorkEstimate{InitialSeats: e.cfg.MinimumSeats}
}

// list estimates a list, or a watch that may start with a list.
func (e *estimator) list(r *http.Request, info *apirequest.RequestInfo, priorityLevel string) WorkEstimate {
	minSeats := e.cfg.MinimumSeats
	maxSeats := e.cfg.levelMax(priorityLevel, e.cfg.MaximumListSeatsLimit)

	query := r.URL.Query()
	var opts metav1.ListOptions
	if err := metav1.Convert_url_Values_To_v1_ListOptions(&query, &opts, nil); err != nil {
		// The request fails validation later; cost it as the worst.
		return WorkEstimate{InitialSeats: maxSeats}
	}
	if info.Verb == "watch" {
		sendInitialEvents := opts.SendInitialEvents != nil && *opts.SendInitialEvents
		legacyInitialState := opts.ResourceVersion == "" || opts.ResourceVersion == "0"
		if !sendInitialEvents && !legacyInitialState {
			// Resumes from a resourceVersion: no list to send.
			return WorkEstimate{InitialSeats: minSeats}
		}
	}
	fromCache := info.Verb == "watch" || e.servedFromCache(&opts)
	// A list whose field selector pins metadata.name reads one object.
	single := info.Name != ""

	stats, err := e.stats(schema.GroupResource{Group: info.APIGroup, Resource: info.Resource})
	switch {
	case errors.Is(err, objectcount.ErrUnknown):
		// A resource served by an extension API server (its cost is
		// not ours), a typo, or a resource not counted yet: kube-apiserver
		// chose not to overestimate aggregated lists.
		return WorkEstimate{InitialSeats: minSeats}
	case err != nil:
		// A count that went stale means something is degraded: assume
		// the worst.
		stats = storage.Stats{ObjectCount: infiniteObjectCount, EstimatedAverageObjectSizeBytes: maxObjectSize}
	}

	var seats uint64
	if e.cfg.SizeBasedListCost {
		seats = seatsBySize(stats, &opts, fromCache, single)
	} else {
		seats = e.seatsByCount(stats, &opts, fromCache, single)
	}
	return WorkEstimate{InitialSeats: min(max(seats, minSeats), maxSeats)}
}

func (e *estimator) stats(gr schema.GroupResource) (storage.Stats, error) {
	if e.objects == nil {
		return storage.Stats{}, objectcount.ErrUnknown
	}
	return e.objects.Get(gr)
}

// servedFromCache says whether kube-apiserver's watch cache serves a list
// with opts: any resourceVersion not older than one it has, or the latest
// (consistent) one; not a list at an exact past resourceVersion, nor a
// continuation (kube-apiserver's estimator does not count on the
// snapshots of its cache).
func (e *estimator) servedFromCache(opts *metav1.ListOptions) bool {
	switch opts.ResourceVersionMatch {
	case metav1.ResourceVersionMatchNotOlderThan:
		return true
	case "":
		switch {
		case opts.Continue != "":
			return false
		case opts.Limit > 0 && opts.ResourceVersion != "" && opts.ResourceVersion != "0":
			// The legacy form of an exact resourceVersion.
			return false
		case opts.ResourceVersion == "":
			return e.cfg.ConsistentListFromCache
		}
		return true
	default: // Exact, or invalid
		return false
	}
}

// seatsByCount: one seat per ObjectsPerSeat objects the list reads. From
// the cache it reads every object of the resource; from etcd, the page
// asked for, decoded and then copied (twice the limit), or every object
// and the page when a selector filters them.
func (e *estimator) seatsByCount(stats storage.Stats, opts *metav1.ListOptions, fromCache, single bool) uint64 {
	stored := stats.ObjectCount
	limit := stored
	if opts.Limit > 0 && opts.Limit < stored {
		limit = opts.Limit
	}
	var objects int64
	switch {
	case single:
		objects = 1
	case fromCache:
		objects = stored
	case opts.FieldSelector != "" || opts.LabelSelector != "":
		objects = stored + limit
	default:
		objects = 2 * limit
	}
	return uint64(math.Ceil(float64(objects) / e.cfg.ObjectsPerSeat))
}

// seatsBySize: one seat per 100 kB the list holds in memory at once: the
// page asked for (or half the resource, when a selector filters it in
// etcd), at most 1 MB from the cache, which streams its response.
func seatsBySize(stats storage.Stats, opts *metav1.ListOptions, fromCache, single bool) uint64 {
	size := stats.EstimatedAverageObjectSizeBytes
	if size <= 0 && stats.ObjectCount != 0 {
		size = maxObjectSize
	}
	limited := stats.ObjectCount
	if opts.Limit > 0 && opts.Limit < limited {
		limited = opts.Limit
	}
	var objects int64
	switch {
	case single:
		objects = 1
	case fromCache:
		objects = limited
	case opts.FieldSelector != "" || opts.LabelSelector != "":
		objects = max(limited, stats.ObjectCount/2)
	default:
		objects = limited
	}
	memory := objects * size
	if fromCache {
		memory = min(memory, cacheWithStreamingMaxMemory)
	}
	return uint64(math.Ceil(float64(memory) / bytesPerSeat))
}

// mutating estimates a create, update, patch or delete: one seat while
// it runs, and then the watch notifications it causes, which kube-apiserver
// models as each interested watcher's goroutine taking a tenth of a seat
// for EventAdditionalDuration, reshaped into at most the level's seat cap
// for proportionally longer.
func (e *estimator) mutating(info *apirequest.RequestInfo, flowSchema, priorityLevel string) WorkEstimate {
	minSeats := e.cfg.MinimumSeats
	maxSeats := e.cfg.levelMax(priorityLevel, e.cfg.MaximumMutatingSeatsLimit)
	if !e.cfg.MutatingWorkEstimator {
		return WorkEstimate{InitialSeats: minSeats}
	}
	// A service account token request writes nothing watchers see.
	if info.Resource == "serviceaccounts" && info.Subresource == "token" {
		return WorkEstimate{InitialSeats: minSeats}
	}
	watchers := 0
	if e.watches != nil {
		namespace := info.Namespace
		if info.APIGroup == "" && info.Resource == "namespaces" {
			// A namespace is a cluster-scoped object, although its path
			// names it as a namespace too.
			namespace = ""
		}
		watchers = e.watches.InterestedWatchers(schema.GroupResource{Group: info.APIGroup, Resource: info.Resource}, namespace, info.Name)
	}
	if e.cfg.ObserveWatchCount != nil {
		e.cfg.ObserveWatchCount(priorityLevel, flowSchema, watchers)
	}
	estimate := WorkEstimate{InitialSeats: 1}
	// Below one seat's worth of watchers the notifications are not
	// charged (kube-apiserver keeps it so until the model is tuned).
	if watchers < int(e.cfg.WatchesPerSeat) {
		return estimate
	}
	finalSeats := uint64(math.Ceil(float64(watchers) / e.cfg.WatchesPerSeat))
	work := SeatsTimesDuration(float64(finalSeats), e.cfg.EventAdditionalDuration)
	finalSeats = min(finalSeats, maxSeats)
	estimate.FinalSeats = finalSeats
	estimate.AdditionalLatency = work.DurationPerSeat(float64(finalSeats))
	return estimate
}

// SeatSeconds is an amount of work, in seat-seconds, in fixed point: n is
// n/1e8 seat-seconds, exact for the sums the queues keep.
type SeatSeconds uint64

const seatSecondsScale = 1e8

// SeatsTimesDuration is the work of seats held for d.
func SeatsTimesDuration(seats float64, d time.Duration) SeatSeconds {
	return SeatSeconds(int64(math.Round(seats * float64(d) / (1e9 / seatSecondsScale))))
}

// ToFloat returns the work in seat-seconds.
func (ss SeatSeconds) ToFloat() float64 { return float64(ss) / seatSecondsScale }

// DurationPerSeat is how long seats must be held to do the work.
func (ss SeatSeconds) DurationPerSeat(seats float64) time.Duration {
	return time.Duration(float64(ss) / seats * (float64(time.Second) / seatSecondsScale))
}

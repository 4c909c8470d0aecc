package request_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	apirequest "github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/features"
	"github.com/kapi-dev/kapi/pkg/flowcontrol/request"
	"github.com/kapi-dev/kapi/pkg/storage"
	"github.com/kapi-dev/kapi/pkg/storage/objectcount"
)

// The expectations below are computed by hand from the rules of
// kube-apiserver 1.37's work estimator (KEP-1040 and KEP-4988, and the
// constants of k8s.io/apiserver/pkg/util/flowcontrol/request): a list
// costs one seat per 100 kB it holds in memory (the page, or half the
// resource when etcd must filter it; at most 1 MB from the watch cache,
// which streams), at most 100 seats, at least 1; by object count, one
// seat per 100 objects, at most 10; a write costs a seat and then a seat
// per 10 watchers for 5 ms, at most 10 seats.

var configMaps = schema.GroupResource{Resource: "configmaps"}

// counts are object counts per resource; a resource not in the map is
// unknown, one in stale has gone stale.
type counts struct {
	stats map[schema.GroupResource]storage.Stats
	stale bool
}

func (c counts) Get(gr schema.GroupResource) (storage.Stats, error) {
	s, ok := c.stats[gr]
	if !ok {
		return storage.Stats{}, objectcount.ErrUnknown
	}
	if c.stale {
		return s, objectcount.ErrStale
	}
	return s, nil
}

func configMapCount(objects, avgSize int64) counts {
	return counts{stats: map[schema.GroupResource]storage.Stats{configMaps: {ObjectCount: objects, EstimatedAverageObjectSizeBytes: avgSize}}}
}

// watchers answers for exactly one (resource, namespace, name): a test
// that the estimator asks about the object the request writes.
type watchers struct {
	resource        schema.GroupResource
	namespace, name string
	n               int
}

func (w watchers) InterestedWatchers(gr schema.GroupResource, namespace, name string) int {
	if gr == w.resource && namespace == w.namespace && name == w.name {
		return w.n
	}
	return 0
}

// newRequest returns a request with the RequestInfo kapi's filter puts in
// its context.
func newRequest(t *testing.T, method, target string) *http.Request {
	t.Helper()
	r := httptest.NewRequest(method, target, nil)
	info, err := apirequest.NewRequestInfoFactory().NewRequestInfo(r)
	if err != nil {
		t.Fatal(err)
	}
	return r.WithContext(apirequest.WithRequestInfo(r.Context(), info))
}

const cms = "/api/v1/namespaces/ns/configmaps"

func TestListSeatsBySize(t *testing.T) {
	// 5000 ConfigMaps of 1 kB: 5 MB in all.
	oneKB := configMapCount(5000, 1000)
	for _, tc := range []struct {
		name   string
		counts request.ObjectCounts
		target string
		want   uint64
	}{
		// From the cache (a consistent list, as etcd supports progress
		// requests): 5 MB, streamed, counts as 1 MB.
		{"consistent list from the cache", oneKB, cms, 10},
		{"resourceVersion=0 from the cache", oneKB, cms + "?resourceVersion=0", 10},
		{"NotOlderThan from the cache", oneKB, cms + "?resourceVersion=7&resourceVersionMatch=NotOlderThan", 10},
		{"a page of 500 from the cache: 500 kB", oneKB, cms + "?resourceVersion=0&limit=500", 5},
		{"a consistent page of 500 from the cache", oneKB, cms + "?limit=500", 5},
		// From etcd: the page, or all 5 MB.
		{"continue from etcd: a page of 500", oneKB, cms + "?limit=500&continue=abc", 5},
		{"legacy exact resourceVersion with limit: a page", oneKB, cms + "?limit=500&resourceVersion=7", 5},
		{"exact resourceVersion: all 5 MB", oneKB, cms + "?resourceVersion=7&resourceVersionMatch=Exact", 50},
		{"exact page filtered by labels in etcd: half the resource", oneKB, cms + "?resourceVersion=7&resourceVersionMatch=Exact&limit=500&labelSelector=a%3Db", 25},
		{"exact page filtered by fields in etcd: half the resource", oneKB, cms + "?resourceVersion=7&resourceVersionMatch=Exact&limit=3000&fieldSelector=metadata.namespace%3Dns", 30},
		{"one object by metadata.name", oneKB, cms + "?fieldSelector=metadata.name%3Dx&resourceVersion=7&resourceVersionMatch=Exact", 1},
		{"100 MB from etcd: capped at 100", configMapCount(100_000, 1000), cms + "?resourceVersion=7&resourceVersionMatch=Exact", 100},
		{"an empty resource", configMapCount(0, 0), cms, 1},
		{"objects of unknown size count as 1.5 MB each: 3 MB from etcd", configMapCount(2, 0), cms + "?resourceVersion=7&resourceVersionMatch=Exact", 30},
		{"objects of unknown size from the cache", configMapCount(2, 0), cms, 10},
		// Unknown: an aggregated resource's cost is not ours.
		{"a resource that is not counted", oneKB, "/apis/metrics.k8s.io/v1beta1/pods", 1},
		{"without object counts", nil, cms, 1},
		// Stale: the worst, a billion objects of 1.5 MB.
		{"stale count from the cache", counts{stats: oneKB.stats, stale: true}, cms, 10},
		{"stale count from etcd", counts{stats: oneKB.stats, stale: true}, cms + "?resourceVersion=7&resourceVersionMatch=Exact", 100},
		{"invalid list options: the most", oneKB, cms + "?limit=many", 100},
		// Watches that start with the current state cost that list.
		{"watch from now, with the current state", oneKB, cms + "?watch=true", 10},
		{"watch from resourceVersion 0", oneKB, cms + "?watch=true&resourceVersion=0", 10},
		{"watch with initial events", oneKB, cms + "?watch=true&resourceVersion=7&resourceVersionMatch=NotOlderThan&sendInitialEvents=true", 10},
		{"watch resumed from a resourceVersion", oneKB, cms + "?watch=true&resourceVersion=7", 1},
		{"watch of one small resource", configMapCount(10, 1000), "/api/v1/watch/namespaces/ns/configmaps", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var counts request.ObjectCounts
			if tc.counts != nil {
				counts = tc.counts
			}
			estimate := request.NewEstimator(counts, nil, request.DefaultConfig(features.Gates{}))
			got := estimate(newRequest(t, http.MethodGet, tc.target), "fs", "pl")
			want := request.WorkEstimate{InitialSeats: tc.want}
			if got != want {
				t.Errorf("GET %s: %+v, want %+v", tc.target, got, want)
			}
		})
	}
}

func TestListSeatsByObjectCount(t *testing.T) {
	gates, err := features.Parse([]string{"SizeBasedListCostEstimate=false"})
	if err != nil {
		t.Fatal(err)
	}
	config := request.DefaultConfig(gates)
	for _, tc := range []struct {
		name    string
		objects int64
		target  string
		want    uint64
	}{
		// From the cache every object is read, whatever the limit.
		{"5000 objects from the cache: 50 seats, capped at 10", 5000, cms, 10},
		{"500 objects from the cache", 500, cms + "?resourceVersion=0&limit=100", 5},
		// From etcd: the page is read and copied (twice the limit), or
		// every object and the page when a selector filters them.
		{"a page of 100 from etcd", 500, cms + "?limit=100&continue=abc", 2},
		{"a filtered page of 100 from etcd", 500, cms + "?limit=100&continue=abc&labelSelector=a%3Db", 6},
		{"450 objects from etcd without a limit", 450, cms + "?resourceVersion=7&resourceVersionMatch=Exact", 9},
		{"one object by metadata.name", 500, cms + "?fieldSelector=metadata.name%3Dx", 1},
		{"an empty resource", 0, cms, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			estimate := request.NewEstimator(configMapCount(tc.objects, 1000), nil, config)
			got := estimate(newRequest(t, http.MethodGet, tc.target), "fs", "pl")
			if want := (request.WorkEstimate{InitialSeats: tc.want}); got != want {
				t.Errorf("GET %s with %d objects: %+v, want %+v", tc.target, tc.objects, got, want)
			}
		})
	}
}

func TestWatchesWithoutWatchListCostOneSeat(t *testing.T) {
	gates, err := features.Parse([]string{"WatchList=false"})
	if err != nil {
		t.Fatal(err)
	}
	estimate := request.NewEstimator(configMapCount(5000, 1000), nil, request.DefaultConfig(gates))
	if got := estimate(newRequest(t, http.MethodGet, cms+"?watch=true"), "fs", "pl"); got != (request.WorkEstimate{InitialSeats: 1}) {
		t.Errorf("watch with WatchList off: %+v, want 1 seat", got)
	}
}

// A priority level's seat cap (Config.MaxSeats) applies below the
// estimator's own limits.
func TestPriorityLevelCapsSeats(t *testing.T) {
	config := request.DefaultConfig(features.Gates{})
	config.MaxSeats = func(pl string) uint64 {
		if pl == "small" {
			return 4
		}
		return 0 // unknown: the estimator's limits
	}
	estimate := request.NewEstimator(configMapCount(5000, 1000), watchers{configMaps, "ns", "x", 100}, config)
	exact := cms + "?resourceVersion=7&resourceVersionMatch=Exact"
	for _, tc := range []struct {
		method, target, level string
		want                  request.WorkEstimate
	}{
		{http.MethodGet, exact, "small", request.WorkEstimate{InitialSeats: 4}},
		{http.MethodGet, exact, "other", request.WorkEstimate{InitialSeats: 50}},
		// 100 watchers: 10 seats for 5 ms are 50 seat-milliseconds,
		// reshaped into 4 seats for 12.5 ms.
		{http.MethodPut, cms + "/x", "small", request.WorkEstimate{InitialSeats: 1, FinalSeats: 4, AdditionalLatency: 12500 * time.Microsecond}},
		{http.MethodPut, cms + "/x", "other", request.WorkEstimate{InitialSeats: 1, FinalSeats: 10, AdditionalLatency: 5 * time.Millisecond}},
	} {
		if got := estimate(newRequest(t, tc.method, tc.target), "fs", tc.level); got != tc.want {
			t.Errorf("%s %s at level %s: %+v, want %+v", tc.method, tc.target, tc.level, got, tc.want)
		}
	}
}

func TestMutatingRequestsPayForWatchNotifications(t *testing.T) {
	for _, tc := range []struct {
		name     string
		method   string
		target   string
		watchers watchers
		want     request.WorkEstimate
	}{
		{"no watchers", http.MethodPost, cms, watchers{}, request.WorkEstimate{InitialSeats: 1}},
		{"9 watchers are not charged", http.MethodPost, cms, watchers{configMaps, "ns", "", 9}, request.WorkEstimate{InitialSeats: 1}},
		{"10 watchers: a seat for 5 ms", http.MethodPost, cms, watchers{configMaps, "ns", "", 10}, request.WorkEstimate{InitialSeats: 1, FinalSeats: 1, AdditionalLatency: 5 * time.Millisecond}},
		{"25 watchers: 3 seats", http.MethodPut, cms + "/x", watchers{configMaps, "ns", "x", 25}, request.WorkEstimate{InitialSeats: 1, FinalSeats: 3, AdditionalLatency: 5 * time.Millisecond}},
		{"100 watchers: 10 seats", http.MethodPatch, cms + "/x", watchers{configMaps, "ns", "x", 100}, request.WorkEstimate{InitialSeats: 1, FinalSeats: 10, AdditionalLatency: 5 * time.Millisecond}},
		// 25 seats for 5 ms, reshaped into the cap of 10 seats.
		{"250 watchers: 10 seats for 12.5 ms", http.MethodDelete, cms + "/x", watchers{configMaps, "ns", "x", 250}, request.WorkEstimate{InitialSeats: 1, FinalSeats: 10, AdditionalLatency: 12500 * time.Microsecond}},
		{"a cluster-scoped object", http.MethodPut, "/api/v1/namespaces/x", watchers{schema.GroupResource{Resource: "namespaces"}, "", "x", 30}, request.WorkEstimate{InitialSeats: 1, FinalSeats: 3, AdditionalLatency: 5 * time.Millisecond}},
		{"a grouped resource", http.MethodPost, "/apis/apps/v1/namespaces/ns/deployments", watchers{schema.GroupResource{Group: "apps", Resource: "deployments"}, "ns", "", 10}, request.WorkEstimate{InitialSeats: 1, FinalSeats: 1, AdditionalLatency: 5 * time.Millisecond}},
		{"a token request notifies nobody", http.MethodPost, "/api/v1/namespaces/ns/serviceaccounts/sa/token", watchers{schema.GroupResource{Resource: "serviceaccounts"}, "ns", "sa", 100}, request.WorkEstimate{InitialSeats: 1}},
		{"deletecollection costs a seat", http.MethodDelete, cms, watchers{configMaps, "ns", "", 100}, request.WorkEstimate{InitialSeats: 1}},
		{"get costs a seat", http.MethodGet, cms + "/x", watchers{configMaps, "ns", "x", 100}, request.WorkEstimate{InitialSeats: 1}},
		{"a non-resource request costs a seat", http.MethodGet, "/healthz", watchers{}, request.WorkEstimate{InitialSeats: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			estimate := request.NewEstimator(configMapCount(5000, 1000), tc.watchers, request.DefaultConfig(features.Gates{}))
			if got := estimate(newRequest(t, tc.method, tc.target), "fs", "pl"); got != tc.want {
				t.Errorf("%s %s: %+v, want %+v", tc.method, tc.target, got, tc.want)
			}
		})
	}
}

func TestMutatingEstimatorOff(t *testing.T) {
	config := request.DefaultConfig(features.Gates{})
	config.MutatingWorkEstimator = false
	estimate := request.NewEstimator(nil, watchers{configMaps, "ns", "", 100}, config)
	if got := estimate(newRequest(t, http.MethodPost, cms), "fs", "pl"); got != (request.WorkEstimate{InitialSeats: 1}) {
		t.Errorf("create with the mutating estimator off: %+v, want 1 seat", got)
	}
}

func TestRequestWithoutRequestInfoCostsTheMost(t *testing.T) {
	estimate := request.NewEstimator(nil, nil, request.DefaultConfig(features.Gates{}))
	if got := estimate(httptest.NewRequest(http.MethodGet, cms, nil), "fs", "pl"); got != (request.WorkEstimate{InitialSeats: 100}) {
		t.Errorf("request without RequestInfo: %+v, want 100 seats", got)
	}
}

// Each mutating request the estimator charges for its watchers is a
// sample of apiserver_flowcontrol_watch_count_samples, labelled with its
// level and schema; a token request, which notifies nobody, is not.
func TestWatchCountsAreObserved(t *testing.T) {
	type sample struct {
		level, schema string
		n             int
	}
	var got []sample
	config := request.DefaultConfig(features.Gates{})
	config.ObserveWatchCount = func(pl, fs string, n int) { got = append(got, sample{pl, fs, n}) }
	estimate := request.NewEstimator(nil, watchers{configMaps, "ns", "x", 12}, config)
	estimate(newRequest(t, http.MethodPut, cms+"/x"), "fs", "pl")
	estimate(newRequest(t, http.MethodGet, cms+"/x"), "fs", "pl")
	estimate(newRequest(t, http.MethodPost, "/api/v1/namespaces/ns/serviceaccounts/sa/token"), "fs", "pl")
	if want := []sample{{"pl", "fs", 12}}; len(got) != 1 || got[0] != want[0] {
		t.Errorf("observed %+v, want %+v", got, want)
	}
}

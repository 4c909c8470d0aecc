package etcd3

import (
	"context"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/kapi-dev/kapi/pkg/storage"
)

// statsSample is how many stored values Stats reads to estimate the
// average object size.
const statsSample = 16

var _ storage.StatsReader = (*store)(nil)

// Stats implements storage.StatsReader with one range request: etcd counts
// every key below the prefix (in its index, without reading values) and
// returns the values of the first statsSample keys, whose average size is
// the estimate.
//
// kube-apiserver counts the keys with a keys-only range (or from its watch
// cache) and averages the sizes of the values it last saw pass through
// its lists and watches, bookkeeping on every event. A sample costs one
// request a minute and nothing on the request path; it is biased towards
// the first keys (the first namespaces, by name), which is fine for an
// estimate that only picks a number of seats between 1 and 100.
func (s *store) Stats(ctx context.Context, key string) (storage.Stats, error) {
	prefix, err := s.prepareKey(key, true)
	if err != nil {
		return storage.Stats{}, err
	}
	resp, err := s.client.Get(ctx, prefix, clientv3.WithPrefix(), clientv3.WithLimit(statsSample))
	if err != nil {
		return storage.Stats{}, err
	}
	stats := storage.Stats{ObjectCount: resp.Count}
	if len(resp.Kvs) > 0 {
		var total int64
		for _, kv := range resp.Kvs {
			total += int64(len(kv.Value))
		}
		stats.EstimatedAverageObjectSizeBytes = total / int64(len(resp.Kvs))
	}
	return stats, nil
}

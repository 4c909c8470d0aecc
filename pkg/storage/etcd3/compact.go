package etcd3

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// compactRevKey is the key through which the API servers sharing an etcd
// take turns at compacting it; kube-apiserver's name, so that kapi and
// kube-apiserver can share an etcd and still compact once per interval.
const compactRevKey = "compact_rev_key"

// DefaultCompactionInterval is kube-apiserver's --etcd-compaction-interval.
const DefaultCompactionInterval = 5 * time.Minute

// RunCompactor compacts the etcd behind client every interval until ctx
// ends, keeping the history of the last interval: each round compacts up
// to the revision the previous round saw. Without it etcd keeps every
// version of every object forever, and runs out of space.
//
// Every API server sharing the etcd runs a compactor. They take turns
// through compactRevKey, whose version counts the rounds: a round
// succeeds only for the compactor that saw the latest count, and the
// others adopt the new count and retry an interval later. When the
// compactor in charge stops, another takes over within two intervals.
// Failed rounds are logged to log.
func RunCompactor(ctx context.Context, client *clientv3.Client, interval time.Duration, log *slog.Logger) {
	var c compactor
	timer := time.NewTimer(interval)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		if err := c.round(ctx, client); err != nil && ctx.Err() == nil {
			log.Warn("etcd compaction failed", "endpoints", client.Endpoints(), "err", err)
		}
		timer.Reset(interval)
	}
}

// compactor is the state a compactor keeps between rounds.
type compactor struct {
	// seen is the count of rounds this compactor last saw: the version
	// of compactRevKey.
	seen int64
	// rev is the revision at the last round this compactor saw: the next
	// round compacts up to it.
	rev int64
}

// round takes a turn if it is this compactor's: it records the current
// revision as the next round's target and compacts to the previous one.
func (c *compactor) round(ctx context.Context, client *clientv3.Client) error {
	resp, err := client.Txn(ctx).
		If(clientv3.Compare(clientv3.Version(compactRevKey), "=", c.seen)).
		Then(clientv3.OpPut(compactRevKey, strconv.FormatInt(c.rev, 10))).
		Else(clientv3.OpGet(compactRevKey)).
		Commit()
	if err != nil {
		return err
	}
	target := c.rev
	c.rev = resp.Header.Revision
	if !resp.Succeeded {
		// Another compactor took this round; follow its count.
		if kvs := resp.Responses[0].GetResponseRange().Kvs; len(kvs) > 0 {
			c.seen = kvs[0].Version
		}
		return nil
	}
	c.seen++
	if target == 0 {
		// The first round of a compactor only marks where the next one
		// compacts to.
		return nil
	}
	if _, err := client.Compact(ctx, target); err != nil && !errors.Is(err, rpctypes.ErrCompacted) {
		return err
	}
	return nil
}

package embedded

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/etcdserver/api/v3rpc"
	"go.etcd.io/etcd/server/v3/storage/mvcc"
	"google.golang.org/grpc/metadata"
)

// localWatcher is a clientv3.Watcher that watches the member's store
// directly: each watch is an mvcc watch stream of its own, whose events a
// goroutine hands to the watch's channel.
//
// Why not gRPC. etcd applies a write and queues its event for every synced
// watcher in the same step, before the write's response goes back; a watch
// read from the store has the event as the write returns. Over gRPC
// (kapi's unix socket), the event is then encoded, framed, written,
// read, decoded and handed between four goroutines, and reached the watch
// cache 60 to 100 µs (p10 to p50; over a millisecond at p99) after kapi's
// in-process write had returned: kapi answered writes before its watchers
// could know of them.
// kube-apiserver's writes and watches both cross gRPC, so their delays
// cancel out.
//
// Why not v3client's watch. It is gRPC's protocol over Go channels
// without flow control, and a storm of watch cancellations deadlocks it
// (etcd-io/etcd#18879, #20716). Here nothing flows from a watch back to
// the store: cancelling is a call, and the store never blocks on a
// watch. A consumer that does not read holds only its own goroutine; the
// store moves its watch to its slow-watcher path (mvcc's victims), which
// keeps the events and delivers them when the consumer reads again, as it
// does for a slow gRPC stream.
//
// What it implements of clientv3's Watch: WithRev, WithPrefix, WithRange,
// WithFromKey, WithPrevKV, WithProgressNotify (every
// v3rpc.GetProgressReportInterval, as etcd's server), WithCreatedNotify,
// WithFilterPut, WithFilterDelete; a watch from a compacted revision gets
// one response carrying CompactRevision and ends. RequestProgress asks
// every watch opened with the context's stream (its gRPC metadata, as
// clientv3 picks a stream) for a progress notification, which each watch
// gets if it has caught up with the store, at the store's revision.
// Fragmentation means nothing in memory.
type localWatcher struct {
	kv mvcc.WatchableKV

	mu      sync.Mutex
	closed  bool
	streams map[string]map[*localWatch]struct{} // stream key -> watches
}

func newLocalWatcher(kv mvcc.WatchableKV) *localWatcher {
	return &localWatcher{kv: kv, streams: map[string]map[*localWatch]struct{}{}}
}

var _ clientv3.Watcher = (*localWatcher)(nil)

// localWatch is one watch.
type localWatch struct {
	w        *localWatcher
	key      string // stream key
	ws       mvcc.WatchStream
	id       mvcc.WatchID
	prevKV   bool
	progress bool
	out      chan clientv3.WatchResponse
	stop     chan struct{} // closed by Close
	stopOnce sync.Once
}

// streamKey is clientv3's: watches and progress requests whose contexts
// carry the same outgoing gRPC metadata share a stream.
func streamKey(ctx context.Context) string {
	if md, ok := metadata.FromOutgoingContext(ctx); ok {
		return fmt.Sprintf("%+v", map[string][]string(md))
	}
	return ""
}

// Watch implements clientv3.Watcher.
func (lw *localWatcher) Watch(ctx context.Context, key string, opts ...clientv3.OpOption) clientv3.WatchChan {
	op := clientv3.OpGet(key, opts...)
	out := make(chan clientv3.WatchResponse)
	k, end := op.KeyBytes(), op.RangeBytes()
	if len(k) == 0 {
		// \x00 is the smallest key, as etcd's server reads it.
		k = []byte{0}
	}
	switch {
	case len(end) == 0:
		end = nil // one key
	case len(end) == 1 && end[0] == 0:
		end = []byte{} // every key from k on
	}
	var filters []mvcc.FilterFunc
	if op.IsFilterPut() {
		filters = append(filters, func(e *mvccpb.Event) bool { return e.Type == mvccpb.PUT })
	}
	if op.IsFilterDelete() {
		filters = append(filters, func(e *mvccpb.Event) bool { return e.Type == mvccpb.DELETE })
	}

	lw.mu.Lock()
	if lw.closed {
		lw.mu.Unlock()
		close(out)
		return out
	}
	ws := lw.kv.NewWatchStream()
	id, err := ws.Watch(ctx, clientv3.AutoWatchID, k, end, op.Rev(), filters...)
	if err != nil {
		lw.mu.Unlock()
		ws.Close()
		go func() {
			defer close(out)
			resp := clientv3.WatchResponse{Header: &pb.ResponseHeader{Revision: ws.Rev()}, Canceled: true, CancelReason: err.Error()}
			select {
			case out <- resp:
			case <-ctx.Done():
			}
		}()
		return out
	}
	w := &localWatch{w: lw, key: streamKey(ctx), ws: ws, id: id, prevKV: op.IsPrevKV(), progress: op.IsProgressNotify(), out: out, stop: make(chan struct{})}
	watches := lw.streams[w.key]
	if watches == nil {
		watches = map[*localWatch]struct{}{}
		lw.streams[w.key] = watches
	}
	watches[w] = struct{}{}
	lw.mu.Unlock()

	go w.run(ctx, op.IsCreatedNotify())
	return out
}

// RequestProgress implements clientv3.Watcher.
func (lw *localWatcher) RequestProgress(ctx context.Context) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.closed {
		return errors.New("etcd watcher closed")
	}
	for w := range lw.streams[streamKey(ctx)] {
		w.ws.RequestProgress(w.id)
	}
	return nil
}

// Close implements clientv3.Watcher: every watch ends and its channel is
// closed.
func (lw *localWatcher) Close() error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.closed = true
	for _, watches := range lw.streams {
		for w := range watches {
			w.stopOnce.Do(func() { close(w.stop) })
		}
	}
	return nil
}

func (lw *localWatcher) remove(w *localWatch) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if watches := lw.streams[w.key]; watches != nil {
		delete(watches, w)
		if len(watches) == 0 {
			delete(lw.streams, w.key)
		}
	}
}

// run hands the store's responses to the consumer until the context ends,
// the watcher is closed or the watch is compacted away.
func (w *localWatch) run(ctx context.Context, createdNotify bool) {
	defer close(w.out)
	// Unregistered first, so that no progress request reaches the stream
	// once it is closed.
	defer w.ws.Close()
	defer w.w.remove(w)

	if createdNotify && !w.send(ctx, clientv3.WatchResponse{Header: &pb.ResponseHeader{Revision: w.ws.Rev()}, Created: true}) {
		return
	}
	var ticks <-chan time.Time
	if w.progress {
		t := time.NewTicker(v3rpc.GetProgressReportInterval())
		defer t.Stop()
		ticks = t.C
	}
	// sent says whether events went out since the last tick: etcd's
	// server sends a periodic progress notification only to a watch that
	// had none.
	sent := false
	for {
		select {
		case r, ok := <-w.ws.Chan():
			if !ok {
				return
			}
			resp := w.response(r)
			if !w.send(ctx, resp) {
				return
			}
			if r.CompactRevision != 0 {
				return
			}
			sent = sent || len(r.Events) > 0
		case <-ticks:
			if !sent {
				w.ws.RequestProgress(w.id)
			}
			sent = false
		case <-ctx.Done():
			return
		case <-w.stop:
			return
		}
	}
}

// response is what clientv3 makes of what etcd's server sends for r.
func (w *localWatch) response(r mvcc.WatchResponse) clientv3.WatchResponse {
	resp := clientv3.WatchResponse{
		Header:          &pb.ResponseHeader{Revision: r.Revision},
		CompactRevision: r.CompactRevision,
		Canceled:        r.CompactRevision != 0,
	}
	if len(r.Events) == 0 {
		return resp
	}
	resp.Events = make([]*clientv3.Event, len(r.Events))
	for i, ev := range r.Events {
		// The store's events are shared by every watcher of the key:
		// each watch gets an event of its own around the shared values.
		e := &mvccpb.Event{Type: ev.Type, Kv: ev.Kv}
		if w.prevKV && !(ev.Type == mvccpb.PUT && ev.Kv.CreateRevision == ev.Kv.ModRevision) {
			rr, err := w.w.kv.Range(context.Background(), ev.Kv.Key, nil, mvcc.RangeOptions{Rev: ev.Kv.ModRevision - 1})
			if err == nil && len(rr.KVs) != 0 {
				e.PrevKv = rr.KVs[0]
			}
		}
		resp.Events[i] = (*clientv3.Event)(e)
	}
	return resp
}

func (w *localWatch) send(ctx context.Context, resp clientv3.WatchResponse) bool {
	select {
	case w.out <- resp:
		return true
	case <-ctx.Done():
		return false
	case <-w.stop:
		return false
	}
}

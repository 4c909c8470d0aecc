package etcd3

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/metadata"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/pkg/storage"
)

const (
	// resultBufferSize is how many events a watch holds for a consumer
	// that is not reading. When the buffer is full, the watch blocks and
	// stops reading from etcd until the consumer catches up or stops the
	// watch. Other watches are not held up: the etcd client demultiplexes
	// the shared gRPC stream into a queue per watch, in which it keeps
	// the responses of the blocked watch meanwhile (the embedded etcd's
	// watches each have a stream of the store of their own, which etcd
	// treats as a slow watcher meanwhile). In kapi's design the
	// consumer is the watch cache, which reads promptly; clients that
	// may fall behind are served from the cache, not from here.
	resultBufferSize = 100
	// initialPageSize is how many keys a watch reads per etcd request
	// when it sends the current state.
	initialPageSize = 1000
)

// watchContext returns the context an etcd watch is made with. Requiring a
// leader makes etcd end a watch when its member loses the cluster instead
// of leaving it silent.
//
// The etcd client puts watches whose contexts carry the same gRPC metadata
// on one stream, and a progress notification requested on a stream with
// several watches can reach a watch that is still replaying history ahead
// of its events (compare etcd-io/etcd#15220): a client resuming from that
// bookmark would skip events. So every watch gets a stream of its own,
// unless its context names one (WithOwnWatchStream), which is how the
// watch cache's single watch shares a stream with its progress requests.
func watchContext(ctx context.Context) context.Context {
	ctx = clientv3.WithRequireLeader(ctx)
	if md, ok := metadata.FromOutgoingContext(ctx); ok && len(md.Get(watchStreamKey)) > 0 {
		return ctx
	}
	return metadata.AppendToOutgoingContext(ctx, watchStreamKey, "watch-"+strconv.FormatUint(watchStreams.Add(1), 10))
}

// watchStreamKey is the gRPC metadata key that names a watch's stream.
const watchStreamKey = "kapi-watch-stream"

// watchStreams numbers the streams of watches that do not name one.
var watchStreams atomic.Uint64

// Watch implements storage.Interface.
//
// The watch starts after opts.ResourceVersion. With ResourceVersion "" or
// "0" and SendInitialEvents unset, or with SendInitialEvents true, it first
// sends the current state as ADDED events (at least as new as
// ResourceVersion), ending with a BOOKMARK annotated
// k8s.io/initial-events-end when SendInitialEvents is true. With
// SendInitialEvents false and ResourceVersion "" or "0" it starts at the
// current revision. Events are filtered by opts.Predicate, with changes
// across its boundary sent as ADDED or DELETED. With ProgressNotify, etcd's
// progress notifications are sent as BOOKMARK events. If the start
// revision has been compacted, the watch sends a single ERROR event
// carrying a 410 Expired Status and ends.
func (s *store) Watch(ctx context.Context, key string, opts storage.ListOptions) (watch.Interface, error) {
	k, err := s.prepareKey(key, opts.Recursive)
	if err != nil {
		return nil, err
	}
	rv, err := storage.ParseWatchResourceVersion(opts.ResourceVersion)
	if err != nil {
		return nil, err
	}
	w := &watcher{
		store:          s,
		key:            k,
		recursive:      opts.Recursive,
		pred:           opts.Predicate,
		progressNotify: opts.ProgressNotify,
		result:         make(chan watch.Event, resultBufferSize),
	}
	switch {
	case opts.SendInitialEvents != nil && *opts.SendInitialEvents:
		// The initial state must be at least as new as rv. Checking here,
		// rather than when it is read, lets the caller answer with an
		// error status instead of an error event.
		if rv > 0 {
			current, err := s.CurrentResourceVersion(ctx)
			if err != nil {
				return nil, err
			}
			if err := checkMinimumRevision(k, rv, int64(current)); err != nil {
				return nil, err
			}
		}
		w.sendInitial, w.endInitialWithBookmark = true, true
	case rv == 0 && opts.SendInitialEvents == nil:
		w.sendInitial = true
	case rv == 0:
		current, err := s.CurrentResourceVersion(ctx)
		if err != nil {
			return nil, err
		}
		w.startRev = int64(current)
	default:
		w.startRev = etcdRevision(rv)
	}
	w.ctx, w.cancel = context.WithCancel(watchContext(ctx))
	go w.run()
	return w, nil
}

// watcher is one watch: a goroutine reading an etcd watch and sending the
// events it makes of it on a bounded channel.
type watcher struct {
	store          *store
	key            string
	recursive      bool
	pred           storage.SelectionPredicate
	progressNotify bool
	// sendInitial asks for the current state first; startRev is then set
	// to the revision it was read at.
	sendInitial            bool
	endInitialWithBookmark bool
	// startRev is the last revision the client has seen, the
	// resourceVersion it asked for or the revision the initial state was
	// read at: etcd events are watched from startRev+1.
	startRev int64

	ctx    context.Context
	cancel context.CancelFunc
	result chan watch.Event
}

// Stop implements watch.Interface. It ends the etcd watch; ResultChan is
// closed once the goroutine has noticed, whether or not the consumer
// drains it.
func (w *watcher) Stop() { w.cancel() }

// ResultChan implements watch.Interface.
func (w *watcher) ResultChan() <-chan watch.Event { return w.result }

func (w *watcher) run() {
	defer close(w.result)
	// Cancelling releases the etcd watch whichever way run ends.
	defer w.cancel()

	if w.sendInitial {
		rev, err := w.sendInitialState()
		if err != nil {
			w.sendError(err)
			return
		}
		w.startRev = rev
		if w.endInitialWithBookmark {
			if !w.sendBookmark(rev, true) {
				return
			}
		}
	}

	opts := []clientv3.OpOption{clientv3.WithRev(w.startRev + 1), clientv3.WithPrevKV()}
	if w.recursive {
		opts = append(opts, clientv3.WithPrefix())
	}
	if w.progressNotify {
		opts = append(opts, clientv3.WithProgressNotify())
	}
	for resp := range w.store.client.Watch(w.ctx, w.key, opts...) {
		if err := resp.Err(); err != nil {
			w.sendError(w.watchError(err, resp.CompactRevision))
			return
		}
		if resp.IsProgressNotify() {
			if w.progressNotify && !w.sendBookmark(resp.Header.Revision, false) {
				return
			}
			continue
		}
		for _, ev := range resp.Events {
			e, ok, err := w.transform(ev)
			if err != nil {
				w.sendError(err)
				return
			}
			if ok && !w.send(e) {
				return
			}
		}
	}
	// The etcd client closes the channel when the context ends (Stop) or
	// when the client is closed; either way the watch is over.
}

// sendInitialState sends the objects under the watched key as ADDED
// events, read page by page at one revision, and returns that revision.
func (w *watcher) sendInitialState() (int64, error) {
	var rev int64
	from := w.key
	for {
		opts := []clientv3.OpOption{clientv3.WithRev(rev)}
		if w.recursive {
			opts = append(opts, clientv3.WithRange(clientv3.GetPrefixRangeEnd(w.key)), clientv3.WithLimit(initialPageSize))
		}
		resp, err := w.store.client.Get(w.ctx, from, opts...)
		if err != nil {
			if errors.Is(err, rpctypes.ErrCompacted) {
				return 0, apierrors.NewResourceExpired("The resourceVersion for the provided watch is too old.")
			}
			return 0, err
		}
		if rev == 0 {
			rev = resp.Header.Revision
		}
		for _, kv := range resp.Kvs {
			obj, err := w.decode(kv.Key, kv.ModRevision, kv.Value)
			if err != nil {
				return 0, err
			}
			if !w.matches(obj) {
				continue
			}
			if !w.send(watch.Event{Type: watch.Added, Object: obj}) {
				return 0, w.ctx.Err()
			}
		}
		if !resp.More || len(resp.Kvs) == 0 {
			return rev, nil
		}
		from = string(resp.Kvs[len(resp.Kvs)-1].Key) + "\x00"
	}
}

// transform makes the event a client sees of an etcd event, if it sees
// one. An object that starts matching the predicate is ADDED, one that
// stops matching is DELETED (carrying its previous state).
func (w *watcher) transform(ev *clientv3.Event) (watch.Event, bool, error) {
	rev := ev.Kv.ModRevision
	if ev.Type == mvccpb.DELETE {
		// A deleted object is sent as it was before, at the revision of
		// its deletion.
		prev, err := w.previous(ev)
		if err != nil {
			return watch.Event{}, false, err
		}
		return watch.Event{Type: watch.Deleted, Object: prev}, w.matches(prev), nil
	}
	cur, err := w.decode(ev.Kv.Key, rev, ev.Kv.Value)
	if err != nil {
		return watch.Event{}, false, err
	}
	if ev.IsCreate() {
		return watch.Event{Type: watch.Added, Object: cur}, w.matches(cur), nil
	}
	if w.pred.Empty() {
		return watch.Event{Type: watch.Modified, Object: cur}, true, nil
	}
	prev, err := w.previous(ev)
	if err != nil {
		return watch.Event{}, false, err
	}
	switch curMatches, prevMatches := w.matches(cur), w.matches(prev); {
	case curMatches && prevMatches:
		return watch.Event{Type: watch.Modified, Object: cur}, true, nil
	case curMatches:
		return watch.Event{Type: watch.Added, Object: cur}, true, nil
	case prevMatches:
		return watch.Event{Type: watch.Deleted, Object: prev}, true, nil
	}
	return watch.Event{}, false, nil
}

// previous decodes the state of the key before ev, with ev's revision as
// its resourceVersion. etcd sends it along with the event (WithPrevKV)
// unless it was compacted in the meantime; then it is read at the
// revision before, and if that is compacted too the watch cannot go on
// consistently.
func (w *watcher) previous(ev *clientv3.Event) (runtime.Object, error) {
	rev := ev.Kv.ModRevision
	prev := ev.PrevKv
	if prev == nil {
		resp, err := w.store.client.Get(w.ctx, string(ev.Kv.Key), clientv3.WithRev(rev-1))
		if errors.Is(err, rpctypes.ErrCompacted) {
			// The watch started just before the compacted revision: the
			// event is the oldest that can be served, and it is not whole.
			return nil, tooOldError(w.startRev, rev)
		}
		if err != nil {
			return nil, fmt.Errorf("reading the state of %s before revision %d: %w", ev.Kv.Key, rev, err)
		}
		if len(resp.Kvs) == 0 {
			return nil, fmt.Errorf("no state of %s before revision %d", ev.Kv.Key, rev)
		}
		prev = resp.Kvs[0]
	}
	return w.decode(prev.Key, rev, prev.Value)
}

func (w *watcher) decode(key []byte, rev int64, value []byte) (runtime.Object, error) {
	obj := w.store.newFunc()
	if _, err := w.store.decodeStored(w.ctx, string(key), rev, value, obj); err != nil {
		return nil, err
	}
	return obj, nil
}

func (w *watcher) matches(obj runtime.Object) bool {
	ok, err := w.pred.Matches(obj)
	return err == nil && ok
}

// sendBookmark sends a BOOKMARK event at revision rev: an empty object of
// the watched type carrying only that resourceVersion (and the
// initial-events-end annotation if initialEnd).
func (w *watcher) sendBookmark(rev int64, initialEnd bool) bool {
	obj := w.store.newFunc()
	m, err := meta.Accessor(obj)
	if err != nil {
		w.sendError(err)
		return false
	}
	m.SetResourceVersion(fmt.Sprint(rev))
	if initialEnd {
		m.SetAnnotations(map[string]string{metav1.InitialEventsAnnotationKey: "true"})
	}
	return w.send(watch.Event{Type: watch.Bookmark, Object: obj})
}

// send sends e unless the watch is stopped first; it reports whether it
// did. It blocks while the consumer is behind by resultBufferSize events.
func (w *watcher) send(e watch.Event) bool {
	select {
	case w.result <- e:
		return true
	case <-w.ctx.Done():
		return false
	}
}

// sendError sends err as the last event of the watch: an ERROR event
// carrying a Status. A stopped watch sends nothing more: its errors are
// only the consequence of stopping.
func (w *watcher) sendError(err error) {
	if w.ctx.Err() != nil {
		return
	}
	w.send(watch.Event{Type: watch.Error, Object: storage.WatchErrorStatus(err)})
}

// watchError returns the error a client sees when its etcd watch fails.
func (w *watcher) watchError(err error, compactRev int64) error {
	if compactRev != 0 {
		// kube-apiserver's words: the resourceVersion asked for, then the
		// oldest one a watch can still start after. etcd keeps the state
		// at the compacted revision, so that is the revision before.
		return tooOldError(w.startRev, compactRev)
	}
	return err
}

// tooOldError is the 410 of a watch from a compacted revision, in
// kube-apiserver's words: the resourceVersion asked for, then the oldest
// one a watch can still start from. etcd keeps the state at the compacted
// revision, but not the state before it, which a DELETED event (or a
// change seen through a selector) at the compacted revision needs: the
// oldest start is the compacted revision itself.
func tooOldError(startRev, compactRev int64) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusGone,
		Reason:  metav1.StatusReasonExpired,
		Message: fmt.Sprintf("too old resource version: %d (%d)", startRev, compactRev),
	}}
}

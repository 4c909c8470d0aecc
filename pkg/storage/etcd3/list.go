package etcd3

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/storage"
)

// maxPageSize bounds how far a filtered list grows its etcd pages: when a
// selector drops objects, each further etcd read asks for twice as many
// keys as the previous one, up to this.
const maxPageSize = 10000

// The messages kube-apiserver puts in the 410 Status of a list whose
// revision was compacted.
const (
	msgListExpired = "The resourceVersion for the provided list is too old."
	// msgContinueExpired is for a continued list when no token to continue
	// inconsistently can be made.
	msgContinueExpired = "The provided continue parameter is too old " +
		"to display a consistent list result. You can start a new list without " +
		"the continue parameter."
	msgInconsistentContinue = "The provided continue parameter is too old " +
		"to display a consistent list result. You can start a new list without " +
		"the continue parameter, or use the continue token in this response to " +
		"retrieve the remainder of the results. Continuing with the provided " +
		"token results in an inconsistent list - objects that were created, " +
		"modified, or deleted between the time the first chunk was returned " +
		"and now may show up in the list."
)

// listRead says where and at which revision a list reads.
type listRead struct {
	// rev is the revision to read at; 0 reads the latest one.
	rev int64
	// minRV is the revision the latest state must have reached
	// (resourceVersionMatch NotOlderThan).
	minRV uint64
	// start is the key to resume from, when continuing a list.
	start string
}

// etcdRevision is the etcd revision of a resourceVersion. etcd's
// revisions are int64, resourceVersions uint64: one beyond etcd's range
// is a revision no etcd has reached, which etcd answers as every future
// revision (read: too large; watch: wait), not a negative number, which
// etcd reads as "the latest". (Found by FuzzPlanList.)
func etcdRevision(rv uint64) int64 {
	// A watch starts at the revision after the one given.
	const maxRev = math.MaxInt64 - 1
	if rv > maxRev {
		return maxRev
	}
	return int64(rv)
}

// planList interprets the resourceVersion, resourceVersionMatch and
// continue of a list of keyPrefix the way kube-apiserver does.
func planList(keyPrefix string, opts storage.ListOptions) (listRead, error) {
	var r listRead
	if opts.Recursive && opts.Predicate.Continue != "" {
		start, rev, err := storage.DecodeContinue(opts.Predicate.Continue, keyPrefix)
		if err != nil {
			return r, err
		}
		if opts.ResourceVersion != "" && opts.ResourceVersion != "0" {
			return r, apierrors.NewBadRequest("specifying resource version is not allowed when using continue")
		}
		r.start = start
		// A negative revision is the token of an expired list that the
		// client chose to continue inconsistently, at the latest revision.
		if rev > 0 {
			r.rev = rev
		}
		return r, nil
	}
	rv, err := storage.ParseResourceVersion(opts.ResourceVersion)
	if err != nil {
		return r, err
	}
	switch metav1.ResourceVersionMatch(opts.ResourceVersionMatch) {
	case metav1.ResourceVersionMatchNotOlderThan:
		r.minRV = rv
	case metav1.ResourceVersionMatchExact:
		r.rev = etcdRevision(rv)
	case "":
		// Before resourceVersionMatch existed, a resourceVersion meant
		// "not older than", except on the first page of a paged list,
		// which it pinned to that revision.
		r.minRV = rv
		if opts.Recursive && opts.Predicate.Limit > 0 && rv > 0 {
			r.rev = etcdRevision(rv)
		}
	default:
		return r, apierrors.NewBadRequest(fmt.Sprintf("unknown ResourceVersionMatch value: %v", opts.ResourceVersionMatch))
	}
	return r, nil
}

// GetList implements storage.Interface.
//
// A paged list (Predicate.Limit > 0) returns at most Limit objects and a
// continue token if there may be more; every page is read at the revision
// of the first. When the predicate drops objects, GetList reads further
// etcd pages until Limit objects matched or the range is exhausted, so
// that only the last page of a list is short.
func (s *store) GetList(ctx context.Context, key string, opts storage.ListOptions, listObj runtime.Object) error {
	keyPrefix, err := s.prepareKey(key, opts.Recursive)
	if err != nil {
		return err
	}
	itemsPtr, err := meta.GetItemsPtr(listObj)
	if err != nil {
		return err
	}
	items, err := conversion.EnforcePtr(itemsPtr)
	if err != nil || items.Kind() != reflect.Slice {
		return fmt.Errorf("list %T has no slice of items: %v", listObj, err)
	}
	newItem := itemFactory(listObj, items)

	plan, err := planList(keyPrefix, opts)
	if err != nil {
		return err
	}

	pred := opts.Predicate
	limit := pred.Limit
	paging := opts.Recursive && limit > 0
	rev := plan.rev
	from := keyPrefix
	if plan.start != "" {
		from = plan.start
	}

	var (
		lastKey string
		hasMore bool
		// remaining counts the keys left in the range after the last key
		// returned; known only when every key read was returned, that is
		// when the predicate selects everything.
		remaining int64
	)
	for {
		ops := []clientv3.OpOption{clientv3.WithRev(rev)}
		if opts.Recursive {
			ops = append(ops, clientv3.WithRange(clientv3.GetPrefixRangeEnd(keyPrefix)))
			if paging {
				ops = append(ops, clientv3.WithLimit(limit))
			}
		}
		resp, err := s.client.Get(ctx, from, ops...)
		if err != nil {
			return s.listError(ctx, err, keyPrefix, rev, plan.start)
		}
		if err := checkMinimumRevision(keyPrefix, plan.minRV, resp.Header.Revision); err != nil {
			return err
		}
		if rev == 0 {
			// Every further page, and every page a continue token asks
			// for, is read at the revision of the first.
			rev = resp.Header.Revision
		}
		hasMore = resp.More
		consumed := 0
		for _, kv := range resp.Kvs {
			if paging && int64(items.Len()) >= pred.Limit {
				hasMore = true
				break
			}
			consumed++
			lastKey = string(kv.Key)
			obj := newItem()
			if _, err := s.decodeStored(ctx, lastKey, kv.ModRevision, kv.Value, obj); err != nil {
				return err
			}
			if ok, err := pred.Matches(obj); err == nil && ok {
				items.Set(reflect.Append(items, reflect.ValueOf(obj).Elem()))
			}
		}
		remaining = resp.Count - int64(consumed)
		if !paging || !hasMore || int64(items.Len()) >= pred.Limit {
			break
		}
		// The predicate dropped objects: read on, in larger pages, from
		// just after the last key seen.
		if limit < maxPageSize {
			limit = min(2*limit, maxPageSize)
		}
		from = lastKey + "\x00"
	}
	if items.IsNil() {
		// An empty list has "items": [] on the wire, not null.
		items.Set(reflect.MakeSlice(items.Type(), 0, 0))
	}

	if !hasMore {
		return storage.UpdateList(listObj, uint64(rev), "", nil)
	}
	next, err := storage.EncodeContinue(lastKey+"\x00", keyPrefix, rev)
	if err != nil {
		return err
	}
	var remainingItemCount *int64
	if pred.Empty() {
		remainingItemCount = &remaining
	}
	return storage.UpdateList(listObj, uint64(rev), next, remainingItemCount)
}

// listError turns the errors of an etcd range read at rev into the storage
// errors kube-apiserver answers with. continueFrom is the key a continued
// list resumed from, "" for a first page.
func (s *store) listError(ctx context.Context, err error, keyPrefix string, rev int64, continueFrom string) error {
	switch {
	case errors.Is(err, rpctypes.ErrCompacted):
		if continueFrom == "" {
			return storage.NewError(storage.ErrCodeExpired, keyPrefix, rev, msgListExpired)
		}
		// Offer to continue where the page started, at the latest
		// revision. (Not where the read failed: a page that filters
		// reads several etcd pages, and the client got none of them.)
		next, terr := storage.EncodeContinue(continueFrom, keyPrefix, -1)
		if terr != nil {
			return storage.NewError(storage.ErrCodeExpired, keyPrefix, rev, msgContinueExpired)
		}
		return &storage.Error{Code: storage.ErrCodeExpired, Key: keyPrefix, ResourceVersion: rev,
			Detail: msgInconsistentContinue, Continue: next}
	case errors.Is(err, rpctypes.ErrFutureRev):
		current, cerr := s.CurrentResourceVersion(ctx)
		if cerr != nil {
			current = 0
		}
		return storage.NewTooLargeResourceVersionError(keyPrefix, uint64(rev), current)
	}
	return err
}

// itemFactory returns a function making new items for the list whose
// items slice is items.
func itemFactory(listObj runtime.Object, items reflect.Value) func() runtime.Object {
	// Items of an unstructured list must know their apiVersion before
	// they are decoded, for the decoder to convert them to it.
	if ul, ok := listObj.(*unstructured.UnstructuredList); ok {
		if apiVersion := ul.GetAPIVersion(); apiVersion != "" {
			return func() runtime.Object {
				u := &unstructured.Unstructured{}
				u.SetAPIVersion(apiVersion)
				return u
			}
		}
	}
	t := items.Type().Elem()
	return func() runtime.Object { return reflect.New(t).Interface().(runtime.Object) }
}

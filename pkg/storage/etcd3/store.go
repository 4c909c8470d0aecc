// Package etcd3 implements storage.Interface on etcd's v3 API.
//
// Objects are stored the way kube-apiserver stores them, so that an etcd
// written by one server can be served by the other: the value at
// prefix+key is the object encoded by the caller's codec (protobuf with
// the "k8s\x00" envelope for built-in types, JSON for custom resources),
// without resourceVersion or selfLink; the etcd revision of the last write
// of a key is the object's resourceVersion, and the revision of a read is
// the list's.
package etcd3

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"reflect"
	"strings"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/metadata"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/api/objectkind"
	"github.com/kapi-dev/kapi/pkg/storage"
	"github.com/kapi-dev/kapi/pkg/storage/value"
)

// store is the etcd implementation of storage.Interface for one resource.
type store struct {
	client   *clientv3.Client
	codec    runtime.Codec
	newFunc  func() runtime.Object
	resource schema.GroupResource
	// pathPrefix is the prefix all keys are stored under, ending in "/".
	pathPrefix string
	// transformer encrypts values at rest; nil stores them as the codec
	// made them, at no cost.
	transformer value.Transformer
}

// New returns a storage.Interface that keeps the objects of resource in
// etcd under prefix (for example "/registry"), encoded with codec.
// newFunc returns an empty object of the resource's type; newListFunc an
// empty list. The etcd store needs no list factory, it takes the list to
// fill from the caller; newListFunc is accepted so that every storage
// layer (the watch cache too) is built from the same arguments.
//
// The returned value also implements ProgressRequester.
func New(client *clientv3.Client, codec runtime.Codec, newFunc, newListFunc func() runtime.Object,
	prefix string, resource schema.GroupResource) storage.Interface {
	return NewWithTransformer(client, codec, newFunc, newListFunc, prefix, resource, nil)
}

// NewWithTransformer is New with values passed through transformer
// (encryption at rest) between the codec and etcd: encode, then
// ToStorage, on writes; FromStorage, then decode, on reads, lists and
// watches. The etcd key is the transformer's authenticated data, as in
// kube-apiserver, so that a provider that authenticates it (aesgcm, KMS
// v2) refuses a value moved to another key. A nil transformer is New.
func NewWithTransformer(client *clientv3.Client, codec runtime.Codec, newFunc, newListFunc func() runtime.Object,
	prefix string, resource schema.GroupResource, transformer value.Transformer) storage.Interface {
	p := path.Join("/", prefix)
	if !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return &store{client: client, codec: codec, newFunc: newFunc, resource: resource, pathPrefix: p, transformer: transformer}
}

var _ storage.Interface = (*store)(nil)

// ProgressRequester is implemented by the stores New returns.
type ProgressRequester interface {
	// RequestWatchProgress asks etcd to tell every watch of this client
	// that asked for ProgressNotify how far it is, which the watch sends
	// on as a BOOKMARK event. etcd answers once a watch has delivered
	// every event up to the current revision.
	RequestWatchProgress(ctx context.Context) error
}

// WatchStreamIsolator is implemented by the stores New returns.
type WatchStreamIsolator interface {
	// WithOwnWatchStream returns a context whose watches, and progress
	// requests, go over an etcd watch stream of their own, named name.
	//
	// etcd answers a progress request only when every watch on the
	// stream has caught up: a watch cache that relies on progress
	// notifications must not share its stream with watches that replay
	// old history (or whose consumers are slow).
	WithOwnWatchStream(ctx context.Context, name string) context.Context
}

// prepareKey returns the etcd key of key. For a recursive read the result
// ends in "/", so that listing "/pods/a" does not return "/pods/ab".
func (s *store) prepareKey(key string, recursive bool) (string, error) {
	if key == "" || key == "/" {
		return "", fmt.Errorf("empty key: %q", key)
	}
	// A key is joined to the prefix as it is, so "." and ".." segments
	// would not mean what they say; no valid object name makes one.
	for _, seg := range strings.Split(strings.Trim(key, "/"), "/") {
		if seg == "." || seg == ".." {
			return "", fmt.Errorf("invalid key: %q", key)
		}
	}
	k := s.pathPrefix + strings.TrimPrefix(key, "/")
	if recursive && !strings.HasSuffix(k, "/") {
		k += "/"
	}
	return k, nil
}

// Create implements storage.Interface.
func (s *store) Create(ctx context.Context, key string, obj, out runtime.Object) error {
	k, err := s.prepareKey(key, false)
	if err != nil {
		return err
	}
	if rv, err := storage.ObjectResourceVersion(obj); err == nil && rv != 0 {
		return storage.NewError(storage.ErrCodeInvalidObj, k, 0, "resourceVersion should not be set on objects to be created")
	}
	if err := storage.PrepareObjectForStorage(obj); err != nil {
		return err
	}
	data, err := runtime.Encode(s.codec, obj)
	if err != nil {
		return err
	}
	stored, err := s.toStorage(ctx, k, data)
	if err != nil {
		return err
	}
	resp, err := s.client.Txn(ctx).
		If(clientv3.Compare(clientv3.ModRevision(k), "=", 0)).
		Then(clientv3.OpPut(k, string(stored))).
		Commit()
	if err != nil {
		return err
	}
	if !resp.Succeeded {
		return storage.NewError(storage.ErrCodeKeyExists, k, 0, "")
	}
	if out == nil {
		return nil
	}
	return s.decode(k, resp.Header.Revision, data, out)
}

// Get implements storage.Interface.
func (s *store) Get(ctx context.Context, key string, opts storage.GetOptions, out runtime.Object) error {
	k, err := s.prepareKey(key, false)
	if err != nil {
		return err
	}
	minRV, err := storage.ParseResourceVersion(opts.ResourceVersion)
	if err != nil {
		return err
	}
	resp, err := s.client.Get(ctx, k)
	if err != nil {
		return err
	}
	if err := checkMinimumRevision(k, minRV, resp.Header.Revision); err != nil {
		return err
	}
	if len(resp.Kvs) == 0 {
		if opts.IgnoreNotFound {
			return runtime.SetZeroValue(out)
		}
		return storage.NewError(storage.ErrCodeKeyNotFound, k, 0, "")
	}
	kv := resp.Kvs[0]
	_, err = s.decodeStored(ctx, k, kv.ModRevision, kv.Value, out)
	return err
}

// checkMinimumRevision enforces "at least resourceVersion minRV" on a read
// that happened at revision rev.
func checkMinimumRevision(key string, minRV uint64, rev int64) error {
	if minRV > uint64(rev) {
		return storage.NewTooLargeResourceVersionError(key, minRV, uint64(rev))
	}
	return nil
}

// state is an object as read from etcd.
type state struct {
	obj runtime.Object
	// data is the stored value as the codec made it (decrypted), nil if
	// the key does not exist.
	data []byte
	// stale is true when the value was not encrypted the way the current
	// configuration writes: it is written again even when unchanged.
	stale bool
	// rev is the object's mod revision, 0 if it does not exist.
	rev int64
}

// readState decodes the value of key found in kvs (the result of reading
// it) into a new object made by newObj. A missing key is a KeyNotFound
// error, or a zero object if ignoreNotFound.
func (s *store) readState(ctx context.Context, key string, kvs []*mvccpb.KeyValue, newObj func() runtime.Object, ignoreNotFound bool) (*state, error) {
	st := &state{obj: newObj()}
	if len(kvs) == 0 {
		if !ignoreNotFound {
			return nil, storage.NewError(storage.ErrCodeKeyNotFound, key, 0, "")
		}
		return st, nil
	}
	kv := kvs[0]
	st.rev = kv.ModRevision
	data, stale, err := s.fromStorage(ctx, key, kv.Value)
	if err != nil {
		return nil, s.untransformable(key, st.rev, err)
	}
	st.data, st.stale = data, stale
	if err := s.decode(key, st.rev, st.data, st.obj); err != nil {
		return nil, err
	}
	return st, nil
}

// GuaranteedUpdate implements storage.Interface.
func (s *store) GuaranteedUpdate(ctx context.Context, key string, destination runtime.Object, ignoreNotFound bool,
	preconditions *storage.Preconditions, tryUpdate storage.UpdateFunc) error {
	k, err := s.prepareKey(key, false)
	if err != nil {
		return err
	}
	newObj := factoryOf(destination)
	resp, err := s.client.Get(ctx, k)
	if err != nil {
		return err
	}
	st, err := s.readState(ctx, k, resp.Kvs, newObj, ignoreNotFound)
	if err != nil {
		return err
	}
	for {
		// A conflict starts the loop again; a request that has ended
		// (timed out, its client gone) does not try again.
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := preconditions.Check(k, st.obj); err != nil {
			return err
		}
		updated, err := tryUpdate(st.obj, storage.ResponseMeta{ResourceVersion: uint64(st.rev)})
		if err != nil {
			return err
		}
		if err := storage.PrepareObjectForStorage(updated); err != nil {
			return err
		}
		data, err := runtime.Encode(s.codec, updated)
		if err != nil {
			return err
		}
		if st.data != nil && !st.stale && bytes.Equal(data, st.data) {
			// Nothing changed: writing would only bump the revision and
			// wake every watcher for nothing. A stale value is written
			// all the same: that is how an update re-encrypts it with
			// the current key (kube-apiserver's key rotation).
			return s.decode(k, st.rev, st.data, destination)
		}
		stored, err := s.toStorage(ctx, k, data)
		if err != nil {
			return err
		}
		txn, err := s.client.Txn(ctx).
			If(clientv3.Compare(clientv3.ModRevision(k), "=", st.rev)).
			Then(clientv3.OpPut(k, string(stored))).
			Else(clientv3.OpGet(k)).
			Commit()
		if err != nil {
			return err
		}
		if txn.Succeeded {
			return s.decode(k, txn.Header.Revision, data, destination)
		}
		// Someone else wrote in between: start again from what they wrote.
		st, err = s.readState(ctx, k, txn.Responses[0].GetResponseRange().Kvs, newObj, ignoreNotFound)
		if err != nil {
			return err
		}
	}
}

// Delete implements storage.Interface. out receives the last state of the
// object with the revision of the deletion as its resourceVersion, which is
// also the resourceVersion watchers see in the DELETED event.
func (s *store) Delete(ctx context.Context, key string, out runtime.Object, preconditions *storage.Preconditions,
	validateDeletion storage.ValidateObjectFunc) error {
	k, err := s.prepareKey(key, false)
	if err != nil {
		return err
	}
	newObj := factoryOf(out)
	resp, err := s.client.Get(ctx, k)
	if err != nil {
		return err
	}
	st, err := s.readState(ctx, k, resp.Kvs, newObj, false)
	if err != nil {
		return err
	}
	for {
		if err := preconditions.Check(k, st.obj); err != nil {
			return err
		}
		if validateDeletion != nil {
			if err := validateDeletion(ctx, st.obj); err != nil {
				return err
			}
		}
		txn, err := s.client.Txn(ctx).
			If(clientv3.Compare(clientv3.ModRevision(k), "=", st.rev)).
			Then(clientv3.OpDelete(k)).
			Else(clientv3.OpGet(k)).
			Commit()
		if err != nil {
			return err
		}
		if txn.Succeeded {
			return s.decode(k, txn.Header.Revision, st.data, out)
		}
		st, err = s.readState(ctx, k, txn.Responses[0].GetResponseRange().Kvs, newObj, false)
		if err != nil {
			return err
		}
	}
}

// CurrentResourceVersion implements storage.Interface.
func (s *store) CurrentResourceVersion(ctx context.Context) (uint64, error) {
	// Any linearizable read reports the current revision; this one reads
	// a key that never exists and counts it, which costs next to nothing.
	resp, err := s.client.Get(ctx, s.pathPrefix, clientv3.WithCountOnly())
	if err != nil {
		return 0, err
	}
	return uint64(resp.Header.Revision), nil
}

// WithOwnWatchStream implements WatchStreamIsolator. The etcd client puts
// watches on one stream per distinct set of outgoing gRPC metadata.
func (s *store) WithOwnWatchStream(ctx context.Context, name string) context.Context {
	return metadata.AppendToOutgoingContext(ctx, watchStreamKey, name)
}

// RequestWatchProgress implements ProgressRequester.
func (s *store) RequestWatchProgress(ctx context.Context) error {
	// etcd answers on the gRPC stream the request is sent on, and the
	// client picks the stream by the context's metadata: it must be the
	// context the watches were opened with, naming their stream
	// (WithOwnWatchStream); a watch without a named stream has one of its
	// own that no progress request reaches.
	return s.client.RequestProgress(clientv3.WithRequireLeader(ctx))
}

// toStorage returns what to store at key for the encoded value data.
func (s *store) toStorage(ctx context.Context, key string, data []byte) ([]byte, error) {
	if s.transformer == nil {
		return data, nil
	}
	out, err := s.transformer.ToStorage(ctx, data, []byte(key))
	if err != nil {
		return nil, storage.NewError(storage.ErrCodeInvalidObj, key, 0, fmt.Sprintf("unable to transform key %q: %v", key, err))
	}
	return out, nil
}

// fromStorage returns the encoded value of what is stored at key, and
// whether it was written by a provider or key other than the current
// first one.
func (s *store) fromStorage(ctx context.Context, key string, stored []byte) ([]byte, bool, error) {
	if s.transformer == nil {
		return stored, false, nil
	}
	return s.transformer.FromStorage(ctx, stored, []byte(key))
}

// untransformable is the error for a stored value that does not
// decrypt: a 500, and nothing is changed.
func (s *store) untransformable(key string, rev int64, err error) error {
	return storage.NewError(storage.ErrCodeCorruptObj, key, rev, fmt.Sprintf("unable to transform key %q: %v", key, err))
}

// decodeStored decrypts and decodes the value stored at key into into,
// as decode does. stale is fromStorage's.
func (s *store) decodeStored(ctx context.Context, key string, rev int64, stored []byte, into runtime.Object) (stale bool, err error) {
	data, stale, err := s.fromStorage(ctx, key, stored)
	if err != nil {
		return false, s.untransformable(key, rev, err)
	}
	return stale, s.decode(key, rev, data, into)
}

// decode decodes the value stored at key into into and sets its
// resourceVersion to rev. A value that does not decode, whatever the
// reason, is a CorruptObj error: stored data must never crash the server.
func (s *store) decode(key string, rev int64, data []byte, into runtime.Object) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = s.corrupt(key, rev, fmt.Errorf("decoder panicked: %v", r))
		}
	}()
	obj, _, err := s.codec.Decode(data, nil, into)
	if err != nil {
		return s.corrupt(key, rev, err)
	}
	if obj != into {
		return s.corrupt(key, rev, fmt.Errorf("stored object is a %T, not a %T", obj, into))
	}
	objectkind.ClearTyped(into)
	return storage.UpdateObject(into, uint64(rev))
}

func (s *store) corrupt(key string, rev int64, err error) error {
	return storage.NewError(storage.ErrCodeCorruptObj, key, rev,
		fmt.Sprintf("cannot decode stored %s: %v", s.resource, err))
}

// factoryOf returns a function making new empty objects of obj's type;
// unstructured objects keep obj's apiVersion and kind.
func factoryOf(obj runtime.Object) func() runtime.Object {
	if u, ok := obj.(runtime.Unstructured); ok {
		return func() runtime.Object { return u.NewEmptyInstance() }
	}
	t := reflect.TypeOf(obj).Elem()
	return func() runtime.Object { return reflect.New(t).Interface().(runtime.Object) }
}

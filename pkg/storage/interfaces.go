// Package storage defines how the registry talks to a key-value backend:
// the Interface implemented by etcd3 (and, later, by the watch cache), the
// preconditions and selection predicates it takes, and its typed errors.
//
// Keys are full paths below the configured prefix, for example
// "/configmaps/default/app" for the object stored at
// "/registry/configmaps/default/app". Objects are typed runtime.Objects; the
// backend owns their encoding.
package storage

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// Interface is a typed, versioned key-value store. Every object it returns
// carries the resourceVersion (etcd mod revision) it was read at; every list
// carries the revision of the read.
type Interface interface {
	// Create stores obj at key if nothing is there and decodes the stored
	// object into out. It returns a KeyExists error if key is taken.
	Create(ctx context.Context, key string, obj, out runtime.Object) error

	// Get decodes the object at key into out. A missing key is a KeyNotFound
	// error unless opts.IgnoreNotFound, in which case out is left zero.
	Get(ctx context.Context, key string, opts GetOptions, out runtime.Object) error

	// GetList lists the objects below key (a prefix when opts.Recursive)
	// that match opts.Predicate into listObj (a pointer to a list type),
	// honouring limit, continue and resourceVersion semantics.
	GetList(ctx context.Context, key string, opts ListOptions, listObj runtime.Object) error

	// GuaranteedUpdate reads the object at key, calls tryUpdate with it and
	// writes the result if the object did not change in between, retrying
	// tryUpdate on conflict. preconditions are checked against every
	// attempt's current object. If the key is missing and ignoreNotFound is
	// set, tryUpdate gets a zero object (create-on-update); otherwise the
	// result is KeyNotFound. destination receives the stored object.
	GuaranteedUpdate(ctx context.Context, key string, destination runtime.Object, ignoreNotFound bool,
		preconditions *Preconditions, tryUpdate UpdateFunc) error

	// Delete removes the object at key if preconditions hold and
	// validateDeletion (which may be nil) accepts the current object, and
	// decodes the last state into out, with the revision of the deletion
	// as its resourceVersion, as watchers see it in the DELETED event.
	Delete(ctx context.Context, key string, out runtime.Object, preconditions *Preconditions,
		validateDeletion ValidateObjectFunc) error

	// Watch streams changes below key (a prefix when opts.Recursive) that
	// happen after opts.ResourceVersion. With ResourceVersion "" or "0" it
	// first sends the current state as ADDED events. Events that move an
	// object into or out of opts.Predicate are sent as ADDED or DELETED.
	Watch(ctx context.Context, key string, opts ListOptions) (watch.Interface, error)

	// CurrentResourceVersion returns the store's latest revision.
	CurrentResourceVersion(ctx context.Context) (uint64, error)
}

// UpdateFunc computes a new object from the current one. Returning an error
// aborts the update and is passed through. It may modify and return
// current, and is called again with a fresh object if another write
// happened in between.
type UpdateFunc func(current runtime.Object, res ResponseMeta) (updated runtime.Object, err error)

// ResponseMeta is what the backend knows about the current object besides
// its content.
type ResponseMeta struct {
	// ResourceVersion is the revision the current object was read at; zero
	// when it does not exist.
	ResourceVersion uint64
}

// ValidateObjectFunc checks an object before a write that depends on it.
type ValidateObjectFunc func(ctx context.Context, obj runtime.Object) error

// Preconditions must hold on the current object for a write to happen.
type Preconditions struct {
	UID             *types.UID
	ResourceVersion *string
}

// GetOptions control a single-object read.
type GetOptions struct {
	IgnoreNotFound bool
	// ResourceVersion "" reads the latest state; "0" allows any state; any
	// other value asks for a state at least that new.
	ResourceVersion string
}

// ListOptions control lists and watches.
type ListOptions struct {
	// ResourceVersion and ResourceVersionMatch as in metav1.ListOptions.
	ResourceVersion      string
	ResourceVersionMatch string
	// Predicate selects objects and carries limit and continue.
	Predicate SelectionPredicate
	// Recursive treats the key as a prefix.
	Recursive bool
	// ProgressNotify asks a watch for bookmark events.
	ProgressNotify bool
	// SendInitialEvents asks a watch to send the current state first, ending
	// with a bookmark annotated k8s.io/initial-events-end.
	SendInitialEvents *bool
}

// Stats is what a storage knows of the objects of one resource, for
// estimating what a list of it costs (API priority and fairness).
type Stats struct {
	// ObjectCount is how many objects are stored.
	ObjectCount int64
	// EstimatedAverageObjectSizeBytes is the average size of their stored
	// values, 0 when unknown. An estimate: it need not be exact nor
	// consistent with ObjectCount.
	EstimatedAverageObjectSizeBytes int64
}

// StatsReader is implemented by storages that can count the objects of a
// resource (the etcd3 store). It is called periodically, off the request
// path, by the object count tracker.
type StatsReader interface {
	// Stats returns the stats of the objects below key (a prefix, as in
	// a recursive list), such as "/configmaps".
	Stats(ctx context.Context, key string) (Stats, error)
}

// Package rest defines the interfaces between the HTTP handlers and the
// storage of a resource. A resource's REST storage implements the verb
// interfaces it supports; the installer looks at which ones to decide the
// verbs it serves and advertises in discovery.
package rest

import (
	"context"
	"io"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

// Storage is implemented by every resource's REST storage.
type Storage interface {
	// New returns an empty object of the resource's kind.
	New() runtime.Object
	// Destroy releases what the storage holds (watches, clients).
	Destroy()
}

// Scoper tells whether a resource lives in namespaces.
type Scoper interface {
	NamespaceScoped() bool
}

// Getter reads one object.
type Getter interface {
	Get(ctx context.Context, name string, opts *metav1.GetOptions) (runtime.Object, error)
}

// Lister lists objects.
type Lister interface {
	NewList() runtime.Object
	List(ctx context.Context, opts *metav1.ListOptions) (runtime.Object, error)
	TableConvertor
}

// TableConvertor renders objects as a metav1.Table.
type TableConvertor interface {
	ConvertToTable(ctx context.Context, obj runtime.Object, tableOptions runtime.Object) (*metav1.Table, error)
}

// Watcher watches objects.
type Watcher interface {
	Watch(ctx context.Context, opts *metav1.ListOptions) (watch.Interface, error)
}

// ValidateObjectFunc is an extra check (admission) run on an object before
// it is written. A delete hands it a copy of the object it deletes, which
// the check may change.
type ValidateObjectFunc func(ctx context.Context, obj runtime.Object) error

// ValidateObjectUpdateFunc is an extra check run on an update.
type ValidateObjectUpdateFunc func(ctx context.Context, obj, old runtime.Object) error

// Creater creates objects.
type Creater interface {
	New() runtime.Object
	Create(ctx context.Context, obj runtime.Object, createValidation ValidateObjectFunc, opts *metav1.CreateOptions) (runtime.Object, error)
}

// UpdatedObjectInfo computes the new state of an object from its current
// state: a PUT ignores the current state, a PATCH applies itself to it.
type UpdatedObjectInfo interface {
	// UpdatedObject returns the new object. oldObj is nil when the object
	// does not exist (create on update).
	UpdatedObject(ctx context.Context, oldObj runtime.Object) (runtime.Object, error)
}

// Updater updates objects.
type Updater interface {
	New() runtime.Object
	// Update returns the stored object and whether it was created.
	Update(ctx context.Context, name string, objInfo UpdatedObjectInfo, createValidation ValidateObjectFunc,
		updateValidation ValidateObjectUpdateFunc, forceAllowCreate bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error)
}

// Patcher is implemented by storage that can be patched: a patch is an
// update computed from the current object.
type Patcher interface {
	Getter
	Updater
}

// GracefulDeleter deletes objects, possibly with a grace period.
type GracefulDeleter interface {
	// Delete returns the object (its last state, or its state while its
	// deletion is pending) and whether it was removed from storage now.
	Delete(ctx context.Context, name string, deleteValidation ValidateObjectFunc, opts *metav1.DeleteOptions) (runtime.Object, bool, error)
}

// CollectionDeleter deletes every object a list selects.
type CollectionDeleter interface {
	DeleteCollection(ctx context.Context, deleteValidation ValidateObjectFunc, opts *metav1.DeleteOptions, listOpts *metav1.ListOptions) (runtime.Object, error)
}

// ShortNamesProvider gives a resource's short names for discovery.
type ShortNamesProvider interface {
	ShortNames() []string
}

// CategoriesProvider gives the categories (e.g. "all") a resource is in.
type CategoriesProvider interface {
	Categories() []string
}

// SingularNameProvider gives a resource's singular name for discovery.
type SingularNameProvider interface {
	GetSingularName() string
}

// GroupVersionKindProvider is implemented by storage whose kind is not
// that of its group version, such as the autoscaling/v1 Scale subresource
// of apps/v1 deployments.
type GroupVersionKindProvider interface {
	GroupVersionKind(containingGV schema.GroupVersion) schema.GroupVersionKind
}

// StorageKeyPrefixer is implemented by storage that keeps objects below
// a storage key prefix. Resources with the same prefix serve the same
// objects (core/v1 and events.k8s.io/v1 events): admission's matchPolicy
// Equivalent treats them as one, as kube-apiserver does.
type StorageKeyPrefixer interface {
	StorageKeyPrefix() string
}

// DeletedObjectReturner is implemented by storage whose DELETE answers with
// the deleted object (pods, namespaces) rather than a Success Status; the
// OpenAPI documents say which.
type DeletedObjectReturner interface {
	ReturnsDeletedObject() bool
}

// Deprecated is implemented by storage of a resource kube-apiserver warns
// about on every request (v1 Endpoints since 1.33).
type Deprecated interface {
	DeprecationWarning() string
}

// StorageKindProvider is implemented by storage that serves a version
// other than the one its objects are stored in (custom resources): the
// storage version hash in discovery is that of the stored kind. Storage
// of objects that are not stored at all (componentstatuses) returns an
// empty kind, and discovery gives no hash.
type StorageKindProvider interface {
	StorageKind() schema.GroupVersionKind
}

// Connecter is a subresource that connects the client to something behind
// the API server rather than storing anything: pods/exec, pods/attach,
// pods/portforward and the proxy subresources of pods, services and nodes.
// The installer serves it for the methods it names (GET is the verb get,
// POST create, PUT update, PATCH patch, DELETE delete), with options
// decoded from the query (and the rest of the path, for proxies).
type Connecter interface {
	Storage
	// Connect returns the handler that serves the connection to the
	// object named name, or the error the client is answered with.
	// responder writes the errors that happen once the handler runs.
	Connect(ctx context.Context, name string, opts runtime.Object, responder Responder) (http.Handler, error)
	// NewConnectOptions returns an empty options object, and whether the
	// path after the subresource is one of its fields (subpathKey).
	NewConnectOptions() (opts runtime.Object, subpath bool, subpathKey string)
	// ConnectMethods are the HTTP methods the subresource takes.
	ConnectMethods() []string
}

// Responder writes an error as the Status the client negotiated; it is
// how a Connecter's handler reports a failure that happens after Connect
// returned (the backend cannot be dialled, say).
type Responder interface {
	Error(w http.ResponseWriter, r *http.Request, err error)
}

// GetterWithOptions reads one object with options of the storage's own
// type, decoded from the query: pods/log and its PodLogOptions.
type GetterWithOptions interface {
	Get(ctx context.Context, name string, opts runtime.Object) (runtime.Object, error)
	// NewGetOptions returns an empty options object, and whether the path
	// after the subresource is one of its fields (subpathKey).
	NewGetOptions() (opts runtime.Object, subpath bool, subpathKey string)
}

// MIMETypesProducer is a storage whose get answers with bytes of these
// media types rather than with an encoded object (pods/log: text/plain);
// the OpenAPI documents describe its answer so.
type MIMETypesProducer interface {
	ProducesMIMETypes() []string
}

// ResourceStreamer is an object a Getter returns that is served as a
// stream of bytes rather than encoded: the log of a container.
type ResourceStreamer interface {
	runtime.Object
	// InputStream opens the stream; a nil stream is answered with 204 No
	// Content. flush asks for every write to be sent at once (a log that
	// follows), contentType is the response's Content-Type.
	InputStream(ctx context.Context, apiVersion, acceptHeader string) (stream io.ReadCloser, flush bool, contentType string, err error)
}

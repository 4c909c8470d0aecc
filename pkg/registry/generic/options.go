package generic

import (
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/registry/rest"
	"github.com/kapi-dev/kapi/pkg/storage"
	"github.com/kapi-dev/kapi/pkg/storage/objectcount"
)

// StorageFactory makes the storage of one resource: its keys live below
// the configured prefix, its values are encoded in the hub version, as
// mediaType says (see Store.StorageMediaType).
type StorageFactory interface {
	NewStorage(resource schema.GroupResource, hub schema.GroupVersion, mediaType string, newFunc, newListFunc func() runtime.Object) (storage.Interface, error)
}

// StorageDecorator wraps the storage of one resource, for instance in a
// watch cache. It returns the storage to use and a function that releases
// what the decoration holds.
type StorageDecorator func(s storage.Interface, res ResourceStorageConfig) (storage.Interface, func(), error)

// ResourceStorageConfig is what a StorageDecorator knows of the resource
// whose storage it wraps.
type ResourceStorageConfig struct {
	Resource schema.GroupResource
	// KeyPrefix is the key below which the resource's objects live.
	KeyPrefix   string
	NewFunc     func() runtime.Object
	NewListFunc func() runtime.Object
	// GetAttrs returns an object's labels and selectable fields.
	GetAttrs storage.AttrFunc
	// IndexedFields are selectable fields worth an index.
	IndexedFields []string
}

// RESTOptions is what the storage of every resource needs.
type RESTOptions struct {
	StorageFactory StorageFactory
	// Decorator, if set, wraps the storage of every Store.
	Decorator StorageDecorator
	// TableConvertor renders the built-in kinds as tables.
	TableConvertor rest.TableConvertor
	// ObjectCounts, if set, counts the objects of every Store's resource
	// (for API priority and fairness and apiserver_resource_objects).
	ObjectCounts *objectcount.Tracker
}

// Complete gives store its storage, from the store's resource and the
// version its NewFunc returns, decorated if the options say so.
func (o RESTOptions) Complete(store *Store, hub schema.GroupVersion) error {
	if store.TableConvertor == nil {
		store.TableConvertor = o.TableConvertor
	}
	if store.SelectableFields == nil && store.FieldsFunc != nil {
		store.SelectableFields = slices.Sorted(maps.Keys(store.FieldsFunc(store.NewFunc())))
	}
	s, err := o.StorageFactory.NewStorage(store.DefaultQualifiedResource, hub, store.StorageMediaType, store.NewFunc, store.NewListFunc)
	if err != nil {
		return err
	}
	// Counted in etcd, below the decoration: a watch cache is made on
	// first use, and some resources have none.
	stopCounting := func() {}
	if o.ObjectCounts != nil {
		counted := store.CountedResource
		if counted.Empty() {
			counted = store.DefaultQualifiedResource
		}
		stopCounting = o.ObjectCounts.Track(counted, s, store.KeyPrefix)
	}
	if o.Decorator != nil {
		var destroy func()
		s, destroy, err = o.Decorator(s, ResourceStorageConfig{
			Resource:      store.DefaultQualifiedResource,
			KeyPrefix:     store.KeyPrefix,
			NewFunc:       store.NewFunc,
			NewListFunc:   store.NewListFunc,
			GetAttrs:      attrFunc(store.NamespaceScoped(), store.FieldsFunc),
			IndexedFields: store.IndexedFields,
		})
		if err != nil {
			stopCounting()
			return err
		}
		store.DestroyFunc = func() { stopCounting(); destroy() }
	} else if o.ObjectCounts != nil {
		if prev := store.DestroyFunc; prev != nil {
			store.DestroyFunc = func() { stopCounting(); prev() }
		} else {
			store.DestroyFunc = stopCounting
		}
	}
	store.Storage = s
	return nil
}

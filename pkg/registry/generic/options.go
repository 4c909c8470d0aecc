package generic

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/registry/rest"
	"github.com/kapi-dev/kapi/pkg/storage"
)

// StorageFactory makes the storage of one resource: its keys live below
// the configured prefix, its values are encoded in the hub version.
type StorageFactory interface {
	NewStorage(resource schema.GroupResource, hub schema.GroupVersion, newFunc, newListFunc func() runtime.Object) (storage.Interface, error)
}

// RESTOptions is what every resource's NewREST needs.
type RESTOptions struct {
	StorageFactory StorageFactory
	// TableConvertor renders the built-in kinds as tables.
	TableConvertor rest.TableConvertor
}

// Complete gives store its storage, from the store's resource and the
// version its NewFunc returns.
func (o RESTOptions) Complete(store *Store, hub schema.GroupVersion) error {
	if store.TableConvertor == nil {
		store.TableConvertor = o.TableConvertor
	}
	s, err := o.StorageFactory.NewStorage(store.DefaultQualifiedResource, hub, store.NewFunc, store.NewListFunc)
	if err != nil {
		return err
	}
	store.Storage = s
	return nil
}

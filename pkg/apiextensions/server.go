// Package apiextensions is the apiextensions server: the last link of the
// delegation chain, serving CustomResourceDefinitions and, for each
// established CRD, its custom resources. The CRD informer keeps the
// handlers of the custom resources, discovery and OpenAPI current, and
// feeds the controllers that keep the CRDs' status.
package apiextensions

import (
	"context"
	"fmt"
	"log/slog"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/tools/cache"

	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/apiextensions/controller"
	"github.com/kapi-dev/kapi/pkg/apiextensions/conversion"
	crdserializer "github.com/kapi-dev/kapi/pkg/apiextensions/serializer"
	"github.com/kapi-dev/kapi/pkg/apis/apiextensions"
	"github.com/kapi-dev/kapi/pkg/endpoints"
	"github.com/kapi-dev/kapi/pkg/endpoints/discovery"
	"github.com/kapi-dev/kapi/pkg/registry/apiextensions/customresourcedefinition"
	"github.com/kapi-dev/kapi/pkg/registry/customresource"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
	"github.com/kapi-dev/kapi/pkg/server"
	"github.com/kapi-dev/kapi/pkg/storage"
)

// CodecStorageFactory makes storage that encodes with a given codec.
type CodecStorageFactory interface {
	NewStorageWithCodec(resource schema.GroupResource, codec runtime.Codec, newFunc, newListFunc func() runtime.Object) storage.Interface
}

// Config is what the apiextensions server needs.
type Config struct {
	// RESTOptions make the CRD storage; custom resources use its
	// decorator (the watch cache) with Storage.
	RESTOptions generic.RESTOptions
	Storage     CodecStorageFactory

	// Serving is how the CRDs and the custom resources are served; its
	// EquivalentResources learns the custom resources' kinds too.
	endpoints.Serving
	OpenAPI *server.OpenAPIResources
	// Logger receives the controllers' log; nil discards it.
	Logger *slog.Logger

	// BuiltinResource reports whether a built-in API serves a resource of
	// that group and name, for the naming controller. May be nil.
	BuiltinResource func(group, resource string) bool

	// Schemas compiles a CRD's schemas: pruning and defaulting, and
	// validation, by version. Nil means compileSchemas.
	Schemas func(*apiextensionsv1.CustomResourceDefinition) (map[string]crdserializer.Schema, map[string]customresource.Validator, error)
	// Converters returns a CRD's converter. Nil means converterFor.
	Converters func(*apiextensionsv1.CustomResourceDefinition) (conversion.Converter, error)
}

// groupPriority is apiextensions.k8s.io's place in discovery,
// kube-apiserver's (the groupPriorityMinimum of its APIService; it shares
// it with admissionregistration.k8s.io, and the names break the tie).
const groupPriority = 16700

// New returns the apiextensions server, which delegates what it does not
// serve to delegate.
func New(cfg Config, delegate server.DelegationTarget, disc *discovery.Registry) (*server.GenericAPIServer, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Schemas == nil {
		cfg.Schemas = compileSchemas
	}
	if cfg.Converters == nil {
		cfg.Converters = converterFor
	}
	s := server.New("apiextensions", delegate, disc)
	s.UseOpenAPI(cfg.OpenAPI)

	crds, err := customresourcedefinition.NewStorage(cfg.RESTOptions, apiextensions.ValidationOptions{ValidateSchema: validateCRDSchema})
	if err != nil {
		return nil, err
	}
	agv := &endpoints.APIGroupVersion{
		GroupVersion:     apiextensionsv1.SchemeGroupVersion,
		Storage:          crds.Map(),
		Scheme:           scheme.Scheme,
		Serializer:       scheme.Codecs,
		StrictSerializer: serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict),
		ParameterCodec:   scheme.ParameterCodec,
		Serving:          cfg.Serving,
		Logger:           cfg.Logger,
	}
	if err := s.InstallAPIGroupVersion(agv, groupPriority, 0); err != nil {
		return nil, err
	}

	handler := newCRDHandler(cfg, disc, s.SetGroupVersionHandler)
	informer := cache.NewSharedIndexInformer(crds.CRD.ListWatch(), &apiextensionsv1.CustomResourceDefinition{}, 0, cache.Indexers{byGroup: indexByGroup})
	lister := storeLister{informer.GetIndexer()}
	writeStatus := func(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) (*apiextensionsv1.CustomResourceDefinition, error) {
		out, _, err := crds.Status.Update(ctx, crd.Name, rest.DefaultUpdatedObjectInfo(crd), nil, nil, false, &metav1.UpdateOptions{})
		if err != nil {
			return nil, err
		}
		if updated, ok := out.(*apiextensionsv1.CustomResourceDefinition); ok {
			return updated, nil
		}
		// Removing the last finalizer of a deleted CRD removed it.
		return crd, nil
	}

	establishing := controller.NewEstablishing(lister, writeStatus, handler.Update, cfg.Logger)
	naming := controller.NewNaming(lister, writeStatus, cfg.BuiltinResource, establishing.Add, cfg.Logger)
	approval := controller.NewAPIApproval(lister, writeStatus, cfg.Logger)
	nonStructural := controller.NewNonStructural(lister, writeStatus, cfg.Logger)
	cleanup := controller.NewCleanup(lister, writeStatus, func(crd *apiextensionsv1.CustomResourceDefinition) controller.Instances {
		if st := handler.Storage(crd); st != nil {
			return st.CustomResource
		}
		return nil
	}, cfg.Logger)

	changed := func(crd *apiextensionsv1.CustomResourceDefinition) {
		// The controllers first: building the storage of a large CRD takes
		// a while, and the status of the others should not wait for it.
		naming.Changed(crd)
		establishing.Add(crd.Name)
		approval.Add(crd.Name)
		nonStructural.Add(crd.Name)
		cleanup.Add(crd.Name)
		handler.Update(crd)
	}
	registration, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj interface{}) { changed(obj.(*apiextensionsv1.CustomResourceDefinition)) },
		UpdateFunc: func(_, obj interface{}) { changed(obj.(*apiextensionsv1.CustomResourceDefinition)) },
		DeleteFunc: func(obj interface{}) {
			if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tombstone.Obj
			}
			crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition)
			if !ok {
				return
			}
			handler.Remove(crd.Name)
			naming.Changed(crd)
		},
	})
	if err != nil {
		return nil, err
	}

	s.AddPostStartHook("start-apiextensions-informers", func(ctx server.PostStartHookContext) error {
		go informer.RunWithContext(ctx)
		return nil
	})
	s.AddPostStartHook("start-apiextensions-controllers", func(ctx server.PostStartHookContext) error {
		for _, q := range []interface{ Run(context.Context) }{naming, establishing, approval, nonStructural, cleanup} {
			go q.Run(ctx)
		}
		return nil
	})
	// Ready only once every stored CRD is served: clients that saw a CRD
	// established must find its resources after a restart too.
	s.AddPostStartHook("crd-informer-synced", func(ctx server.PostStartHookContext) error {
		// The registration has synced once the handler has seen every CRD
		// of the initial list, not merely once they are in the store.
		if !cache.WaitForCacheSync(ctx.Done(), registration.HasSynced) {
			return fmt.Errorf("the CRD informer did not sync")
		}
		return nil
	})
	s.AddPreShutdownHook("stop-custom-resource-storage", func() error {
		handler.RemoveAll()
		return nil
	})
	return s, nil
}

// byGroup is the name of the informer's index of CRDs by API group.
const byGroup = "group"

func indexByGroup(obj interface{}) ([]string, error) {
	crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition)
	if !ok {
		return nil, fmt.Errorf("%T is not a CustomResourceDefinition", obj)
	}
	return []string{crd.Spec.Group}, nil
}

// storeLister reads CRDs from the informer's store.
type storeLister struct{ store cache.Indexer }

func (l storeLister) Get(name string) (*apiextensionsv1.CustomResourceDefinition, bool) {
	obj, ok, err := l.store.GetByKey(name)
	if err != nil || !ok {
		return nil, false
	}
	return obj.(*apiextensionsv1.CustomResourceDefinition), true
}

func (l storeLister) ListGroup(group string) []*apiextensionsv1.CustomResourceDefinition {
	objs, err := l.store.ByIndex(byGroup, group)
	if err != nil {
		return nil // the index exists: ByIndex fails only without it
	}
	out := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.(*apiextensionsv1.CustomResourceDefinition))
	}
	return out
}

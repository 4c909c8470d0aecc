package aggregator

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/listers"
	"k8s.io/client-go/tools/cache"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/endpoints"
	"github.com/kapi-dev/kapi/pkg/endpoints/discovery"
	"github.com/kapi-dev/kapi/pkg/registry/apiregistration/apiservice"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/server"
)

// GroupPriority is apiregistration.k8s.io's place in discovery: first of
// the named groups, where kube-apiserver's aggregator puts its own group
// (above apps, 17800).
const GroupPriority = 18000

// InformersHook is the post-start hook that starts the APIService
// informer, kube-apiserver's name for it.
const InformersHook = "start-kube-aggregator-informers"

// RemoteHandlers serve the group versions of remote APIServices (those
// with a spec.service): the proxy implements it.
type RemoteHandlers interface {
	// Handler returns the handler of the group version of a remote
	// APIService; it is called again, and the new handler replaces the
	// old one, whenever the APIService changes.
	Handler(apiService *apiregistrationv1.APIService) http.Handler
	// Remove is called when the APIService named name is deleted or
	// becomes local: its handler serves no more.
	Remove(name string)
}

// Config is what the aggregator server needs.
type Config struct {
	// RESTOptions make the storage of apiservices.
	RESTOptions generic.RESTOptions
	// Admission is the admission chain of every write, the same one the
	// other servers of the delegation chain use.
	Admission admission.Interface
	// EquivalentResources learns the kind of each installed resource.
	EquivalentResources *admission.EquivalentResourceRegistry
	MinRequestTimeout   time.Duration
	MaxRequestBodyBytes int64
	// OpenAPI receives the description of apiservices.
	OpenAPI *server.OpenAPIResources
	// Logger receives the server's log; nil discards it.
	Logger *slog.Logger
	// Remote serves remote APIServices' group versions; nil leaves them
	// to the rest of the chain.
	Remote RemoteHandlers
}

// Server is the aggregator server.
type Server struct {
	*server.GenericAPIServer

	// Storage is the storage of apiservices and their /status.
	Storage *apiservice.Storage
	// APIServices is the informer of every APIService, read from Storage.
	APIServices cache.SharedIndexInformer
	// APIServiceLister lists and gets APIServices from the informer.
	APIServiceLister listers.ResourceIndexer[*apiregistrationv1.APIService]

	remote RemoteHandlers
	mu     sync.Mutex
	// remoteGVs are the group versions served by Remote, by APIService
	// name.
	remoteGVs map[string]schema.GroupVersion
}

// New returns the aggregator server, which serves apiregistration.k8s.io
// and delegates the rest to delegate.
func New(cfg Config, delegate server.DelegationTarget, disc *discovery.Registry) (*Server, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	gs := server.New("aggregator", delegate, disc)
	gs.UseOpenAPI(cfg.OpenAPI)

	st, err := apiservice.NewStorage(cfg.RESTOptions)
	if err != nil {
		return nil, err
	}
	agv := &endpoints.APIGroupVersion{
		GroupVersion:        apiregistrationv1.SchemeGroupVersion,
		Storage:             st.Map(),
		Scheme:              scheme.Scheme,
		Serializer:          scheme.Codecs,
		StrictSerializer:    serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict),
		ParameterCodec:      scheme.ParameterCodec,
		Admission:           cfg.Admission,
		EquivalentResources: cfg.EquivalentResources,
		Logger:              cfg.Logger,
		MinRequestTimeout:   cfg.MinRequestTimeout,
		MaxRequestBodyBytes: cfg.MaxRequestBodyBytes,
	}
	if err := gs.InstallAPIGroupVersion(agv, GroupPriority, 0); err != nil {
		return nil, err
	}

	informer := cache.NewSharedIndexInformer(&cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return st.APIService.List(ctx, &opts)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			w, err := st.APIService.Watch(ctx, &opts)
			if err != nil {
				return nil, err
			}
			// The watch cache shares one encoding-caching wrapper between
			// watchers; the informer wants the object itself.
			return watch.Filter(w, func(e watch.Event) (watch.Event, bool) {
				if co, ok := e.Object.(runtime.CacheableObject); ok {
					e.Object = co.GetObject()
				}
				return e, true
			}), nil
		},
	}, &apiregistrationv1.APIService{}, 0, cache.Indexers{})

	s := &Server{
		GenericAPIServer: gs,
		Storage:          st,
		APIServices:      informer,
		APIServiceLister: listers.New[*apiregistrationv1.APIService](informer.GetIndexer(), apiregistrationv1.Resource("apiservice")),
		remote:           cfg.Remote,
		remoteGVs:        map[string]schema.GroupVersion{},
	}
	if s.remote != nil {
		if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { s.apiServiceChanged(obj.(*apiregistrationv1.APIService)) },
			UpdateFunc: func(_, obj any) { s.apiServiceChanged(obj.(*apiregistrationv1.APIService)) },
			DeleteFunc: func(obj any) {
				if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
					obj = tomb.Obj
				}
				if as, ok := obj.(*apiregistrationv1.APIService); ok {
					s.apiServiceRemoved(as.Name)
				}
			},
		}); err != nil {
			return nil, fmt.Errorf("apiservice informer: %w", err)
		}
	}
	gs.AddPostStartHook(InformersHook, func(ctx server.PostStartHookContext) error {
		go informer.RunWithContext(ctx)
		if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) && ctx.Err() == nil {
			return fmt.Errorf("the APIService informer did not sync")
		}
		return nil
	})
	return s, nil
}

// apiServiceChanged serves a remote APIService's group version through
// Remote, and gives a local one back to the chain.
func (s *Server) apiServiceChanged(as *apiregistrationv1.APIService) {
	gv := schema.GroupVersion{Group: as.Spec.Group, Version: as.Spec.Version}
	if as.Spec.Service == nil || gv == apiregistrationv1.SchemeGroupVersion {
		s.apiServiceRemoved(as.Name)
		return
	}
	h := s.remote.Handler(as)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.remoteGVs[as.Name] = gv
	s.SetGroupVersionHandler(gv, h)
	// The group version's discovery document, and any path below it that
	// is not a resource's, are the remote server's too, as in
	// kube-apiserver.
	s.Handle(gvPath(gv), h)
	s.Handle(gvPath(gv)+"/", h)
}

// gvPath is the root of a group version's paths.
func gvPath(gv schema.GroupVersion) string {
	if gv.Group == "" {
		return "/api/" + gv.Version
	}
	return "/apis/" + gv.Group + "/" + gv.Version
}

// apiServiceRemoved gives the group version of the APIService named name
// back to the chain if Remote served it.
func (s *Server) apiServiceRemoved(name string) {
	s.mu.Lock()
	gv, ok := s.remoteGVs[name]
	delete(s.remoteGVs, name)
	if ok {
		s.SetGroupVersionHandler(gv, nil)
		s.Handle(gvPath(gv), nil)
		s.Handle(gvPath(gv)+"/", nil)
	}
	s.mu.Unlock()
	if ok {
		s.remote.Remove(name)
	}
}

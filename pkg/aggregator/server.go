package aggregator

import (
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/listers"
	"k8s.io/client-go/tools/cache"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/kapi-dev/kapi/pkg/aggregator/autoregister"
	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/client"
	"github.com/kapi-dev/kapi/pkg/endpoints"
	"github.com/kapi-dev/kapi/pkg/endpoints/discovery"
	"github.com/kapi-dev/kapi/pkg/registry/apiregistration/apiservice"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/server"
	"github.com/kapi-dev/kapi/pkg/server/healthz"
)

// GroupPriority is apiregistration.k8s.io's place in discovery: first of
// the named groups, where kube-apiserver's aggregator puts its own group
// (above apps, 17800).
const GroupPriority = 18000

// The post-start hooks of the aggregator, with kube-apiserver's names:
// InformersHook starts the APIService informer, RegistrationHook waits
// until the group versions of the APIServices stored at start are served
// (remote ones through Config.Remote), AutoregistrationHook starts the
// controller of the local APIServices.
const (
	InformersHook        = "start-kube-aggregator-informers"
	RegistrationHook     = "apiservice-registration-controller"
	AutoregistrationHook = "kube-apiserver-autoregistration"
)

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
	// Serving is how apiservices are served, as every other server of
	// the chain serves its own.
	endpoints.Serving
	// OpenAPI receives the description of apiservices.
	OpenAPI *server.OpenAPIResources
	// Logger receives the server's log; nil discards it.
	Logger *slog.Logger
	// Remote serves remote APIServices' group versions; nil leaves them
	// to the rest of the chain.
	Remote RemoteHandlers
	// CRDs is an informer of the CustomResourceDefinitions, whose group
	// versions get APIServices (see package autoregister); nil registers
	// none.
	CRDs cache.SharedIndexInformer
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
		GroupVersion:     apiregistrationv1.SchemeGroupVersion,
		Storage:          st.Map(),
		Scheme:           scheme.Scheme,
		Serializer:       scheme.Codecs,
		StrictSerializer: serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict),
		ParameterCodec:   scheme.ParameterCodec,
		Serving:          cfg.Serving,
		Logger:           cfg.Logger,
	}
	if err := gs.InstallAPIGroupVersion(agv, GroupPriority, 0); err != nil {
		return nil, err
	}

	informer := cache.NewSharedIndexInformer(st.APIService.ListWatch(), &apiregistrationv1.APIService{}, 0, cache.Indexers{})

	s := &Server{
		GenericAPIServer: gs,
		Storage:          st,
		APIServices:      informer,
		APIServiceLister: listers.New[*apiregistrationv1.APIService](informer.GetIndexer(), apiregistrationv1.Resource("apiservice")),
		remote:           cfg.Remote,
		remoteGVs:        map[string]schema.GroupVersion{},
	}
	// The group versions of remote APIServices are served through Remote;
	// a ready server serves those stored when it started.
	registration, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
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
	})
	if err != nil {
		return nil, fmt.Errorf("apiservice informer: %w", err)
	}
	gs.AddPostStartHook(InformersHook, func(ctx server.PostStartHookContext) error {
		go informer.RunWithContext(ctx)
		if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) && ctx.Err() == nil {
			return fmt.Errorf("the APIService informer did not sync")
		}
		return nil
	})
	gs.AddPostStartHook(RegistrationHook, func(ctx server.PostStartHookContext) error {
		if !cache.WaitForCacheSync(ctx.Done(), registration.HasSynced) && ctx.Err() == nil {
			return fmt.Errorf("the APIServices stored at start were not registered")
		}
		return nil
	})
	// The group versions served so far are the built-in ones: CRDs are
	// served only once the server runs.
	if err := s.addAutoregistration(autoregister.BuiltIn(disc.GroupVersions()), cfg.CRDs, cfg.Logger.With("controller", "autoregister")); err != nil {
		return nil, err
	}
	return s, nil
}

// addAutoregistration keeps the APIServices of the built-in group
// versions and of those of the CRDs, with kube-apiserver's hook and
// health check: autoregister-completion fails until every built-in
// APIService has been seen Available.
func (s *Server) addAutoregistration(builtIn []*apiregistrationv1.APIService, crds cache.SharedIndexInformer, log *slog.Logger) error {
	ctrl := autoregister.New(s.APIServiceLister, log)
	builtInGVs := map[schema.GroupVersion]bool{}
	for _, as := range builtIn {
		ctrl.SyncOnStart(as)
		builtInGVs[schema.GroupVersion{Group: as.Spec.Group, Version: as.Spec.Version}] = true
	}
	enqueue := func(obj any) {
		if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = tomb.Obj
		}
		if as, ok := obj.(*apiregistrationv1.APIService); ok {
			ctrl.Enqueue(as.Name)
		}
	}
	if _, err := s.APIServices.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
		DeleteFunc: enqueue,
	}); err != nil {
		return fmt.Errorf("apiservice informer: %w", err)
	}
	synced := []cache.InformerSynced{s.APIServices.HasSynced}
	if crds != nil {
		reg, err := ctrl.WatchCRDs(crds, func(gv schema.GroupVersion) bool {
			return builtInGVs[gv] || gv.Group == apiregistrationv1.GroupName
		})
		if err != nil {
			return fmt.Errorf("crd informer: %w", err)
		}
		synced = append(synced, reg.HasSynced)
	}

	s.AddPostStartHook(AutoregistrationHook, func(ctx server.PostStartHookContext) error {
		clients, err := client.NewSet(ctx.Loopback.RESTConfig(), scheme.Scheme)
		if err != nil {
			return err
		}
		apiServices := client.For[*apiregistrationv1.APIService, *apiregistrationv1.APIServiceList](clients, "apiservices", "")
		go func() {
			// The CRDs are seen first, so that the first sync does not
			// delete the APIServices of CRDs that still exist.
			if !cache.WaitForCacheSync(ctx.Done(), synced...) {
				return
			}
			ctrl.Run(ctx, apiServices)
		}()
		return nil
	})

	pending := map[string]bool{}
	for _, name := range ctrl.Wanted(autoregister.OnStart) {
		pending[name] = true
	}
	var mu sync.Mutex
	s.AddHealthChecks(healthz.NamedCheck("autoregister-completion", func(*http.Request) error {
		mu.Lock()
		defer mu.Unlock()
		for name := range pending {
			if as, err := s.APIServiceLister.Get(name); err == nil && available(as) {
				delete(pending, name)
			}
		}
		if len(pending) > 0 {
			return fmt.Errorf("missing APIService: %v", slices.Sorted(maps.Keys(pending)))
		}
		return nil
	}))
	return nil
}

// available says whether the Available condition of s is True.
func available(s *apiregistrationv1.APIService) bool {
	for _, c := range s.Status.Conditions {
		if c.Type == apiregistrationv1.Available {
			return c.Status == apiregistrationv1.ConditionTrue
		}
	}
	return false
}

// apiServiceChanged serves a remote APIService's group version through
// Remote, and gives a local one back to the chain.
func (s *Server) apiServiceChanged(as *apiregistrationv1.APIService) {
	gv := schema.GroupVersion{Group: as.Spec.Group, Version: as.Spec.Version}
	if s.remote == nil {
		return
	}
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

package availability

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/transport"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/kapi-dev/kapi/pkg/aggregator/proxy"
	"github.com/kapi-dev/kapi/pkg/serviceresolver"
)

// RemoteHook is the post-start hook that runs the remote controller,
// kube-apiserver's name for it.
const RemoteHook = "apiservice-status-remote-available-controller"

// The discovery check, as kube-apiserver's: attempts at once, each a
// request given requestTimeout, and attemptTimeout in all.
const (
	attempts       = 5
	requestTimeout = 5 * time.Second
	attemptTimeout = 6 * time.Second
)

// RemoteConfig is what the remote controller reads and writes.
type RemoteConfig struct {
	// APIServices is the informer of the APIServices, Lister its cache.
	APIServices cache.SharedIndexInformer
	Lister      Lister
	// Services and EndpointSlices are the informers of the Services and
	// EndpointSlices (of every namespace).
	Services       cache.SharedIndexInformer
	EndpointSlices cache.SharedIndexInformer
	// Writer writes apiservices/status.
	Writer StatusWriter
	// Resolver finds the address the discovery check is sent to, as the
	// proxy finds it; nil skips the check.
	Resolver serviceresolver.Resolver
	// Transports are the proxy's.
	Transports *proxy.Transports
	Metrics    *Metrics
	Logger     *slog.Logger
}

// Remote checks the APIServices that name a Service.
type Remote struct {
	c          *controller
	services   serviceresolver.ServiceGetter
	slices     serviceresolver.EndpointSliceGetter
	resolver   serviceresolver.Resolver
	transports *proxy.Transports

	mu sync.RWMutex
	// byService are the names of the APIServices of each Service, by
	// namespace and name.
	byService map[string]map[string][]string
}

// NewRemote returns the remote controller.
func NewRemote(cfg RemoteConfig) (*Remote, error) {
	r := &Remote{resolver: cfg.Resolver, transports: cfg.Transports, byService: map[string]map[string][]string{}}
	r.c = newController("RemoteAvailabilityController", cfg.Lister, cfg.Writer, cfg.Metrics, cfg.Logger, r.sync)
	services, slices := cfg.Services.GetIndexer(), cfg.EndpointSlices.GetIndexer()
	r.services = func(namespace, name string) (*corev1.Service, error) {
		obj, ok, err := services.GetByKey(namespace + "/" + name)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, apierrors.NewNotFound(corev1.Resource("service"), name)
		}
		return obj.(*corev1.Service), nil
	}
	r.slices = func(namespace, service string) ([]*discoveryv1.EndpointSlice, error) {
		objs, err := slices.ByIndex(cache.NamespaceIndex, namespace)
		if err != nil {
			// The informer has no namespace index: look at them all.
			objs = slices.List()
		}
		var out []*discoveryv1.EndpointSlice
		for _, o := range objs {
			s := o.(*discoveryv1.EndpointSlice)
			if s.Namespace == namespace && s.Labels[discoveryv1.LabelServiceName] == service {
				out = append(out, s)
			}
		}
		return out, nil
	}

	if err := r.c.watchAPIServices(cfg.APIServices, func(old, new *apiregistrationv1.APIService) {
		if (old != nil && old.Spec.Service != nil) || (new != nil && new.Spec.Service != nil) {
			if old == nil || new == nil || !reflect.DeepEqual(old.Spec.Service, new.Spec.Service) {
				r.rebuildByService()
			}
		}
	}); err != nil {
		return nil, err
	}
	for _, inf := range []cache.SharedIndexInformer{cfg.Services, cfg.EndpointSlices} {
		reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    r.queueFor,
			UpdateFunc: func(_, obj any) { r.queueFor(obj) },
			DeleteFunc: r.queueFor,
		})
		if err != nil {
			return nil, err
		}
		r.c.synced = append(r.c.synced, reg.HasSynced)
	}
	return r, nil
}

// Run checks the APIServices with workers until ctx ends (kube-apiserver
// runs 5).
func (r *Remote) Run(ctx context.Context, workers int) { r.c.run(ctx, workers) }

// rebuildByService indexes the APIServices by their Service.
func (r *Remote) rebuildByService() {
	all, _ := r.c.lister.List(labels.Everything())
	m := map[string]map[string][]string{}
	for _, a := range all {
		s := a.Spec.Service
		if s == nil {
			continue
		}
		if m[s.Namespace] == nil {
			m[s.Namespace] = map[string][]string{}
		}
		m[s.Namespace][s.Name] = append(m[s.Namespace][s.Name], a.Name)
	}
	r.mu.Lock()
	r.byService = m
	r.mu.Unlock()
}

// queueFor queues the APIServices of a Service, or of the Service of an
// EndpointSlice, that changed.
func (r *Remote) queueFor(obj any) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	var namespace, name string
	switch o := obj.(type) {
	case *corev1.Service:
		namespace, name = o.Namespace, o.Name
	case *discoveryv1.EndpointSlice:
		namespace, name = o.Namespace, o.Labels[discoveryv1.LabelServiceName]
	}
	if name == "" {
		return
	}
	r.mu.RLock()
	names := r.byService[namespace][name]
	r.mu.RUnlock()
	for _, n := range names {
		r.c.queue.Add(n)
	}
}

func (r *Remote) sync(ctx context.Context, name string) error {
	original, err := r.c.lister.Get(name)
	if apierrors.IsNotFound(err) {
		r.c.metrics.forget(name)
		return nil
	}
	if err != nil {
		return err
	}
	if original.Spec.Service == nil {
		return nil
	}
	updated := original.DeepCopy()
	cond, checkErr := r.check(ctx, updated)
	if errors.As(checkErr, new(transportError)) {
		return checkErr
	}
	cond.Type, cond.LastTransitionTime = apiregistrationv1.Available, metav1.Now()
	setCondition(updated, cond)
	if err := r.c.writeStatus(ctx, original, updated); err != nil {
		return err
	}
	// A failed discovery check is retried with the backoff, besides
	// the resync and the changes of the Service and its endpoints.
	return checkErr
}

// check runs kube-apiserver's checks in its order and returns the
// condition (without type and time); the error is the failed discovery
// check's.
func (r *Remote) check(ctx context.Context, apiService *apiregistrationv1.APIService) (apiregistrationv1.APIServiceCondition, error) {
	ref := apiService.Spec.Service
	port := int32(443)
	if ref.Port != nil {
		port = *ref.Port
	}
	fail := func(status apiregistrationv1.ConditionStatus, reason, format string, args ...any) apiregistrationv1.APIServiceCondition {
		return apiregistrationv1.APIServiceCondition{Status: status, Reason: reason, Message: fmt.Sprintf(format, args...)}
	}
	svc, err := r.services(ref.Namespace, ref.Name)
	if apierrors.IsNotFound(err) {
		return fail(apiregistrationv1.ConditionFalse, "ServiceNotFound", "service/%s in %q is not present", ref.Name, ref.Namespace), nil
	}
	if err != nil {
		return fail(apiregistrationv1.ConditionUnknown, "ServiceAccessError", "service/%s in %q cannot be checked due to: %v", ref.Name, ref.Namespace, err), nil
	}
	if svc.Spec.Type == corev1.ServiceTypeClusterIP {
		p, err := serviceresolver.FindPort(svc, port)
		if err != nil {
			return fail(apiregistrationv1.ConditionFalse, "ServicePortError", "service/%s in %q is not listening on port %d", ref.Name, ref.Namespace, port), nil
		}
		slices, err := r.slices(ref.Namespace, ref.Name)
		switch {
		case err != nil:
			return fail(apiregistrationv1.ConditionUnknown, "EndpointsAccessError", "service/%s in %q cannot be checked due to: %v", ref.Name, ref.Namespace, err), nil
		case len(slices) == 0:
			return fail(apiregistrationv1.ConditionFalse, "EndpointsNotFound", "cannot find endpointslices for service/%s in %q", ref.Name, ref.Namespace), nil
		case !serviceresolver.HasReadyEndpoint(p.Name, slices):
			return fail(apiregistrationv1.ConditionFalse, "MissingEndpoints", "endpointslices for service/%s in %q have no addresses with port name %q", ref.Name, ref.Namespace, p.Name), nil
		}
	}
	if r.resolver != nil {
		if err := r.discoveryCheck(ctx, apiService, port); err != nil {
			if errors.As(err, new(transportError)) {
				// kube-apiserver leaves the status as it is when it
				// cannot build the transport, and retries.
				return apiregistrationv1.APIServiceCondition{}, err
			}
			return apiregistrationv1.APIServiceCondition{Status: apiregistrationv1.ConditionFalse, Reason: "FailedDiscoveryCheck", Message: err.Error()}, err
		}
	}
	return apiregistrationv1.APIServiceCondition{Status: apiregistrationv1.ConditionTrue, Reason: "Passed", Message: "all checks passed"}, nil
}

// transportError is a transport that cannot be built.
type transportError struct{ error }

// discoveryCheck sends the attempts at once and is satisfied by one
// success; otherwise the error is one of the failures.
func (r *Remote) discoveryCheck(ctx context.Context, apiService *apiregistrationv1.APIService, port int32) error {
	rt, err := r.transports.For(apiService)
	if err != nil {
		return transportError{err}
	}
	client := &http.Client{
		Transport: rt,
		Timeout:   requestTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
	ref := apiService.Spec.Service
	results := make(chan error, attempts)
	for range attempts {
		go func() {
			u, err := r.resolver.ResolveEndpoint(ref.Namespace, ref.Name, port)
			if err != nil {
				results <- err
				return
			}
			if apiService.Name == "v1." {
				u.Path = "/api/" + apiService.Spec.Version
			} else {
				u.Path = "/apis/" + apiService.Spec.Group + "/" + apiService.Spec.Version
			}
			done := make(chan error, 1)
			go func() { done <- probe(ctx, client, u.String()) }()
			select {
			case err := <-done:
				if err != nil {
					rt.CloseIdleConnections()
					results <- fmt.Errorf("failing or missing response from %v: %w", u, err)
					return
				}
				results <- nil
			case <-time.After(attemptTimeout):
				rt.CloseIdleConnections()
				results <- fmt.Errorf("timed out waiting for %v", u)
			}
		}()
	}
	var last error
	for range attempts {
		if last = <-results; last == nil {
			return nil
		}
	}
	return last
}

// probe GETs a discovery document as system:kube-aggregator, a member of
// system:masters; any answer but a 2xx is a failure.
func probe(ctx context.Context, client *http.Client, u string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	transport.SetAuthProxyHeaders(req, "system:kube-aggregator", "", []string{"system:masters"}, nil)
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode < http.StatusOK || resp.StatusCode >= http.StatusMultipleChoices {
		return fmt.Errorf("bad status from %v: %d", u, resp.StatusCode)
	}
	return nil
}

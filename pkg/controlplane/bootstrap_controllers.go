package controlplane

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/apis/scheduling"
	"github.com/kapi-dev/kapi/pkg/client"
	"github.com/kapi-dev/kapi/pkg/controlplane/identitylease"
	"github.com/kapi-dev/kapi/pkg/controlplane/reconcilers"
	"github.com/kapi-dev/kapi/pkg/registry/core/service"
	"github.com/kapi-dev/kapi/pkg/server"
)

// The controllers of the control plane's bootstrap, each registered as
// the post-start hook kube-apiserver has for it. They write through the
// loopback client as "kube-apiserver", so that the objects carry the
// managedFields kube-apiserver's own objects carry.

// DefaultEndpointReconcileInterval is how often the bootstrap controller
// refreshes this server's lease and the kubernetes endpoints, and puts
// back the kubernetes Service if it was deleted, as kube-apiserver does.
const DefaultEndpointReconcileInterval = 10 * time.Second

// kubeAPIServerClient is the loopback client the bootstrap controllers
// write with; its user agent makes "kube-apiserver" their field manager
// (see server.LoopbackConfig).
func kubeAPIServerClient(hctx server.PostStartHookContext) (*client.Set, error) {
	cfg := hctx.Loopback.RESTConfig()
	// The Endpoints it must write are deprecated: nobody to warn.
	cfg.WarningHandler = rest.NoWarnings{}
	return client.NewSet(cfg, scheme.Scheme)
}

// bootstrapController keeps the default/kubernetes Service and its
// endpoints: the Service is created if it is missing, and the Endpoints
// and EndpointSlice list every replica holding a lease (see package
// reconcilers), at start-up and every interval. When the server shuts
// down it gives up its lease and removes itself from the endpoints.
type bootstrapController struct {
	services   *service.REST
	leases     reconcilers.Leases
	address    net.IP
	securePort int
	interval   time.Duration
	log        *slog.Logger

	reconciler *reconcilers.EndpointReconciler
	cancel     context.CancelFunc
	done       chan struct{}
}

func (c *bootstrapController) ports() []corev1.EndpointPort {
	return []corev1.EndpointPort{{Name: "https", Port: int32(c.securePort), Protocol: corev1.ProtocolTCP}}
}

// reconcilesEndpoints is whether this server has endpoints to publish:
// endpoints may not be loopback or unspecified addresses, which a pod
// could not reach anyway, and without leases there is no one to list.
func (c *bootstrapController) reconcilesEndpoints() bool {
	return c.leases != nil && c.address != nil && !c.address.IsLoopback() && !c.address.IsUnspecified()
}

// start is the post-start hook: the first round is done before the server
// reports ready, the others in the background.
func (c *bootstrapController) start(hctx server.PostStartHookContext) error {
	if err := kubernetesServiceHook(c.services, c.securePort)(hctx); err != nil {
		return err
	}
	if !c.reconcilesEndpoints() {
		return nil
	}
	clients, err := kubeAPIServerClient(hctx)
	if err != nil {
		return err
	}
	c.reconciler = &reconcilers.EndpointReconciler{
		Endpoints:      client.For[*corev1.Endpoints, *corev1.EndpointsList](clients, "endpoints", metav1.NamespaceDefault),
		EndpointSlices: client.For[*discoveryv1.EndpointSlice, *discoveryv1.EndpointSliceList](clients, "endpointslices", metav1.NamespaceDefault),
		Leases:         c.leases,
		Service:        "kubernetes",
	}
	if err := c.reconciler.Reconcile(hctx, c.address, c.ports()); err != nil {
		c.log.Error("Unable to reconcile the kubernetes endpoints", "err", err)
	}
	ctx, cancel := context.WithCancel(hctx.Context)
	c.cancel, c.done = cancel, make(chan struct{})
	go func() {
		defer close(c.done)
		t := time.NewTicker(c.interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			// A deleted Service comes back, as in kube-apiserver.
			if err := kubernetesServiceHook(c.services, c.securePort)(server.PostStartHookContext{Context: ctx, Loopback: hctx.Loopback}); err != nil && ctx.Err() == nil {
				c.log.Error("Unable to create the kubernetes service", "err", err)
			}
			if err := c.reconciler.Reconcile(ctx, c.address, c.ports()); err != nil && ctx.Err() == nil {
				c.log.Error("Unable to reconcile the kubernetes endpoints", "err", err)
			}
		}
	}()
	return nil
}

// stop is the pre-shutdown hook: no more rounds, and this server leaves
// the endpoints while it still serves.
func (c *bootstrapController) stop() error {
	if c.reconciler == nil {
		return nil
	}
	if c.cancel != nil {
		c.cancel()
		<-c.done
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.reconciler.Remove(ctx, c.address, c.ports()); err != nil {
		return fmt.Errorf("removing this server from the kubernetes endpoints: %w", err)
	}
	return nil
}

// systemPriorityClassesHook creates the system PriorityClasses that do not
// exist, retrying for up to 30 seconds as kube-apiserver does. They cannot
// be deleted one by one, so they are not watched after.
func systemPriorityClassesHook(log *slog.Logger) server.PostStartHookFunc {
	return func(hctx server.PostStartHookContext) error {
		clients, err := kubeAPIServerClient(hctx)
		if err != nil {
			return err
		}
		pcs := client.For[*schedulingv1.PriorityClass, *schedulingv1.PriorityClassList](clients, "priorityclasses", "")
		ctx, cancel := context.WithTimeout(hctx.Context, 30*time.Second)
		defer cancel()
		for {
			err := createSystemPriorityClasses(ctx, pcs)
			if err == nil {
				return nil
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("unable to add the system priority classes: %w", errors.Join(err, ctx.Err()))
			case <-time.After(time.Second):
				log.Info("Retrying the creation of the system priority classes", "err", err)
			}
		}
	}
}

func createSystemPriorityClasses(ctx context.Context, pcs client.Interface[*schedulingv1.PriorityClass, *schedulingv1.PriorityClassList]) error {
	for _, pc := range scheduling.SystemPriorityClasses() {
		_, err := pcs.Get(ctx, pc.Name, metav1.GetOptions{})
		if err == nil {
			continue
		}
		if !apierrors.IsNotFound(err) {
			return err
		}
		if _, err := pcs.Create(ctx, pc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	return nil
}

// identityLeaseHooks are the identity lease controller and its garbage
// collector: post-start hooks that start them in the background.
func identityLeaseHooks(host string, address net.IP, securePort int, gcInterval time.Duration, log *slog.Logger) (controller, collector server.PostStartHookFunc) {
	controller = func(hctx server.PostStartHookContext) error {
		leases, err := systemLeases(hctx)
		if err != nil {
			return err
		}
		peer := ""
		if address != nil {
			peer = net.JoinHostPort(address.String(), strconv.Itoa(securePort))
		}
		go identitylease.NewController(leases, host, peer, log).Run(hctx.Context)
		return nil
	}
	collector = func(hctx server.PostStartHookContext) error {
		leases, err := systemLeases(hctx)
		if err != nil {
			return err
		}
		go identitylease.RunCollector(hctx.Context, leases, gcInterval, log)
		return nil
	}
	return controller, collector
}

// systemLeases is the client of the Leases of kube-system the identity
// lease controllers write with.
func systemLeases(hctx server.PostStartHookContext) (client.Interface[*coordinationv1.Lease, *coordinationv1.LeaseList], error) {
	clients, err := kubeAPIServerClient(hctx)
	if err != nil {
		return nil, err
	}
	return client.For[*coordinationv1.Lease, *coordinationv1.LeaseList](clients, "leases", metav1.NamespaceSystem), nil
}

// hostname is the host name the identity lease is named after.
func hostname(configured string) (string, error) {
	if configured != "" {
		return configured, nil
	}
	return os.Hostname()
}

// The ConfigMap kube-apiserver's legacy token tracking controller keeps:
// the day (UTC) from which this cluster records when legacy
// ServiceAccount token Secrets are used. A missing one is created, one
// whose date does not parse is rewritten, as kube-apiserver does.
const (
	legacyTokenTrackingConfigMap = "kube-apiserver-legacy-service-account-token-tracking"
	legacyTokenTrackingSinceKey  = "since"
	legacyTokenTrackingDate      = "2006-01-02"
)

// legacyTokenTrackingHook starts the controller of that ConfigMap: it
// checks it at once and every interval after, and retries a failure
// within a second (kube-system may not exist yet on a first start).
func legacyTokenTrackingHook(interval time.Duration, log *slog.Logger) server.PostStartHookFunc {
	return func(hctx server.PostStartHookContext) error {
		clients, err := kubeAPIServerClient(hctx)
		if err != nil {
			return err
		}
		cms := client.For[*corev1.ConfigMap, *corev1.ConfigMapList](clients, "configmaps", metav1.NamespaceSystem)
		go func() {
			for {
				wait := interval
				if err := ensureLegacyTokenTracking(hctx.Context, cms, time.Now()); err != nil {
					if hctx.Err() != nil {
						return
					}
					log.Info("Retrying the legacy token tracking ConfigMap", "err", err)
					wait = time.Second
				}
				select {
				case <-hctx.Done():
					return
				case <-time.After(wait):
				}
			}
		}()
		return nil
	}
}

func ensureLegacyTokenTracking(ctx context.Context, cms client.Interface[*corev1.ConfigMap, *corev1.ConfigMapList], now time.Time) error {
	cm, err := cms.Get(ctx, legacyTokenTrackingConfigMap, metav1.GetOptions{})
	since := map[string]string{legacyTokenTrackingSinceKey: now.UTC().Format(legacyTokenTrackingDate)}
	if apierrors.IsNotFound(err) {
		_, err = cms.Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: legacyTokenTrackingConfigMap, Namespace: metav1.NamespaceSystem},
			Data:       since,
		}, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return err
	}
	if err != nil {
		return err
	}
	if _, err := time.Parse(legacyTokenTrackingDate, cm.Data[legacyTokenTrackingSinceKey]); err == nil {
		return nil
	}
	cm = cm.DeepCopy()
	cm.Data = since
	_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
	return err
}

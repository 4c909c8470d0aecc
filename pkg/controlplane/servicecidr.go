package controlplane

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/pkg/client"
	"github.com/kapi-dev/kapi/pkg/server"
)

// The default ServiceCIDR, as kube-apiserver's default ServiceCIDR
// controller keeps it: named kubernetes, holding the
// --service-cluster-ip-range, created by kube-apiserver and made Ready
// by the controller through server-side apply of its status.
const (
	defaultServiceCIDRName     = "kubernetes"
	serviceCIDRControllerName  = "kubernetes-service-cidr-controller"
	defaultServiceCIDRReadyMsg = "Kubernetes default Service CIDR is ready"
	// serviceCIDRResync is how often the controller checks that the
	// default ServiceCIDR is still there, and puts it back if not.
	serviceCIDRResync = 10 * time.Second
)

// defaultServiceCIDRHook creates the default ServiceCIDR and makes it
// Ready, then keeps it there: a deleted default ServiceCIDR comes back,
// as kube-apiserver's controller brings it back. It writes through the
// loopback client as kube-apiserver does: the ServiceCIDR is created by
// "kube-apiserver" and its status applied by the controller, which is
// what their managedFields record.
func defaultServiceCIDRHook(ranges []*net.IPNet, logger *slog.Logger) server.PostStartHookFunc {
	var cidrs []string
	for _, r := range ranges {
		if r != nil {
			cidrs = append(cidrs, r.String())
		}
	}
	return func(hctx server.PostStartHookContext) error {
		clients, err := kubeAPIServerClient(hctx)
		if err != nil {
			return err
		}
		api := client.For[*networkingv1.ServiceCIDR, *networkingv1.ServiceCIDRList](clients, "servicecidrs", "")
		if err := reconcileDefaultServiceCIDR(hctx.Context, api, cidrs); err != nil {
			return err
		}
		go func() {
			t := time.NewTicker(serviceCIDRResync)
			defer t.Stop()
			for {
				select {
				case <-hctx.Done():
					return
				case <-t.C:
					if err := reconcileDefaultServiceCIDR(hctx.Context, api, cidrs); err != nil && hctx.Err() == nil && logger != nil {
						logger.Warn("reconciling the default ServiceCIDR", "err", err)
					}
				}
			}
		}()
		return nil
	}
}

// reconcileDefaultServiceCIDR creates the default ServiceCIDR if it is
// missing and makes it Ready if it has no Ready condition. As
// kube-apiserver's controller, it leaves alone a default ServiceCIDR
// whose CIDRs are not the flag's (they are immutable, kube-apiserver only
// reports the mismatch), one being deleted, and one whose Ready condition
// says something else.
func reconcileDefaultServiceCIDR(ctx context.Context, api client.Interface[*networkingv1.ServiceCIDR, *networkingv1.ServiceCIDRList], cidrs []string) error {
	sc, err := api.Get(ctx, defaultServiceCIDRName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		sc, err = api.Create(ctx, &networkingv1.ServiceCIDR{
			ObjectMeta: metav1.ObjectMeta{Name: defaultServiceCIDRName},
			Spec:       networkingv1.ServiceCIDRSpec{CIDRs: cidrs},
		}, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			sc, err = api.Get(ctx, defaultServiceCIDRName, metav1.GetOptions{})
		}
	}
	if err != nil {
		return fmt.Errorf("the default ServiceCIDR: %w", err)
	}
	if sc.DeletionTimestamp != nil || meta.FindStatusCondition(sc.Status.Conditions, networkingv1.ServiceCIDRConditionReady) != nil ||
		!slices.Equal(sc.Spec.CIDRs, cidrs) {
		return nil
	}
	// The status is applied as the controller's apply configuration
	// would be: the Ready condition alone.
	apply, err := json.Marshal(map[string]any{
		"apiVersion": networkingv1.SchemeGroupVersion.String(), "kind": "ServiceCIDR",
		"metadata": map[string]any{"name": defaultServiceCIDRName},
		"status": map[string]any{"conditions": []any{map[string]any{
			"type": networkingv1.ServiceCIDRConditionReady, "status": metav1.ConditionTrue,
			"message": defaultServiceCIDRReadyMsg, "lastTransitionTime": metav1.Now().Rfc3339Copy(),
		}}},
	})
	if err != nil {
		return err
	}
	_, err = api.Patch(ctx, defaultServiceCIDRName, types.ApplyPatchType, apply,
		metav1.PatchOptions{FieldManager: serviceCIDRControllerName, Force: ptr.To(true)}, "status")
	if err != nil {
		return fmt.Errorf("the default ServiceCIDR's status: %w", err)
	}
	return nil
}

// serviceRanges are the --service-cluster-ip-range ranges, primary first;
// the secondary one is nil on a single-stack cluster.
func serviceRanges(cfg Config) []*net.IPNet {
	return []*net.IPNet{cfg.ServiceClusterIPRange, cfg.SecondaryServiceClusterIPRange}
}

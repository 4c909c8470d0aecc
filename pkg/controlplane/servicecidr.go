package controlplane

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
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

// serviceCIDRStorage is what the default ServiceCIDR controller writes
// through: the servicecidrs storage and its /status.
type serviceCIDRStorage struct {
	cidrs  *generic.Store
	status *generic.SubresourceREST
}

// serviceCIDRStorageOf finds the storage of servicecidrs among what is
// served; nil when networking.k8s.io/v1 is not.
func serviceCIDRStorageOf(served []groupVersion) *serviceCIDRStorage {
	for _, g := range served {
		if g.gv != networkingv1.SchemeGroupVersion {
			continue
		}
		cidrs, ok1 := g.storage["servicecidrs"].(*generic.Store)
		status, ok2 := g.storage["servicecidrs/status"].(*generic.SubresourceREST)
		if ok1 && ok2 {
			return &serviceCIDRStorage{cidrs: cidrs, status: status}
		}
	}
	return nil
}

// defaultServiceCIDRHook creates the default ServiceCIDR and makes it
// Ready, then keeps it there: a deleted default ServiceCIDR comes back,
// as kube-apiserver's controller brings it back.
func defaultServiceCIDRHook(st *serviceCIDRStorage, ranges []*net.IPNet, logger *slog.Logger) server.PostStartHookFunc {
	var cidrs []string
	for _, r := range ranges {
		if r != nil {
			cidrs = append(cidrs, r.String())
		}
	}
	return func(hctx server.PostStartHookContext) error {
		if err := st.reconcile(hctx.Context, cidrs); err != nil {
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
					if err := st.reconcile(hctx.Context, cidrs); err != nil && hctx.Err() == nil && logger != nil {
						logger.Warn("reconciling the default ServiceCIDR", "err", err)
					}
				}
			}
		}()
		return nil
	}
}

// reconcile creates the default ServiceCIDR if it is missing and sets its
// Ready condition if it lacks it. A default ServiceCIDR whose CIDRs are
// not the flag's is left as it is: its CIDRs are immutable, and
// kube-apiserver only reports the mismatch.
func (st *serviceCIDRStorage) reconcile(ctx context.Context, cidrs []string) error {
	ctx = request.WithNamespace(ctx, "")
	obj, err := st.cidrs.Get(ctx, defaultServiceCIDRName, &metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		now := metav1.Now().Rfc3339Copy()
		sc := &networkingv1.ServiceCIDR{
			ObjectMeta: metav1.ObjectMeta{
				Name: defaultServiceCIDRName,
				ManagedFields: []metav1.ManagedFieldsEntry{{
					Manager: "kube-apiserver", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "networking.k8s.io/v1",
					Time: &now, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:cidrs":{}}}`)},
				}},
			},
			Spec: networkingv1.ServiceCIDRSpec{CIDRs: cidrs},
		}
		obj, err = st.cidrs.Create(ctx, sc, nil, &metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			obj, err = st.cidrs.Get(ctx, defaultServiceCIDRName, &metav1.GetOptions{})
		}
	}
	if err != nil {
		return fmt.Errorf("the default ServiceCIDR: %w", err)
	}
	sc := obj.(*networkingv1.ServiceCIDR)
	if !slices.Equal(sc.Spec.CIDRs, cidrs) || meta.IsStatusConditionTrue(sc.Status.Conditions, networkingv1.ServiceCIDRConditionReady) {
		return nil
	}
	return st.setReady(ctx, sc)
}

// setReady writes the Ready condition through /status, recorded as the
// server-side apply of kube-apiserver's controller.
func (st *serviceCIDRStorage) setReady(ctx context.Context, sc *networkingv1.ServiceCIDR) error {
	sc = sc.DeepCopy()
	now := metav1.Now().Rfc3339Copy()
	meta.SetStatusCondition(&sc.Status.Conditions, metav1.Condition{
		Type: networkingv1.ServiceCIDRConditionReady, Status: metav1.ConditionTrue,
		Message: defaultServiceCIDRReadyMsg, LastTransitionTime: now,
	})
	managed := slices.DeleteFunc(sc.ManagedFields, func(e metav1.ManagedFieldsEntry) bool { return e.Manager == serviceCIDRControllerName })
	sc.ManagedFields = append([]metav1.ManagedFieldsEntry{{
		Manager: serviceCIDRControllerName, Operation: metav1.ManagedFieldsOperationApply, APIVersion: "networking.k8s.io/v1",
		Time: &now, FieldsType: "FieldsV1", Subresource: "status",
		FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:status":{"f:conditions":{"k:{\"type\":\"Ready\"}":{".":{},"f:lastTransitionTime":{},"f:message":{},"f:status":{},"f:type":{}}}}}`)},
	}}, managed...)
	_, _, err := st.status.Update(ctx, sc.Name, rest.DefaultUpdatedObjectInfo(sc), nil, nil, false, &metav1.UpdateOptions{})
	if err != nil && !apierrors.IsConflict(err) {
		return fmt.Errorf("the default ServiceCIDR's status: %w", err)
	}
	return nil
}

// serviceRanges are the --service-cluster-ip-range ranges, primary first;
// the secondary one is nil on a single-stack cluster.
func serviceRanges(cfg Config) []*net.IPNet {
	return []*net.IPNet{cfg.ServiceClusterIPRange, cfg.SecondaryServiceClusterIPRange}
}

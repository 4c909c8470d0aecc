package reconcilers

import (
	"context"
	"fmt"
	"net"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/client"
)

// skipMirrorLabel keeps the EndpointSlice mirroring controller away from
// the Endpoints: the reconciler writes the slice itself.
const skipMirrorLabel = "endpointslice.kubernetes.io/skip-mirror"

// EndpointReconciler keeps the Endpoints and the EndpointSlice of one
// Service in the default namespace listing the replicas with a lease.
type EndpointReconciler struct {
	// Endpoints and EndpointSlices write the Service's endpoints in the
	// default namespace (loopback clients, whose user agent names the
	// field manager).
	Endpoints      client.Interface[*corev1.Endpoints, *corev1.EndpointsList]
	EndpointSlices client.Interface[*discoveryv1.EndpointSlice, *discoveryv1.EndpointSliceList]
	Leases         Leases
	// Service is the name of the Service, "kubernetes".
	Service string

	mu      sync.Mutex
	stopped bool
}

// Reconcile refreshes the lease of ip and brings the Endpoints and the
// EndpointSlice in line with the leases, with ports.
func (r *EndpointReconciler) Reconcile(ctx context.Context, ip net.IP, ports []corev1.EndpointPort) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped {
		return nil
	}
	// The lease is refreshed whatever happens below, so that some replica
	// lists this one.
	if err := r.Leases.Update(ctx, ip.String()); err != nil {
		return err
	}
	return r.reconcile(ctx, ports)
}

// Remove gives up the lease of ip, reconciles without it, and stops
// further reconciles: the replica is shutting down.
func (r *EndpointReconciler) Remove(ctx context.Context, ip net.IP, ports []corev1.EndpointPort) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopped = true
	if err := r.Leases.Remove(ctx, ip.String()); err != nil {
		return err
	}
	return r.reconcile(ctx, ports)
}

func (r *EndpointReconciler) reconcile(ctx context.Context, ports []corev1.EndpointPort) error {
	endpoints := r.Endpoints
	ep, err := endpoints.Get(ctx, r.Service, metav1.GetOptions{})
	create := apierrors.IsNotFound(err)
	if err != nil && !create {
		return err
	}
	if create {
		ep = &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: r.Service, Namespace: metav1.NamespaceDefault}}
	}
	ips, err := r.Leases.List(ctx)
	if err != nil {
		return err
	}
	// This replica has just refreshed its own lease (or is leaving): no
	// lease at all means storage is wrong, not that no server is left.
	if len(ips) == 0 {
		return fmt.Errorf("no API server leases in storage, refusing to empty the endpoints of the %s service", r.Service)
	}
	slices.Sort(ips)

	want := []corev1.EndpointSubset{{Ports: ports}}
	for _, ip := range ips {
		want[0].Addresses = append(want[0].Addresses, corev1.EndpointAddress{IP: ip})
	}
	if !create && ep.Labels[skipMirrorLabel] == "true" && subsetsMatch(ep.Subsets, want) {
		return r.ensureSlice(ctx, ep)
	}
	if ep.Labels == nil {
		ep.Labels = map[string]string{}
	}
	ep.Labels[skipMirrorLabel] = "true"
	ep.Subsets = want
	if create {
		ep, err = endpoints.Create(ctx, ep, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return nil // another replica was faster; the next round checks
		}
	} else {
		ep, err = endpoints.Update(ctx, ep, metav1.UpdateOptions{})
	}
	if err != nil {
		return err
	}
	return r.ensureSlice(ctx, ep)
}

// subsetsMatch is whether the Endpoints have one subset with exactly the
// wanted addresses (in any order) and ports.
func subsetsMatch(have, want []corev1.EndpointSubset) bool {
	if len(have) != 1 || !apiequality.Semantic.DeepEqual(have[0].Ports, want[0].Ports) || len(have[0].Addresses) != len(want[0].Addresses) {
		return false
	}
	seen := map[string]bool{}
	for _, a := range want[0].Addresses {
		seen[a.IP] = false
	}
	for _, a := range have[0].Addresses {
		done, ok := seen[a.IP]
		if !ok || done {
			return false
		}
		seen[a.IP] = true
	}
	return true
}

// ensureSlice makes the EndpointSlice of the Service what the Endpoints
// say, as kube-apiserver's endpoints adapter does.
func (r *EndpointReconciler) ensureSlice(ctx context.Context, ep *corev1.Endpoints) error {
	want := sliceFromEndpoints(ep)
	slicesClient := r.EndpointSlices
	cur, err := slicesClient.Get(ctx, want.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		_, err = slicesClient.Create(ctx, want, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return err
	case err != nil:
		return err
	case cur.AddressType != want.AddressType:
		// The address type cannot change: replace the slice.
		if err := slicesClient.Delete(ctx, want.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &cur.UID}}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		_, err = slicesClient.Create(ctx, want, metav1.CreateOptions{})
		return err
	case apiequality.Semantic.DeepEqual(cur.Endpoints, want.Endpoints) && apiequality.Semantic.DeepEqual(cur.Ports, want.Ports) &&
		apiequality.Semantic.DeepEqual(cur.Labels, want.Labels):
		return nil
	}
	want.ResourceVersion = cur.ResourceVersion
	_, err = slicesClient.Update(ctx, want, metav1.UpdateOptions{})
	return err
}

// sliceFromEndpoints is the EndpointSlice of the Endpoints' first subset:
// one ready endpoint per address, the same ports.
func sliceFromEndpoints(ep *corev1.Endpoints) *discoveryv1.EndpointSlice {
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			Name:      ep.Name,
			Namespace: ep.Namespace,
			Labels:    map[string]string{discoveryv1.LabelServiceName: ep.Name},
		},
		AddressType: discoveryv1.AddressTypeIPv4,
	}
	if len(ep.Subsets) == 0 {
		return slice
	}
	subset := ep.Subsets[0]
	for i, a := range subset.Addresses {
		if i == 0 && net.ParseIP(a.IP).To4() == nil {
			slice.AddressType = discoveryv1.AddressTypeIPv6
		}
		ready := true
		slice.Endpoints = append(slice.Endpoints, discoveryv1.Endpoint{
			Addresses:  []string{a.IP},
			Conditions: discoveryv1.EndpointConditions{Ready: &ready},
		})
	}
	for _, p := range subset.Ports {
		name, port, protocol := p.Name, p.Port, p.Protocol
		slice.Ports = append(slice.Ports, discoveryv1.EndpointPort{Name: &name, Port: &port, Protocol: &protocol})
	}
	return slice
}

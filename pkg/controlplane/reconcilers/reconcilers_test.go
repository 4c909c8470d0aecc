package reconcilers

import (
	"context"
	"net"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kapi-dev/kapi/pkg/storage/embedded"
)

// memLeases is a set of leases without expiry.
type memLeases map[string]bool

func (m memLeases) List(context.Context) ([]string, error) {
	var ips []string
	for ip := range m {
		ips = append(ips, ip)
	}
	slices.Sort(ips)
	return ips, nil
}
func (m memLeases) Update(_ context.Context, ip string) error { m[ip] = true; return nil }
func (m memLeases) Remove(_ context.Context, ip string) error { delete(m, ip); return nil }

var httpsPort = []corev1.EndpointPort{{Name: "https", Port: 6443, Protocol: corev1.ProtocolTCP}}

// The reconciler writes the Endpoints and the EndpointSlice of the
// Service with every leased address, corrects them when they drift, and
// takes its own address out when it leaves.
func TestEndpointReconciler(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset()
	leases := memLeases{"192.0.2.20": true}
	r := &EndpointReconciler{Endpoints: client.CoreV1().Endpoints("default"), EndpointSlices: client.DiscoveryV1().EndpointSlices("default"), Leases: leases, Service: "kubernetes"}
	if err := r.Reconcile(ctx, net.ParseIP("192.0.2.10"), httpsPort); err != nil {
		t.Fatal(err)
	}
	ep, err := client.CoreV1().Endpoints("default").Get(ctx, "kubernetes", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []corev1.EndpointSubset{{Addresses: []corev1.EndpointAddress{{IP: "192.0.2.10"}, {IP: "192.0.2.20"}}, Ports: httpsPort}}
	if ep.Labels[skipMirrorLabel] != "true" || !slices.EqualFunc(ep.Subsets, want, func(a, b corev1.EndpointSubset) bool {
		return slices.Equal(a.Addresses, b.Addresses) && slices.Equal(a.Ports, b.Ports)
	}) {
		t.Errorf("endpoints %+v", ep)
	}
	slice, err := client.DiscoveryV1().EndpointSlices("default").Get(ctx, "kubernetes", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if slice.AddressType != discoveryv1.AddressTypeIPv4 || slice.Labels[discoveryv1.LabelServiceName] != "kubernetes" ||
		len(slice.Endpoints) != 2 || slice.Endpoints[1].Addresses[0] != "192.0.2.20" || !*slice.Endpoints[1].Conditions.Ready ||
		len(slice.Ports) != 1 || *slice.Ports[0].Port != 6443 {
		t.Errorf("slice %+v", slice)
	}

	// Someone else's edit is undone.
	ep.Subsets[0].Addresses = []corev1.EndpointAddress{{IP: "192.0.2.99"}}
	if _, err := client.CoreV1().Endpoints("default").Update(ctx, ep, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := r.Reconcile(ctx, net.ParseIP("192.0.2.10"), httpsPort); err != nil {
		t.Fatal(err)
	}
	ep, _ = client.CoreV1().Endpoints("default").Get(ctx, "kubernetes", metav1.GetOptions{})
	if len(ep.Subsets[0].Addresses) != 2 {
		t.Errorf("drift kept: %+v", ep.Subsets)
	}

	// Leaving removes this address and stops reconciling.
	if err := r.Remove(ctx, net.ParseIP("192.0.2.10"), httpsPort); err != nil {
		t.Fatal(err)
	}
	ep, _ = client.CoreV1().Endpoints("default").Get(ctx, "kubernetes", metav1.GetOptions{})
	slice, _ = client.DiscoveryV1().EndpointSlices("default").Get(ctx, "kubernetes", metav1.GetOptions{})
	if len(ep.Subsets[0].Addresses) != 1 || ep.Subsets[0].Addresses[0].IP != "192.0.2.20" || len(slice.Endpoints) != 1 {
		t.Errorf("after leaving: %+v %+v", ep.Subsets, slice.Endpoints)
	}
	if err := r.Reconcile(ctx, net.ParseIP("192.0.2.10"), httpsPort); err != nil || leases["192.0.2.10"] {
		t.Errorf("reconciled after leaving: %v %v", err, leases)
	}
}

// The etcd leases live under the prefix with a TTL, are refreshed without
// a new write, and list in key order.
func TestEtcdLeases(t *testing.T) {
	ctx := context.Background()
	e, err := embedded.Start(ctx, embedded.Config{DataDir: t.TempDir(), UnsafeNoFsync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	l := &EtcdLeases{Client: e.Client(), Prefix: "/registry/masterleases/", TTL: 15 * time.Second}
	for _, ip := range []string{"192.0.2.11", "192.0.2.10", "192.0.2.11"} {
		if err := l.Update(ctx, ip); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := e.Client().Get(ctx, "/registry/masterleases/192.0.2.11")
	if err != nil || len(resp.Kvs) != 1 || resp.Kvs[0].Version != 1 || resp.Kvs[0].Lease == 0 {
		t.Fatalf("the refreshed key was rewritten or has no lease: %+v %v", resp, err)
	}
	ips, err := l.List(ctx)
	if err != nil || !slices.Equal(ips, []string{"192.0.2.10", "192.0.2.11"}) {
		t.Errorf("List = %v, %v", ips, err)
	}
	if err := l.Remove(ctx, "192.0.2.10"); err != nil {
		t.Fatal(err)
	}
	if ips, _ := l.List(ctx); !slices.Equal(ips, []string{"192.0.2.11"}) {
		t.Errorf("after Remove: %v", ips)
	}
}

package identitylease

import (
	"context"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// The name of kube-apiserver 1.37.1's identity lease on the host "vm",
// where the reference was recorded (bootstrap/misc-objects.names.txt).
func TestNameIsKubeAPIServers(t *testing.T) {
	data, err := os.ReadFile("../../../../shared/reference/kube-apiserver-v1.37.1/bootstrap/misc-objects.names.txt")
	if err != nil {
		t.Fatal(err)
	}
	var want string
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "Lease" && f[1] == "kube-system" {
			want = f[2]
		}
	}
	if got := Name("vm"); got != want || want == "" {
		t.Errorf("Name(vm) = %q, the reference has %q", got, want)
	}
}

// The controller creates the lease, renews it with its labels put back,
// and creates it again after a delete.
func TestControllerRenews(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset()
	c := NewController(client.CoordinationV1().Leases("kube-system"), "host-a", "192.0.2.10:6443", slog.New(slog.DiscardHandler))
	now := time.Date(2026, 11, 25, 18, 0, 0, 0, time.UTC)
	c.now = func() time.Time { return now }
	leases := client.CoordinationV1().Leases("kube-system")
	name := Name("host-a")

	if err := c.Renew(ctx); err != nil {
		t.Fatal(err)
	}
	l, err := leases.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if l.Labels[IdentityLabel] != "kube-apiserver" || l.Labels["kubernetes.io/hostname"] != "host-a" ||
		l.Annotations["kubernetes.io/peer-advertise-address"] != "192.0.2.10:6443" ||
		!strings.HasPrefix(*l.Spec.HolderIdentity, name+"_") || *l.Spec.LeaseDurationSeconds != 3600 || !l.Spec.RenewTime.Time.Equal(now) {
		t.Fatalf("created lease %+v", l)
	}

	l.Labels = nil
	if _, err := leases.Update(ctx, l, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	now = now.Add(RenewInterval)
	if err := c.Renew(ctx); err != nil {
		t.Fatal(err)
	}
	l, _ = leases.Get(ctx, name, metav1.GetOptions{})
	if l.Labels[IdentityLabel] != "kube-apiserver" || !l.Spec.RenewTime.Time.Equal(now) {
		t.Errorf("renewed lease %+v", l)
	}

	if err := leases.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := c.Renew(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := leases.Get(ctx, name, metav1.GetOptions{}); err != nil {
		t.Errorf("the lease was not created again: %v", err)
	}
}

// Collect deletes the identity leases whose renewal plus duration is
// past, and nothing else.
func TestCollectDeletesExpiredIdentityLeases(t *testing.T) {
	now := time.Date(2026, 11, 25, 18, 0, 0, 0, time.UTC)
	lease := func(name string, identity bool, renewed time.Duration) *coordinationv1.Lease {
		l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-system"},
			Spec: coordinationv1.LeaseSpec{LeaseDurationSeconds: ptr(int32(3600))}}
		if identity {
			l.Labels = map[string]string{IdentityLabel: Component}
		}
		if renewed != 0 {
			rt := metav1.NewMicroTime(now.Add(-renewed))
			l.Spec.RenewTime = &rt
		}
		return l
	}
	client := fake.NewClientset(
		lease("fresh", true, time.Minute),
		lease("expired", true, 2*time.Hour),
		lease("never-renewed", true, 0),
		lease("someone-elses", false, 2*time.Hour),
	)
	if err := Collect(context.Background(), client.CoordinationV1().Leases("kube-system"), now); err != nil {
		t.Fatal(err)
	}
	list, err := client.CoordinationV1().Leases("kube-system").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, l := range list.Items {
		left = append(left, l.Name)
	}
	if strings.Join(left, ",") != "fresh,someone-elses" {
		t.Errorf("left %v, want fresh and someone-elses", left)
	}
}

package service

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
)

// A repair pass puts back the reservations a Service uses and lost,
// releases the old orphans, leaves young ones to the requests that may
// still write their Service, and reports a value two Services use.
func TestRepairRestoresLostReservationsAndReleasesOrphans(t *testing.T) {
	s := newServer(t)
	web := svc("web", corev1.ServiceTypeNodePort, "80:30080")
	web.Spec.ClusterIP = "10.0.0.80"
	s.mustCreate(t, web)
	// Someone deletes the IPAddress and the node port reservation of web.
	ctx := context.Background()
	if err := s.ips.Release(ctx, netip.MustParseAddr("10.0.0.80"), serviceOwner("default", "web")); err != nil {
		t.Fatal(err)
	}
	if err := s.NodePorts().Release(ctx, 30080, serviceOwner("default", "web")); err != nil {
		t.Fatal(err)
	}
	s.orphanIP(t, "10.0.0.81", "ghost", time.Hour)
	s.orphanPort(t, 30081, "ghost", time.Hour)
	s.orphanIP(t, "10.0.0.82", "in-flight", time.Second)

	rep, err := s.Repair(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := RepairReport{Restored: []string{"default/web 10.0.0.80", "default/web 30080"}, ReleasedIPs: 1, ReleasedPorts: 1}
	if diff := cmp.Diff(want, rep); diff != "" {
		t.Errorf("repair report (-want +got):\n%s", diff)
	}
	if s.ipOwner(t, "10.0.0.80") != "default/web" || s.portOwner(t, 30080) != "default/web" {
		t.Errorf("after the repair 10.0.0.80 is reserved for %q, 30080 for %q", s.ipOwner(t, "10.0.0.80"), s.portOwner(t, 30080))
	}
	if s.ipOwner(t, "10.0.0.81") != "" || s.portOwner(t, 30081) != "" {
		t.Error("old orphans survived the repair")
	}
	if s.ipOwner(t, "10.0.0.82") != "default/in-flight" {
		t.Error("the repair released a young reservation")
	}

	// A second pass finds nothing to do.
	rep, err = s.Repair(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(RepairReport{}, rep); diff != "" {
		t.Errorf("second repair report (-want +got):\n%s", diff)
	}
}

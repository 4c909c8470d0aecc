package service

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/kapi-dev/kapi/pkg/registry/core/service/portallocator"
)

// A repair pass puts back the allocations a Service uses and lost,
// releases the old IP orphans, leaves young ones to the requests that may
// still write their Service, and flags a leaked node port.
func TestRepairRestoresLostAllocationsAndReleasesOrphans(t *testing.T) {
	s := newServer(t)
	web := svc("web", corev1.ServiceTypeNodePort, "80:30080")
	web.Spec.ClusterIP = "10.0.0.80"
	s.mustCreate(t, web)
	// Someone deletes the IPAddress of web and clears its node port.
	ctx := context.Background()
	if err := s.ips.Release(ctx, netip.MustParseAddr("10.0.0.80"), serviceOwner("default", "web")); err != nil {
		t.Fatal(err)
	}
	if err := s.NodePorts().Release(ctx, 30080); err != nil {
		t.Fatal(err)
	}
	s.orphanIP(t, "10.0.0.81", "ghost", time.Hour)
	s.leakPort(t, 30081)
	s.orphanIP(t, "10.0.0.82", "in-flight", time.Second)

	rep, err := s.Repair(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := RepairReport{Restored: []string{"default/web 10.0.0.80"}, ReleasedIPs: 1, NodePorts: portallocator.RepairReport{
		Problems: []portallocator.Problem{{Service: s.holder(t, "web", 30080), Port: 30080, Reason: "PortNotAllocated", Message: "Port 30080 is not allocated; repairing"}},
		Flagged:  []int{30081},
	}}
	if diff := cmp.Diff(want, rep); diff != "" {
		t.Errorf("repair report (-want +got):\n%s", diff)
	}
	if s.ipOwner(t, "10.0.0.80") != "default/web" || !s.portAllocated(t, 30080) {
		t.Errorf("after the repair 10.0.0.80 is reserved for %q, 30080 allocated: %v", s.ipOwner(t, "10.0.0.80"), s.portAllocated(t, 30080))
	}
	if s.ipOwner(t, "10.0.0.81") != "" {
		t.Error("the old IP orphan survived the repair")
	}
	if s.ipOwner(t, "10.0.0.82") != "default/in-flight" {
		t.Error("the repair released a young reservation")
	}
	if !s.portAllocated(t, 30081) {
		t.Error("the first repair that saw 30081 leaked freed it")
	}

	// A second pass finds nothing new.
	rep, err = s.Repair(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(RepairReport{}, rep); diff != "" {
		t.Errorf("second repair report (-want +got):\n%s", diff)
	}
}

// holder is the Service name as the repair reports it.
func (s *server) holder(t *testing.T, name string, ports ...int) portallocator.Holder {
	t.Helper()
	svc := s.get(t, name)
	return portallocator.Holder{Namespace: "default", Name: name, UID: svc.UID, ResourceVersion: svc.ResourceVersion, Ports: ports}
}

// store writes a Service as it is, without allocating for it: what a
// server with another range, or a bug, may leave in storage.
func (s *server) store(t *testing.T, svc *corev1.Service) {
	t.Helper()
	if err := s.Storage.Create(context.Background(), s.KeyPrefix+"/"+svc.Namespace+"/"+svc.Name, svc, nil); err != nil {
		t.Fatal(err)
	}
}

// Node ports the repair cannot fix are reported with kube-apiserver's
// reasons and messages: one two Services hold, one outside the range.
// The ports of a Service that two protocols share, and a health check
// node port, count once.
func TestRepairReportsDuplicateAndOutOfRangeNodePorts(t *testing.T) {
	s := newCluster("10.0.0.0/24", "30000-30099").server(t)
	s.mustCreate(t, svc("first", corev1.ServiceTypeNodePort, "80:30080"))
	dns := svc("dns", corev1.ServiceTypeLoadBalancer, "53/TCP:30053", "53/UDP:30053")
	dns.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
	dns.Spec.HealthCheckNodePort = 30054
	s.mustCreate(t, dns)
	s.store(t, svc("second", corev1.ServiceTypeNodePort, "80:30080"))
	s.store(t, svc("outside", corev1.ServiceTypeNodePort, "80:31000"))

	rep, err := s.Repair(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// Services are listed by key: dns, first, outside, second.
	want := portallocator.RepairReport{Problems: []portallocator.Problem{
		{Service: s.holder(t, "outside", 31000), Port: 31000, Reason: "PortOutOfRange", Message: "Port 31000 is not within the port range 30000-30099; please recreate service"},
		{Service: s.holder(t, "second", 30080), Port: 30080, Reason: "PortAlreadyAllocated", Message: "Port 30080 was assigned to multiple services; please recreate service"},
	}}
	if diff := cmp.Diff(want, rep.NodePorts); diff != "" {
		t.Errorf("repair report (-want +got):\n%s", diff)
	}
	got, err := s.NodePorts().Allocated(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{30053, 30054, 30080}, got); diff != "" {
		t.Errorf("allocated ports (-want +got):\n%s", diff)
	}
}

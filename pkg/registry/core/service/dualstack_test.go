package service

import (
	"context"
	"net/netip"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const dualStackRanges = "10.0.0.0/24,fd00:10:96::/112"

func policy(p corev1.IPFamilyPolicy) *corev1.IPFamilyPolicy { return &p }

// checkFamilies fails unless svc has one cluster IP of each of families,
// in that order, in the cluster's ranges, each reserved for it.
func (s *server) checkFamilies(t *testing.T, svc *corev1.Service, families ...corev1.IPFamily) {
	t.Helper()
	if !slices.Equal(svc.Spec.IPFamilies, families) || len(svc.Spec.ClusterIPs) != len(families) {
		t.Fatalf("ipFamilies %v, clusterIPs %v; want one IP of each of %v", svc.Spec.IPFamilies, svc.Spec.ClusterIPs, families)
	}
	ranges := map[corev1.IPFamily]netip.Prefix{corev1.IPv4Protocol: netip.MustParsePrefix("10.0.0.0/24"), corev1.IPv6Protocol: netip.MustParsePrefix("fd00:10:96::/112")}
	for i, ip := range svc.Spec.ClusterIPs {
		if !ranges[families[i]].Contains(netip.MustParseAddr(ip)) {
			t.Errorf("clusterIPs[%d] %s is not in the %s range", i, ip, families[i])
		}
		if owner := s.ipOwner(t, ip); owner != "default/"+svc.Name {
			t.Errorf("%s is reserved for %q, not default/%s", ip, owner, svc.Name)
		}
	}
	if svc.Spec.ClusterIP != svc.Spec.ClusterIPs[0] {
		t.Errorf("clusterIP %s is not clusterIPs[0] %s", svc.Spec.ClusterIP, svc.Spec.ClusterIPs[0])
	}
}

// On a dual-stack cluster a service holds one IPAddress per family it
// has: upgrading it to dual-stack reserves the secondary IP, downgrading
// it releases that IP, and deleting it releases both.
func TestADualStackServiceHoldsAnIPOfEachFamily(t *testing.T) {
	s := newCluster(dualStackRanges, "30000-32767").server(t)
	web := s.mustCreate(t, svc("web", corev1.ServiceTypeClusterIP, "80"))
	s.checkFamilies(t, web, corev1.IPv4Protocol)

	web.Spec.IPFamilyPolicy = policy(corev1.IPFamilyPolicyPreferDualStack)
	web = s.mustUpdate(t, web)
	s.checkFamilies(t, web, corev1.IPv4Protocol, corev1.IPv6Protocol)
	secondary := web.Spec.ClusterIPs[1]

	web.Spec.IPFamilyPolicy = policy(corev1.IPFamilyPolicySingleStack)
	web = s.mustUpdate(t, web)
	s.checkFamilies(t, web, corev1.IPv4Protocol)
	if owner := s.ipOwner(t, secondary); owner != "" {
		t.Errorf("the released secondary IP %s is still reserved for %q", secondary, owner)
	}

	six := svc("six", corev1.ServiceTypeNodePort, "80")
	six.Spec.IPFamilyPolicy = policy(corev1.IPFamilyPolicyRequireDualStack)
	six.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv6Protocol}
	six = s.mustCreate(t, six)
	s.checkFamilies(t, six, corev1.IPv6Protocol, corev1.IPv4Protocol)

	s.delete(t, "six")
	for _, ip := range six.Spec.ClusterIPs {
		if owner := s.ipOwner(t, ip); owner != "" {
			t.Errorf("%s of the deleted service is still reserved for %q", ip, owner)
		}
	}
}

// A dry run on a dual-stack cluster reserves neither family's IP.
func TestADualStackDryRunReservesNothing(t *testing.T) {
	s := newCluster(dualStackRanges, "30000-32767").server(t)
	dry := svc("dry", corev1.ServiceTypeClusterIP, "80")
	dry.Spec.IPFamilyPolicy = policy(corev1.IPFamilyPolicyRequireDualStack)
	before := s.countReservations(t)
	out, err := s.createWith(t, dry, &metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Spec.ClusterIPs) != 2 {
		t.Errorf("the dry run answered clusterIPs %v, want two", out.Spec.ClusterIPs)
	}
	if after := s.countReservations(t); after != before {
		t.Errorf("the dry run left %d reservations, had %d", after, before)
	}
}

// The repair pass restores a lost IPAddress of the secondary family too.
func TestRepairRestoresTheSecondaryFamilysIP(t *testing.T) {
	s := newCluster(dualStackRanges, "30000-32767").server(t)
	web := svc("web", corev1.ServiceTypeClusterIP, "80")
	web.Spec.IPFamilyPolicy = policy(corev1.IPFamilyPolicyPreferDualStack)
	web.Spec.ClusterIPs = []string{"10.0.0.80", "fd00:10:96::80"}
	web.Spec.ClusterIP = "10.0.0.80"
	s.mustCreate(t, web)
	ctx := context.Background()
	if err := s.ips.Release(ctx, netip.MustParseAddr("fd00:10:96::80"), serviceOwner("default", "web")); err != nil {
		t.Fatal(err)
	}
	rep, err := s.Repair(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(RepairReport{Restored: []string{"default/web fd00:10:96::80"}}, rep); diff != "" {
		t.Errorf("repair report (-want +got):\n%s", diff)
	}
	if owner := s.ipOwner(t, "fd00:10:96::80"); owner != "default/web" {
		t.Errorf("after the repair fd00:10:96::80 is reserved for %q", owner)
	}
}

package service

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"

	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/registry/core/service/ipallocator"
	"github.com/kapi-dev/kapi/pkg/registry/core/service/portallocator"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
	"github.com/kapi-dev/kapi/pkg/storage/embedded"
	"github.com/kapi-dev/kapi/pkg/storage/storagebackend"
)

// etcd is the embedded etcd every test uses, each cluster below a prefix
// of its own.
var etcd *embedded.Server

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "kapi-service-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	etcd, err = embedded.Start(context.Background(), embedded.Config{DataDir: dir, UnsafeNoFsync: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer etcd.Close()
	return m.Run()
}

var clusters atomic.Int64

// cluster is the shared storage of some kapi servers.
type cluster struct {
	prefix    string
	cidr      string
	nodePorts string
}

// newCluster returns a cluster with the given service ranges.
func newCluster(cidr, nodePorts string) *cluster {
	return &cluster{prefix: fmt.Sprintf("/svc-test-%d/registry", clusters.Add(1)), cidr: cidr, nodePorts: nodePorts}
}

// server is the service storage of one kapi server of a cluster.
type server struct {
	*REST
	status *generic.SubresourceREST
	ips    *ipallocator.Allocator
}

func (c *cluster) server(t *testing.T) *server {
	t.Helper()
	f := &storagebackend.Factory{Client: etcd.Client(), Prefix: c.prefix}
	// cidr is one range, or two (dual-stack) separated by a comma.
	var cidrs []*net.IPNet
	for _, r := range strings.Split(c.cidr, ",") {
		_, cidr, err := net.ParseCIDR(r)
		if err != nil {
			t.Fatal(err)
		}
		cidrs = append(cidrs, cidr)
	}
	pr, err := utilnet.ParsePortRange(c.nodePorts)
	if err != nil {
		t.Fatal(err)
	}
	st, err := NewStorage(generic.RESTOptions{StorageFactory: f}, cidrs, *pr)
	if err != nil {
		t.Fatal(err)
	}
	// The server's first repair, at start-up, writes the node port
	// bitmap if it is not there yet.
	if _, err := st.Service.Repair(context.Background()); err != nil {
		t.Fatal(err)
	}
	return &server{REST: st.Service, status: st.Status, ips: st.Service.ClusterIPs()}
}

// newServer returns the only server of a cluster with kube-apiserver's
// default node port range.
func newServer(t *testing.T) *server {
	return newCluster("10.0.0.0/24", "30000-32767").server(t)
}

func nsContext() context.Context {
	return request.WithNamespace(context.Background(), "default")
}

// svc returns a defaulted Service of type typ with the given ports, each
// given as "port", "port/protocol" or "port/protocol:nodePort".
func svc(name string, typ corev1.ServiceType, ports ...string) *corev1.Service {
	s := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       corev1.ServiceSpec{Type: typ, Selector: map[string]string{"app": name}},
	}
	for i, p := range ports {
		var sp corev1.ServicePort
		var proto string
		switch {
		case scan(p, "%d/%3s:%d", &sp.Port, &proto, &sp.NodePort):
		case scan(p, "%d/%3s", &sp.Port, &proto):
		case scan(p, "%d:%d", &sp.Port, &sp.NodePort):
		case scan(p, "%d", &sp.Port):
		default:
			panic("bad port " + p)
		}
		sp.Protocol = corev1.Protocol(proto)
		if len(ports) > 1 {
			sp.Name = fmt.Sprintf("p%d", i)
		}
		s.Spec.Ports = append(s.Spec.Ports, sp)
	}
	scheme.Scheme.Default(s)
	return s
}

func scan(s, format string, args ...any) bool {
	n, err := fmt.Sscanf(s, format, args...)
	return err == nil && n == len(args)
}

func (s *server) create(t *testing.T, svc *corev1.Service) (*corev1.Service, error) {
	t.Helper()
	return s.createWith(t, svc, &metav1.CreateOptions{})
}

func (s *server) createWith(t *testing.T, svc *corev1.Service, opts *metav1.CreateOptions) (*corev1.Service, error) {
	t.Helper()
	out, err := s.Create(nsContext(), svc.DeepCopy(), nil, opts)
	if err != nil {
		return nil, err
	}
	return out.(*corev1.Service), nil
}

func (s *server) mustCreate(t *testing.T, svc *corev1.Service) *corev1.Service {
	t.Helper()
	out, err := s.create(t, svc)
	if err != nil {
		t.Fatalf("creating %s: %v", svc.Name, err)
	}
	return out
}

func (s *server) get(t *testing.T, name string) *corev1.Service {
	t.Helper()
	out, err := s.Get(nsContext(), name, &metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return out.(*corev1.Service)
}

// update PUTs svc (after defaulting it, as the handler does).
func (s *server) update(t *testing.T, svc *corev1.Service, dryRun ...string) (*corev1.Service, error) {
	t.Helper()
	svc = svc.DeepCopy()
	scheme.Scheme.Default(svc)
	out, _, err := s.Update(nsContext(), svc.Name, rest.DefaultUpdatedObjectInfo(svc), nil, nil, false, &metav1.UpdateOptions{DryRun: dryRun})
	if err != nil {
		return nil, err
	}
	return out.(*corev1.Service), nil
}

func (s *server) mustUpdate(t *testing.T, svc *corev1.Service) *corev1.Service {
	t.Helper()
	out, err := s.update(t, svc)
	if err != nil {
		t.Fatalf("updating %s: %v", svc.Name, err)
	}
	return out
}

func (s *server) delete(t *testing.T, name string) {
	t.Helper()
	if _, _, err := s.Delete(nsContext(), name, nil, &metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
}

// portAllocated reports whether a node port's bit is set in the bitmap.
func (s *server) portAllocated(t *testing.T, port int32) bool {
	t.Helper()
	ok, err := s.NodePorts().Has(context.Background(), int(port))
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// ipOwner is the Service holding a cluster IP's reservation, "" if none.
func (s *server) ipOwner(t *testing.T, ip string) string {
	t.Helper()
	o, ok, err := s.ips.Owner(context.Background(), netip.MustParseAddr(ip))
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		return ""
	}
	return o.String()
}

func nodePorts(svc *corev1.Service) []int32 {
	var out []int32
	for _, p := range svc.Spec.Ports {
		out = append(out, p.NodePort)
	}
	return out
}

func wantStatus(t *testing.T, err error, code int32, message string) {
	t.Helper()
	var status apierrors.APIStatus
	if err == nil {
		t.Fatalf("succeeded, want %d %q", code, message)
	}
	if !asStatus(err, &status) {
		t.Fatalf("error %v is not a Status", err)
	}
	if got := status.Status(); got.Code != code || got.Message != message {
		t.Fatalf("got %d %q\nwant %d %q", got.Code, got.Message, code, message)
	}
}

func asStatus(err error, out *apierrors.APIStatus) bool {
	s, ok := err.(apierrors.APIStatus)
	*out = s
	return ok
}

func TestANodePortServiceGetsANodePortForEveryPort(t *testing.T) {
	s := newServer(t)
	out := s.mustCreate(t, svc("web", corev1.ServiceTypeNodePort, "80", "443"))
	got := nodePorts(out)
	if got[0] == got[1] {
		t.Fatalf("node ports %v: want two different ones", got)
	}
	for _, p := range got {
		if p < 30000 || p > 32767 {
			t.Errorf("node port %d is outside 30000-32767", p)
		}
		if !s.portAllocated(t, p) {
			t.Errorf("node port %d is not allocated", p)
		}
	}
	if owner := s.ipOwner(t, out.Spec.ClusterIP); owner != "default/web" {
		t.Errorf("cluster IP %s is reserved for %q, want default/web", out.Spec.ClusterIP, owner)
	}
	if stored := s.get(t, "web"); fmt.Sprint(nodePorts(stored)) != fmt.Sprint(got) {
		t.Errorf("stored node ports %v, answered %v", nodePorts(stored), got)
	}
}

func TestDynamicNodePortsComeFromAboveTheStaticBand(t *testing.T) {
	// A range of 100 ports keeps its first 16 for users who pick ports by
	// hand; allocation takes them only once the other 84 are gone.
	s := newCluster("10.0.0.0/24", "30000-30099").server(t)
	ports := make([]string, 84)
	for i := range ports {
		ports[i] = fmt.Sprint(1000 + i)
	}
	for _, p := range nodePorts(s.mustCreate(t, svc("many", corev1.ServiceTypeNodePort, ports...))) {
		if p < 30016 {
			t.Fatalf("node port %d allocated from the static band while the dynamic one had room", p)
		}
	}
	if p := nodePorts(s.mustCreate(t, svc("one-more", corev1.ServiceTypeNodePort, "80")))[0]; p >= 30016 {
		t.Fatalf("node port %d: the dynamic band is full, want one below 30016", p)
	}
}

func TestARequestedNodePortIsReservedOrRefused(t *testing.T) {
	s := newServer(t)
	if got := nodePorts(s.mustCreate(t, svc("a", corev1.ServiceTypeNodePort, "80:30080")))[0]; got != 30080 {
		t.Fatalf("node port %d, want 30080", got)
	}
	_, err := s.create(t, svc("b", corev1.ServiceTypeNodePort, "8080", "80:30080"))
	wantStatus(t, err, 422, `Service "b" is invalid: spec.ports[1].nodePort: Invalid value: 30080: provided port is already allocated`)
	_, err = s.create(t, svc("c", corev1.ServiceTypeNodePort, "80:80"))
	wantStatus(t, err, 422, `Service "c" is invalid: spec.ports[0].nodePort: Invalid value: 80: provided port is not in the valid range. The range of valid ports is 30000-32767`)

	// The refused creates gave back what they had reserved before the
	// conflict: b's first port and both cluster IPs.
	if n := s.countReservations(t); n != 2 {
		t.Errorf("%d reservations, want a's node port and cluster IP", n)
	}
}

// countReservations counts node port and cluster IP reservations.
func (s *server) countReservations(t *testing.T) int {
	t.Helper()
	ports, err := s.NodePorts().Allocated(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ips, err := s.ips.Table().Reserved(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return len(ports) + len(ips)
}

func TestPortsWithTheSameNumberShareTheirNodePort(t *testing.T) {
	s := newServer(t)
	// DNS over TCP and UDP: one node port serves both.
	got := nodePorts(s.mustCreate(t, svc("dns", corev1.ServiceTypeNodePort, "53/TCP", "53/UDP")))
	if got[0] != got[1] {
		t.Errorf("node ports %v, want one shared", got)
	}
	got = nodePorts(s.mustCreate(t, svc("dns2", corev1.ServiceTypeNodePort, "53/TCP", "53/UDP:30053")))
	if got[0] != 30053 || got[1] != 30053 {
		t.Errorf("node ports %v, want both 30053, which the UDP port asks for", got)
	}
	// Different port numbers do not share, whatever the protocols: as in
	// kube-apiserver, the second one asking for 30054 finds it taken.
	_, err := s.create(t, svc("mixed", corev1.ServiceTypeNodePort, "80/TCP:30054", "81/UDP:30054"))
	wantStatus(t, err, 422, `Service "mixed" is invalid: spec.ports[1].nodePort: Invalid value: 30054: provided port is already allocated`)
}

func TestLoadBalancersGetNodePortsUnlessTheyOptOut(t *testing.T) {
	s := newServer(t)
	lb := s.mustCreate(t, svc("lb", corev1.ServiceTypeLoadBalancer, "80"))
	if nodePorts(lb)[0] == 0 {
		t.Error("a LoadBalancer got no node port")
	}
	if lb.Spec.HealthCheckNodePort != 0 {
		t.Errorf("healthCheckNodePort %d with externalTrafficPolicy Cluster", lb.Spec.HealthCheckNodePort)
	}
	optOut := svc("no-ports", corev1.ServiceTypeLoadBalancer, "80", "443:30443")
	optOut.Spec.AllocateLoadBalancerNodePorts = new(bool)
	got := nodePorts(s.mustCreate(t, optOut))
	if got[0] != 0 || got[1] != 30443 {
		t.Errorf("node ports %v, want none allocated and the requested 30443 kept", got)
	}
	if !s.portAllocated(t, 30443) {
		t.Error("30443 is not allocated")
	}
}

func TestLocalLoadBalancersGetAHealthCheckNodePort(t *testing.T) {
	s := newServer(t)
	local := svc("local", corev1.ServiceTypeLoadBalancer, "80")
	local.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
	out := s.mustCreate(t, local)
	hc := out.Spec.HealthCheckNodePort
	if hc == 0 || hc == nodePorts(out)[0] {
		t.Fatalf("healthCheckNodePort %d, node port %d: want one of its own", hc, nodePorts(out)[0])
	}
	if !s.portAllocated(t, hc) {
		t.Errorf("health check node port %d is not allocated", hc)
	}

	asked := svc("asked", corev1.ServiceTypeLoadBalancer, "80")
	asked.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
	asked.Spec.HealthCheckNodePort = hc
	_, err := s.create(t, asked)
	wantStatus(t, err, 500, fmt.Sprintf("Internal error occurred: failed to allocate requested HealthCheck NodePort %d: provided port is already allocated", hc))
	asked.Spec.HealthCheckNodePort = 31999
	if got := s.mustCreate(t, asked).Spec.HealthCheckNodePort; got != 31999 {
		t.Errorf("healthCheckNodePort %d, want the requested 31999", got)
	}

	// Back to Cluster: the health check node port goes.
	out.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyCluster
	if got := s.mustUpdate(t, out).Spec.HealthCheckNodePort; got != 0 {
		t.Errorf("healthCheckNodePort %d after switching to Cluster", got)
	}
	if s.portAllocated(t, hc) {
		t.Errorf("health check node port %d still allocated", hc)
	}
	// And back to Local: a new one.
	out = s.get(t, "local")
	out.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
	if got := s.mustUpdate(t, out).Spec.HealthCheckNodePort; got == 0 {
		t.Error("no healthCheckNodePort after switching back to Local")
	}
}

func TestAnExhaustedRangeRefusesMoreServicesUntilOneIsDeleted(t *testing.T) {
	s := newCluster("10.0.0.0/24", "30000-30002").server(t)
	taken := map[int32]bool{}
	for i := range 3 {
		p := nodePorts(s.mustCreate(t, svc(fmt.Sprintf("s%d", i), corev1.ServiceTypeNodePort, "80")))[0]
		if taken[p] {
			t.Fatalf("node port %d handed out twice", p)
		}
		taken[p] = true
	}
	_, err := s.create(t, svc("s3", corev1.ServiceTypeNodePort, "80"))
	wantStatus(t, err, 500, "Internal error occurred: failed to allocate a nodePort: range is full")

	freed := nodePorts(s.get(t, "s1"))[0]
	s.delete(t, "s1")
	if got := nodePorts(s.mustCreate(t, svc("s3", corev1.ServiceTypeNodePort, "80")))[0]; got != freed {
		t.Errorf("node port %d, want %d, the only free one", got, freed)
	}
}

func TestAnExhaustedIPRangeRefusesMoreServices(t *testing.T) {
	// A /29 has six IPs; the first is the kubernetes Service's.
	s := newCluster("10.0.0.0/29", "30000-32767").server(t)
	for i := range 5 {
		s.mustCreate(t, svc(fmt.Sprintf("s%d", i), corev1.ServiceTypeClusterIP, "80"))
	}
	_, err := s.create(t, svc("s5", corev1.ServiceTypeClusterIP, "80"))
	wantStatus(t, err, 500, "Internal error occurred: failed to allocate a serviceIP: range is full")
}

func TestChangingTheTypeAllocatesAndReleases(t *testing.T) {
	s := newServer(t)
	out := s.mustCreate(t, svc("web", corev1.ServiceTypeClusterIP, "80", "443"))
	ip := out.Spec.ClusterIP

	// ClusterIP -> NodePort: node ports for every port.
	out.Spec.Type = corev1.ServiceTypeNodePort
	out = s.mustUpdate(t, out)
	np := nodePorts(out)
	for _, p := range np {
		if p == 0 || !s.portAllocated(t, p) {
			t.Fatalf("node ports %v after the change to NodePort, want them allocated", np)
		}
	}
	if out.Spec.ExternalTrafficPolicy != corev1.ServiceExternalTrafficPolicyCluster {
		t.Errorf("externalTrafficPolicy %q, want Cluster", out.Spec.ExternalTrafficPolicy)
	}

	// NodePort -> ClusterIP, sending back what was read: the node ports
	// are cleared and released.
	out.Spec.Type = corev1.ServiceTypeClusterIP
	out = s.mustUpdate(t, out)
	if got := nodePorts(out); got[0] != 0 || got[1] != 0 {
		t.Errorf("node ports %v after the change to ClusterIP", got)
	}
	if out.Spec.ExternalTrafficPolicy != "" {
		t.Errorf("externalTrafficPolicy %q after the change to ClusterIP", out.Spec.ExternalTrafficPolicy)
	}
	for _, p := range np {
		if s.portAllocated(t, p) {
			t.Errorf("node port %d still allocated", p)
		}
	}
	if out.Spec.ClusterIP != ip || s.ipOwner(t, ip) != "default/web" {
		t.Errorf("cluster IP %s (reserved for %q), want %s kept", out.Spec.ClusterIP, s.ipOwner(t, ip), ip)
	}

	// ClusterIP -> ExternalName: the cluster IP and its fields go.
	out.Spec.Type = corev1.ServiceTypeExternalName
	out.Spec.ExternalName = "example.com"
	out = s.mustUpdate(t, out)
	if out.Spec.ClusterIP != "" || out.Spec.ClusterIPs != nil || out.Spec.IPFamilies != nil || out.Spec.IPFamilyPolicy != nil {
		t.Errorf("ExternalName service kept clusterIP %q, clusterIPs %v, ipFamilies %v, ipFamilyPolicy %v",
			out.Spec.ClusterIP, out.Spec.ClusterIPs, out.Spec.IPFamilies, out.Spec.IPFamilyPolicy)
	}
	if owner := s.ipOwner(t, ip); owner != "" {
		t.Errorf("cluster IP %s still reserved for %q", ip, owner)
	}

	// ExternalName -> ClusterIP: a cluster IP again.
	out.Spec.Type = corev1.ServiceTypeClusterIP
	out = s.mustUpdate(t, out)
	if out.Spec.ClusterIP == "" || s.ipOwner(t, out.Spec.ClusterIP) != "default/web" {
		t.Errorf("cluster IP %q after the change to ClusterIP, want one reserved", out.Spec.ClusterIP)
	}
	if len(out.Spec.IPFamilies) != 1 || out.Spec.IPFamilyPolicy == nil || *out.Spec.IPFamilyPolicy != corev1.IPFamilyPolicySingleStack {
		t.Errorf("ipFamilies %v, ipFamilyPolicy %v", out.Spec.IPFamilies, out.Spec.IPFamilyPolicy)
	}

	// ExternalName -> LoadBalancer in one step: IP and node ports.
	out.Spec.Type = corev1.ServiceTypeExternalName
	out = s.mustUpdate(t, out)
	out.Spec.Type = corev1.ServiceTypeLoadBalancer
	out = s.mustUpdate(t, out)
	if out.Spec.ClusterIP == "" || nodePorts(out)[0] == 0 {
		t.Errorf("LoadBalancer with cluster IP %q and node ports %v", out.Spec.ClusterIP, nodePorts(out))
	}
}

func TestChangingPortsAllocatesAndReleasesNodePorts(t *testing.T) {
	s := newServer(t)
	out := s.mustCreate(t, svc("web", corev1.ServiceTypeNodePort, "80", "443"))
	np := nodePorts(out)

	// Drop the second port, add a third, move the first to 30080.
	out.Spec.Ports = []corev1.ServicePort{out.Spec.Ports[0], {Name: "p2", Port: 8080}}
	out.Spec.Ports[0].NodePort = 30080
	out = s.mustUpdate(t, out)
	got := nodePorts(out)
	if got[0] != 30080 || got[1] == 0 {
		t.Fatalf("node ports %v, want 30080 and an allocated one", got)
	}
	for _, p := range got {
		if !s.portAllocated(t, p) {
			t.Errorf("node port %d is not allocated", p)
		}
	}
	for _, p := range np {
		if s.portAllocated(t, p) {
			t.Errorf("node port %d of the old ports still allocated", p)
		}
	}
}

func TestSendingTheSameManifestAgainKeepsWhatWasAllocated(t *testing.T) {
	s := newServer(t)
	manifest := svc("web", corev1.ServiceTypeNodePort, "80", "443")
	manifest.Spec.Type = corev1.ServiceTypeLoadBalancer
	manifest.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
	scheme.Scheme.Default(manifest)
	created := s.mustCreate(t, manifest)
	// kubectl replace: the manifest has no clusterIP, node ports or
	// health check node port.
	again := s.mustUpdate(t, manifest)
	if again.Spec.ClusterIP != created.Spec.ClusterIP || fmt.Sprint(nodePorts(again)) != fmt.Sprint(nodePorts(created)) ||
		again.Spec.HealthCheckNodePort != created.Spec.HealthCheckNodePort {
		t.Errorf("after replace: clusterIP %s, node ports %v, healthCheckNodePort %d; want %s, %v, %d",
			again.Spec.ClusterIP, nodePorts(again), again.Spec.HealthCheckNodePort,
			created.Spec.ClusterIP, nodePorts(created), created.Spec.HealthCheckNodePort)
	}
}

func TestAFailedUpdateGivesBackWhatItReserved(t *testing.T) {
	s := newServer(t)
	out := s.mustCreate(t, svc("web", corev1.ServiceTypeClusterIP, "80"))
	out.Spec.Type = corev1.ServiceTypeNodePort
	out.Spec.Ports[0].NodePort = 30080
	out.Spec.Selector = map[string]string{"bad key": "x"}
	if _, err := s.update(t, out); !apierrors.IsInvalid(err) {
		t.Fatalf("got %v, want the invalid selector refused", err)
	}
	if s.portAllocated(t, 30080) {
		t.Error("30080 allocated by a refused update")
	}
	if got := s.get(t, "web"); got.Spec.Type != corev1.ServiceTypeClusterIP {
		t.Errorf("type %s after a refused update", got.Spec.Type)
	}

	// An update refused for another port keeps the old ones.
	np := s.mustCreate(t, svc("other", corev1.ServiceTypeNodePort, "80:30081"))
	np.Spec.Ports = append(np.Spec.Ports, corev1.ServicePort{Name: "b", Port: 81, NodePort: 30082})
	np.Spec.Ports[0].Name = "a"
	blocker := s.mustCreate(t, svc("blocker", corev1.ServiceTypeNodePort, "80:30082"))
	_, err := s.update(t, np)
	wantStatus(t, err, 422, `Service "other" is invalid: spec.ports[1].nodePort: Invalid value: 30082: provided port is already allocated`)
	if !s.portAllocated(t, 30081) || !s.portAllocated(t, 30082) || blocker.Spec.Ports[0].NodePort != 30082 {
		t.Errorf("30081 allocated: %v, 30082 allocated: %v", s.portAllocated(t, 30081), s.portAllocated(t, 30082))
	}
}

func TestAFailedCreateGivesBackWhatItReserved(t *testing.T) {
	s := newServer(t)
	bad := svc("bad", corev1.ServiceTypeNodePort, "80:30080")
	bad.Spec.Selector = map[string]string{"bad key": "x"}
	if _, err := s.create(t, bad); !apierrors.IsInvalid(err) {
		t.Fatalf("got %v, want the invalid selector refused", err)
	}
	if n := s.countReservations(t); n != 0 {
		t.Errorf("%d reservations left by a refused create", n)
	}
	if _, err := s.create(t, svc("good", corev1.ServiceTypeNodePort, "80:30080")); err != nil {
		t.Errorf("30080 is not free after a refused create: %v", err)
	}
}

func TestDeletingAServiceReleasesWhatItHeld(t *testing.T) {
	s := newServer(t)
	lb := svc("lb", corev1.ServiceTypeLoadBalancer, "80", "443")
	lb.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
	s.mustCreate(t, lb)
	s.delete(t, "lb")
	if n := s.countReservations(t); n != 0 {
		t.Errorf("%d reservations left after the delete", n)
	}
}

func TestADryRunReservesNothingButReportsConflicts(t *testing.T) {
	s := newServer(t)
	dry := &metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	out, err := s.createWith(t, svc("dry", corev1.ServiceTypeNodePort, "80"), dry)
	if err != nil {
		t.Fatal(err)
	}
	if out.Spec.ClusterIP == "" || nodePorts(out)[0] == 0 {
		t.Errorf("dry run answered clusterIP %q, node ports %v: want them filled in", out.Spec.ClusterIP, nodePorts(out))
	}
	if n := s.countReservations(t); n != 0 {
		t.Errorf("a dry run left %d reservations", n)
	}

	s.mustCreate(t, svc("real", corev1.ServiceTypeNodePort, "80:30080"))
	_, err = s.createWith(t, svc("dry", corev1.ServiceTypeNodePort, "80:30080"), dry)
	wantStatus(t, err, 422, `Service "dry" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated`)

	// A dry-run update to NodePort neither reserves nor releases.
	cip := s.mustCreate(t, svc("cip", corev1.ServiceTypeClusterIP, "80"))
	cip.Spec.Type = corev1.ServiceTypeNodePort
	cip.Spec.Ports[0].NodePort = 30081
	if _, err := s.update(t, cip, metav1.DryRunAll); err != nil {
		t.Fatal(err)
	}
	if s.portAllocated(t, 30081) {
		t.Error("a dry-run update allocated 30081")
	}
	cip.Spec.Ports[0].NodePort = 30080
	_, err = s.update(t, cip, metav1.DryRunAll)
	wantStatus(t, err, 422, `Service "cip" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated`)
	real := s.get(t, "real")
	real.Spec.Type = corev1.ServiceTypeClusterIP
	if _, err := s.update(t, real, metav1.DryRunAll); err != nil {
		t.Fatal(err)
	}
	if !s.portAllocated(t, 30080) {
		t.Error("a dry-run update released 30080")
	}
	if _, _, err := s.Delete(nsContext(), "real", nil, &metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
		t.Fatal(err)
	}
	if !s.portAllocated(t, 30080) {
		t.Error("a dry-run delete released 30080")
	}
}

func TestAnIPv6ClusterGivesIPv6ClusterIPs(t *testing.T) {
	s := newCluster("fd00:10:96::/112", "30000-32767").server(t)
	out := s.mustCreate(t, svc("six", corev1.ServiceTypeNodePort, "80"))
	ip, err := netip.ParseAddr(out.Spec.ClusterIP)
	if err != nil || !netip.MustParsePrefix("fd00:10:96::/112").Contains(ip) {
		t.Errorf("clusterIP %q is not in fd00:10:96::/112", out.Spec.ClusterIP)
	}
	if fmt.Sprint(out.Spec.IPFamilies) != "[IPv6]" {
		t.Errorf("ipFamilies %v, want [IPv6]", out.Spec.IPFamilies)
	}
	if owner := s.ipOwner(t, out.Spec.ClusterIP); owner != "default/six" {
		t.Errorf("%s reserved for %q", out.Spec.ClusterIP, owner)
	}
}

func TestAClusterIPConflictNamesTheClusterIPs(t *testing.T) {
	s := newServer(t)
	taken := s.mustCreate(t, svc("a", corev1.ServiceTypeClusterIP, "80")).Spec.ClusterIP
	b := svc("b", corev1.ServiceTypeClusterIP, "80")
	b.Spec.ClusterIP = taken
	_, err := s.create(t, b)
	wantStatus(t, err, 422, fmt.Sprintf(`Service "b" is invalid: spec.clusterIPs: Invalid value: [%q]: failed to allocate IP %s: provided IP is already allocated`, taken, taken))
}

func TestAPutOfAMissingServiceCreatesIt(t *testing.T) {
	s := newServer(t)
	out, err := s.update(t, svc("new", corev1.ServiceTypeNodePort, "80"))
	if err != nil {
		t.Fatal(err)
	}
	if s.ipOwner(t, out.Spec.ClusterIP) != "default/new" || !s.portAllocated(t, nodePorts(out)[0]) {
		t.Errorf("created by PUT with clusterIP %s and node port %d, not both reserved", out.Spec.ClusterIP, nodePorts(out)[0])
	}
}

func TestAGeneratedNameOwnsTheReservations(t *testing.T) {
	s := newServer(t)
	gen := svc("", corev1.ServiceTypeNodePort, "80")
	gen.GenerateName = "gen-"
	out := s.mustCreate(t, gen)
	if owner := s.ipOwner(t, out.Spec.ClusterIP); owner != "default/"+out.Name {
		t.Errorf("cluster IP reserved for %q, want default/%s", owner, out.Name)
	}
	if !s.portAllocated(t, nodePorts(out)[0]) {
		t.Errorf("node port %d is not allocated", nodePorts(out)[0])
	}
}

// leakPort allocates a node port as a request does before it writes its
// Service, for a Service that is never written: its server died.
func (s *server) leakPort(t *testing.T, port int) {
	t.Helper()
	if err := s.NodePorts().Allocate(context.Background(), port, false); err != nil {
		t.Fatal(err)
	}
}

func (s *server) orphanIP(t *testing.T, ip string, owner string, age time.Duration) {
	t.Helper()
	s.ips.Table().Now = func() time.Time { return time.Now().Add(-age) }
	defer func() { s.ips.Table().Now = nil }()
	if err := s.ips.Allocate(nsContext(), netip.MustParseAddr(ip), serviceOwner("default", owner), false); err != nil {
		t.Fatal(err)
	}
}

func TestIPReservationsNobodyUsesAreReclaimedAfterTheGracePeriod(t *testing.T) {
	s := newServer(t)
	// A server died between reserving and writing the Service, an hour
	// ago: the IP is free to take.
	s.orphanIP(t, "10.0.0.80", "ghost", time.Hour)
	asked := svc("asked", corev1.ServiceTypeClusterIP, "80")
	asked.Spec.ClusterIP = "10.0.0.80"
	s.mustCreate(t, asked)
	if s.ipOwner(t, "10.0.0.80") != "default/asked" {
		t.Errorf("10.0.0.80 reserved for %q", s.ipOwner(t, "10.0.0.80"))
	}

	// A young one may belong to a request still in flight.
	s.orphanIP(t, "10.0.0.81", "in-flight", time.Second)
	young := svc("young", corev1.ServiceTypeClusterIP, "80")
	young.Spec.ClusterIP = "10.0.0.81"
	if _, err := s.create(t, young); !apierrors.IsInvalid(err) {
		t.Errorf("took a young reservation: %v", err)
	}
}

// A node port allocated by a request whose Service was never written is
// held by no Service: the repair frees it on its third pass in a row
// that finds it so, as kube-apiserver's does, and not before, since the
// Service of a request in flight may be about to be written.
func TestALeakedNodePortIsFreedOnTheThirdRepair(t *testing.T) {
	s := newServer(t)
	s.leakPort(t, 30080)
	asked := svc("asked", corev1.ServiceTypeNodePort, "80:30080")
	for pass := 1; pass <= portallocator.LeakPasses; pass++ {
		_, err := s.create(t, asked)
		wantStatus(t, err, 422, `Service "asked" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated`)
		rep, err := s.Repair(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		want := portallocator.RepairReport{}
		switch pass {
		case 1:
			want.Flagged = []int{30080}
		case portallocator.LeakPasses:
			want.Released = []int{30080}
		}
		if diff := cmp.Diff(want, rep.NodePorts); diff != "" {
			t.Errorf("repair pass %d (-want +got):\n%s", pass, diff)
		}
	}
	s.mustCreate(t, asked)
}

// A port a Service holds is never a leak, however many passes see it.
func TestAHeldNodePortIsNeverFreedByTheRepair(t *testing.T) {
	s := newServer(t)
	s.mustCreate(t, svc("user", corev1.ServiceTypeNodePort, "80:30082"))
	for range portallocator.LeakPasses + 1 {
		rep, err := s.Repair(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(portallocator.RepairReport{}, rep.NodePorts); diff != "" {
			t.Errorf("repair (-want +got):\n%s", diff)
		}
	}
	if _, err := s.create(t, svc("thief", corev1.ServiceTypeNodePort, "80:30082")); !apierrors.IsInvalid(err) {
		t.Errorf("took 30082 from its Service: %v", err)
	}
}

func TestAFullRangeGetsItsLeakedPortBackAfterTheRepairs(t *testing.T) {
	s := newCluster("10.0.0.0/24", "30000-30001").server(t)
	held := nodePorts(s.mustCreate(t, svc("user", corev1.ServiceTypeNodePort, "80")))[0]
	free := 30000 + 30001 - held
	s.leakPort(t, int(free))
	_, err := s.create(t, svc("heir", corev1.ServiceTypeNodePort, "80"))
	wantStatus(t, err, 500, "Internal error occurred: failed to allocate a nodePort: range is full")
	for range portallocator.LeakPasses {
		if _, err := s.Repair(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if got := nodePorts(s.mustCreate(t, svc("heir", corev1.ServiceTypeNodePort, "80")))[0]; got != free {
		t.Errorf("node port %d, want the leaked %d", got, free)
	}
}

// serviceOwner names a Service of namespace ns.
func serviceOwner(ns, name string) ipallocator.Owner {
	return ipallocator.Owner{Namespace: ns, Name: name}
}

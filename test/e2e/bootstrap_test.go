package e2e

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	clientv3 "go.etcd.io/etcd/client/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/pkg/controlplane/identitylease"
	"github.com/kapi-dev/kapi/pkg/testserver"
)

// The address and port the oracle advertised when the objects of
// testdata/bootstrap were recorded, and the host it ran on.
const (
	oracleAddress = "192.0.2.2"
	oraclePort    = 16543
	oracleHost    = "vm"
)

// TestBootstrapObjectsMatchKubeAPIServer: the objects kapi bootstraps are
// kube-apiserver's field by field, managedFields included: the kubernetes
// Endpoints and EndpointSlice, the system PriorityClasses and the identity
// Lease (testdata/bootstrap, read from kube-apiserver 1.37.1). What
// differs by nature is replaced on both sides: uids, resourceVersions,
// times, the port and the host name, the UUID of the lease holder.
func TestBootstrapObjectsMatchKubeAPIServer(t *testing.T) {
	s := testserver.Start(t, testserver.Options{AdvertiseAddress: net.ParseIP(oracleAddress)})
	_, portText, _ := net.SplitHostPort(s.Address)
	port, _ := strconv.Atoi(portText)
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	c := clientset(t, s.ClientConfig)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	for file, path := range map[string]string{
		"endpoints-kubernetes.json":                  "/api/v1/namespaces/default/endpoints/kubernetes",
		"endpointslice-kubernetes.json":              "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes",
		"priorityclass-system-node-critical.json":    "/apis/scheduling.k8s.io/v1/priorityclasses/system-node-critical",
		"priorityclass-system-cluster-critical.json": "/apis/scheduling.k8s.io/v1/priorityclasses/system-cluster-critical",
		"lease-apiserver-identity.json":              "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/" + identitylease.Name(host),
	} {
		t.Run(file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "bootstrap", file))
			if err != nil {
				t.Fatal(err)
			}
			// The recording was made on oracleHost at oraclePort: put
			// this host and port in its place.
			text := strings.ReplaceAll(string(data), identitylease.Name(oracleHost), identitylease.Name(host))
			text = strings.ReplaceAll(text, `"kubernetes.io/hostname": "`+oracleHost+`"`, `"kubernetes.io/hostname": "`+host+`"`)
			text = strings.ReplaceAll(text, oracleAddress+":"+strconv.Itoa(oraclePort), oracleAddress+":"+strconv.Itoa(port))
			text = strings.ReplaceAll(text, `"port": `+strconv.Itoa(oraclePort), `"port": `+strconv.Itoa(port))
			var want map[string]any
			if err := json.Unmarshal([]byte(text), &want); err != nil {
				t.Fatal(err)
			}
			// The identity lease is written in the background.
			var raw []byte
			for {
				raw, err = c.RESTClient().Get().AbsPath(path).DoRaw(ctx)
				if err == nil || !apierrors.IsNotFound(err) || ctx.Err() != nil {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(normaliseBootstrapObject(t, want), normaliseBootstrapObject(t, got)); diff != "" {
				t.Errorf("%s differs from kube-apiserver's (-kube-apiserver +kapi):\n%s", path, diff)
			}
		})
	}
}

var holderIdentity = regexp.MustCompile(`^(apiserver-[a-z2-7]{26})_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// normaliseBootstrapObject blanks what differs between any two servers:
// the uid, resourceVersion and times, and the UUID of a lease holder
// (checked to be one).
func normaliseBootstrapObject(t *testing.T, obj map[string]any) map[string]any {
	t.Helper()
	meta := obj["metadata"].(map[string]any)
	for _, k := range []string{"uid", "resourceVersion", "creationTimestamp"} {
		if _, ok := meta[k]; !ok {
			t.Errorf("metadata.%s missing", k)
		}
		meta[k] = "<" + k + ">"
	}
	for _, mf := range meta["managedFields"].([]any) {
		mf.(map[string]any)["time"] = "<time>"
	}
	if spec, ok := obj["spec"].(map[string]any); ok && obj["kind"] == "Lease" {
		m := holderIdentity.FindStringSubmatch(spec["holderIdentity"].(string))
		if m == nil {
			t.Errorf("holderIdentity %q is not <lease name>_<uuid>", spec["holderIdentity"])
		} else {
			spec["holderIdentity"] = m[1] + "_<uuid>"
		}
		spec["renewTime"] = "<renewTime>"
	}
	return obj
}

// TestKubernetesEndpointsFollowReplicas runs two kapi replicas on one etcd:
// the kubernetes Endpoints and EndpointSlice list both, each holding a
// lease under /registry/masterleases; a replica that stops leaves them; a
// replica that dies (its lease left to expire) is dropped when its lease
// runs out; and deleted endpoints and Service are put back.
func TestKubernetesEndpointsFollowReplicas(t *testing.T) {
	etcd, etcdURL := startEtcd(t)
	start := func(ip string) *testserver.Server {
		return testserver.Start(t, testserver.Options{
			EtcdServers: []string{etcdURL}, AdvertiseAddress: net.ParseIP(ip),
			EndpointReconcileInterval: 200 * time.Millisecond,
		})
	}
	a := start("192.0.2.10")
	b := start("192.0.2.11")
	cfg := rest.CopyConfig(a.ClientConfig)
	cfg.WarningHandler = rest.NoWarnings{} // Endpoints are deprecated
	c := clientset(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, portA, _ := net.SplitHostPort(a.Address)

	waitForEndpoints(ctx, t, c, "192.0.2.10", "192.0.2.11")
	resp, err := etcd.Get(ctx, "/registry/masterleases/", clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, kv := range resp.Kvs {
		keys = append(keys, string(kv.Key))
		ttl, err := etcd.TimeToLive(ctx, clientv3.LeaseID(kv.Lease))
		if err != nil || ttl.TTL <= 0 || ttl.TTL > 15 {
			t.Errorf("%s: lease TTL %v (%v), want at most 15s", kv.Key, ttl, err)
		}
	}
	if want := []string{"/registry/masterleases/192.0.2.10", "/registry/masterleases/192.0.2.11"}; !slices.Equal(keys, want) {
		t.Errorf("lease keys %v, want %v", keys, want)
	}

	// A replica that shuts down leaves the endpoints at once.
	if err := b.Stop(); err != nil {
		t.Fatal(err)
	}
	waitForEndpoints(ctx, t, c, "192.0.2.10")

	// A replica that dies stops refreshing its lease; when etcd drops it,
	// the next reconcile drops the address. The lease is one
	// kube-apiserver wrote (its address changed): kapi reads its format.
	grant, err := etcd.Grant(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	lease, err := os.ReadFile(filepath.Join("testdata", "bootstrap", "masterlease-192.0.2.3.pb"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := etcd.Put(ctx, "/registry/masterleases/192.0.2.3", string(lease), clientv3.WithLease(grant.ID)); err != nil {
		t.Fatal(err)
	}
	waitForEndpoints(ctx, t, c, "192.0.2.10", "192.0.2.3")
	waitForEndpoints(ctx, t, c, "192.0.2.10")

	// What is deleted comes back.
	if err := c.CoreV1().Endpoints("default").Delete(ctx, "kubernetes", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := c.DiscoveryV1().EndpointSlices("default").Delete(ctx, "kubernetes", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := c.CoreV1().Services("default").Delete(ctx, "kubernetes", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForEndpoints(ctx, t, c, "192.0.2.10")
	for {
		svc, err := c.CoreV1().Services("default").Get(ctx, "kubernetes", metav1.GetOptions{})
		if err == nil {
			if got := svc.Spec.Ports[0].TargetPort.String(); got != portA {
				t.Errorf("recreated service targets %s, want %s", got, portA)
			}
			break
		}
		if !apierrors.IsNotFound(err) || ctx.Err() != nil {
			t.Fatalf("the kubernetes service did not come back: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitForEndpoints waits until the kubernetes Endpoints and EndpointSlice
// list exactly ips (sorted), with the https port.
func waitForEndpoints(ctx context.Context, t *testing.T, c kubernetes.Interface, ips ...string) {
	t.Helper()
	var last string
	for {
		ep, err1 := c.CoreV1().Endpoints("default").Get(ctx, "kubernetes", metav1.GetOptions{})
		slice, err2 := c.DiscoveryV1().EndpointSlices("default").Get(ctx, "kubernetes", metav1.GetOptions{})
		if err1 == nil && err2 == nil && len(ep.Subsets) == 1 && len(ep.Subsets[0].Ports) == 1 && ep.Subsets[0].Ports[0].Name == "https" &&
			len(slice.Ports) == 1 && *slice.Ports[0].Name == "https" && *slice.Ports[0].Port == ep.Subsets[0].Ports[0].Port {
			var got, gotSlice []string
			for _, a := range ep.Subsets[0].Addresses {
				got = append(got, a.IP)
			}
			for _, e := range slice.Endpoints {
				gotSlice = append(gotSlice, e.Addresses...)
			}
			if slices.Equal(got, ips) && slices.Equal(gotSlice, ips) {
				return
			}
			last = strings.Join(got, ",") + " / slice " + strings.Join(gotSlice, ",")
		} else {
			last = "errors " + errString(err1) + " " + errString(err2)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the kubernetes endpoints never listed %v; last %s", ips, last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// TestKubectlCreatePriorityClass: kubectl create priorityclass, get and
// delete against the kapi binary print what they print against
// kube-apiserver 1.37.1 (outputs recorded from the oracle).
func TestKubectlCreatePriorityClass(t *testing.T) {
	p := startKapiBinary(t, t.TempDir())
	if out := p.mustKubectl(t, "", "create", "priorityclass", "e2e-high", "--value=1000", "--description=high priority", "--preemption-policy=Never"); out != "priorityclass.scheduling.k8s.io/e2e-high created\n" {
		t.Errorf("create: %q", out)
	}
	if out := p.mustKubectl(t, "", "create", "priorityclass", "e2e-default", "--value=10", "--global-default"); out != "priorityclass.scheduling.k8s.io/e2e-default created\n" {
		t.Errorf("create --global-default: %q", out)
	}
	out := p.mustKubectl(t, "", "get", "pc")
	ageless := regexp.MustCompile(`\s+\d+[smhd]\S*\s+`).ReplaceAllString(out, " AGE ")
	want := "NAME VALUE GLOBAL-DEFAULT AGE PREEMPTIONPOLICY\n" +
		"e2e-default 10 true AGE PreemptLowerPriority\n" +
		"e2e-high 1000 false AGE Never\n" +
		"system-cluster-critical 2000000000 false AGE PreemptLowerPriority\n" +
		"system-node-critical 2000001000 false AGE PreemptLowerPriority\n"
	if got := regexp.MustCompile(` +`).ReplaceAllString(ageless, " "); got != want {
		t.Errorf("get pc:\n%s\nwant (ages and spacing aside):\n%s", out, want)
	}
	if got := p.mustKubectl(t, "", "get", "pc", "e2e-high", "-o", "jsonpath={.value}/{.preemptionPolicy}/{.description}/{.metadata.generation}"); got != "1000/Never/high priority/1" {
		t.Errorf("e2e-high is %s", got)
	}
	out, err := p.kubectl(t, "", "delete", "pc", "system-node-critical")
	if err == nil || out != `Error from server (Forbidden): priorityclasses.scheduling.k8s.io "system-node-critical" is forbidden: this is a system priority class and cannot be deleted`+"\n" {
		t.Errorf("deleting a system class: %v %q", err, out)
	}
	out, err = p.kubectl(t, "", "create", "priorityclass", "system-mine", "--value=5")
	if err == nil || out != `error: failed to create priorityclass: PriorityClass.scheduling.k8s.io "system-mine" is invalid: metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class`+"\n" {
		t.Errorf("creating a system- class: %v %q", err, out)
	}
	if out := p.mustKubectl(t, "", "delete", "pc", "e2e-high", "e2e-default"); out != "priorityclass.scheduling.k8s.io \"e2e-high\" deleted\npriorityclass.scheduling.k8s.io \"e2e-default\" deleted\n" {
		t.Errorf("delete: %q", out)
	}
}

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
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
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kapi-dev/kapi/pkg/app"
	"github.com/kapi-dev/kapi/pkg/controlplane/identitylease"
	"github.com/kapi-dev/kapi/pkg/testserver"
)

// The address and port the oracle advertised when the objects of
// testdata/bootstrap were recorded, and the host it ran on.
const (
	oracleAddress = "192.0.2.2"
	oraclePort    = 16943
	oracleHost    = "vm"
)

// bootstrapObjects are the objects a fresh kube-apiserver creates that
// are compared whole, by their file in testdata/bootstrap. The identity
// lease is named after host.
func bootstrapObjects(host string) map[string]string {
	return map[string]string{
		"service-kubernetes.json":                                             "/api/v1/namespaces/default/services/kubernetes",
		"endpoints-kubernetes.json":                                           "/api/v1/namespaces/default/endpoints/kubernetes",
		"endpointslice-kubernetes.json":                                       "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes",
		"namespace-default.json":                                              "/api/v1/namespaces/default",
		"namespace-kube-system.json":                                          "/api/v1/namespaces/kube-system",
		"namespace-kube-public.json":                                          "/api/v1/namespaces/kube-public",
		"namespace-kube-node-lease.json":                                      "/api/v1/namespaces/kube-node-lease",
		"servicecidr-kubernetes.json":                                         "/apis/networking.k8s.io/v1/servicecidrs/kubernetes",
		"ipaddress-10.96.0.1.json":                                            "/apis/networking.k8s.io/v1/ipaddresses/10.96.0.1",
		"priorityclass-system-node-critical.json":                             "/apis/scheduling.k8s.io/v1/priorityclasses/system-node-critical",
		"priorityclass-system-cluster-critical.json":                          "/apis/scheduling.k8s.io/v1/priorityclasses/system-cluster-critical",
		"lease-apiserver-identity.json":                                       "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/" + identitylease.Name(host),
		"configmap-extension-apiserver-authentication.json":                   "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication",
		"role-extension-apiserver-authentication-reader.json":                 "/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/roles/extension-apiserver-authentication-reader",
		"rolebinding-extension-apiserver-authentication-reader.json":          "/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/rolebindings/system::extension-apiserver-authentication-reader",
		"configmap-kube-apiserver-legacy-service-account-token-tracking.json": "/api/v1/namespaces/kube-system/configmaps/kube-apiserver-legacy-service-account-token-tracking",
	}
}

// startBootstrapServer starts kapi configured as the oracle was: the
// same service range, an advertised address, and a front proxy (whose
// settings kube-apiserver publishes in extension-apiserver-authentication).
func startBootstrapServer(t *testing.T) *testserver.Server {
	t.Helper()
	proxyCA := newTestCA(t, "front-proxy-ca")
	proxyCAFile := filepath.Join(t.TempDir(), "front-proxy-ca.crt")
	if err := os.WriteFile(proxyCAFile, proxyCA.pem, 0o600); err != nil {
		t.Fatal(err)
	}
	_, serviceRange, _ := net.ParseCIDR("10.96.0.0/12")
	return testserver.Start(t, testserver.Options{
		AdvertiseAddress:       net.ParseIP(oracleAddress),
		ServiceClusterIPRanges: []*net.IPNet{serviceRange},
		Authentication: &app.AuthenticationConfig{RequestHeader: app.RequestHeaderConfig{
			ClientCAFile:       proxyCAFile,
			AllowedNames:       []string{"front-proxy-client"},
			UsernameHeaders:    []string{"X-Remote-User"},
			GroupHeaders:       []string{"X-Remote-Group"},
			ExtraHeadersPrefix: []string{"X-Remote-Extra-"},
		}},
	})
}

// TestBootstrapObjectsMatchKubeAPIServer: the objects kapi bootstraps are
// kube-apiserver's field by field, managedFields included: the kubernetes
// Service, Endpoints and EndpointSlice, the system namespaces, the default
// ServiceCIDR and the IPAddress of the Service, the system
// PriorityClasses, the identity Lease, the authentication ConfigMaps and
// the Role and RoleBinding that let extension servers read them
// (testdata/bootstrap, read from a fresh kube-apiserver 1.37.1). What
// differs by nature is replaced on both sides: uids, resourceVersions,
// times, the port and the host name, the UUID of the lease holder, the
// certificates and the day of the legacy token tracking.
//
// With KAPI_BOOTSTRAP_ORACLE set to the kubeconfig of a fresh oracle
// (started with --advertise-address=192.0.2.2, on oraclePort and
// oracleHost), the test writes the recordings instead.
func TestBootstrapObjectsMatchKubeAPIServer(t *testing.T) {
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	if oracle := os.Getenv("KAPI_BOOTSTRAP_ORACLE"); oracle != "" {
		recordBootstrap(t, oracle, host)
		return
	}
	s := startBootstrapServer(t)
	_, portText, _ := net.SplitHostPort(s.Address)
	port, _ := strconv.Atoi(portText)
	c := clientset(t, s.ClientConfig)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	for file, path := range bootstrapObjects(host) {
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
			text = strings.ReplaceAll(text, `"targetPort": `+strconv.Itoa(oraclePort), `"targetPort": `+strconv.Itoa(port))
			var want map[string]any
			if err := json.Unmarshal([]byte(text), &want); err != nil {
				t.Fatal(err)
			}
			// Some are written in the background.
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

// recordBootstrap writes what the oracle of kubeconfig has of the
// compared objects and of the managedFields of every object.
func recordBootstrap(t *testing.T, kubeconfig, host string) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if host != oracleHost || !strings.HasSuffix(cfg.Host, ":"+strconv.Itoa(oraclePort)) {
		t.Fatalf("the recording is made on host %q by an oracle on port %d (oracleHost, oraclePort): this is %q, %s", oracleHost, oraclePort, host, cfg.Host)
	}
	c := clientset(t, cfg)
	ctx := context.Background()
	for file, path := range bootstrapObjects(host) {
		raw, err := c.RESTClient().Get().AbsPath(path).DoRaw(ctx)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		writeIndentedJSON(t, filepath.Join("testdata", "bootstrap", file), raw)
	}
	raw, err := json.Marshal(bootstrapManagedFields(t, c, host))
	if err != nil {
		t.Fatal(err)
	}
	writeIndentedJSON(t, filepath.Join("testdata", "bootstrap", bootstrapManagedFieldsFile), raw)
}

func writeIndentedJSON(t *testing.T, file string, raw []byte) {
	t.Helper()
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", " "); err != nil {
		t.Fatal(err)
	}
	b.WriteByte('\n')
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

var (
	holderIdentity = regexp.MustCompile(`^(apiserver-[a-z2-7]{26})_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	pemCertificate = regexp.MustCompile(`^(-----BEGIN CERTIFICATE-----\n[A-Za-z0-9+/=\n]+-----END CERTIFICATE-----\n)+$`)
)

// normaliseBootstrapObject blanks what differs between any two servers:
// the uid, resourceVersion and times, the UUID of a lease holder, the
// certificates of a ConfigMap and the day the legacy token tracking
// started (each checked to be one).
func normaliseBootstrapObject(t *testing.T, obj map[string]any) map[string]any {
	t.Helper()
	meta := obj["metadata"].(map[string]any)
	for _, k := range []string{"uid", "resourceVersion", "creationTimestamp"} {
		if _, ok := meta[k]; !ok {
			t.Errorf("metadata.%s missing", k)
		}
		meta[k] = "<" + k + ">"
	}
	managed, _ := meta["managedFields"].([]any)
	if len(managed) == 0 {
		t.Errorf("no managedFields")
	}
	for _, mf := range managed {
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
	if status, ok := obj["status"].(map[string]any); ok {
		for _, c := range asSlice(status["conditions"]) {
			c.(map[string]any)["lastTransitionTime"] = "<lastTransitionTime>"
		}
	}
	if data, ok := obj["data"].(map[string]any); ok && obj["kind"] == "ConfigMap" {
		for k, v := range data {
			switch {
			case strings.HasSuffix(k, "-ca-file"):
				if !pemCertificate.MatchString(v.(string)) {
					t.Errorf("data[%s] is not PEM certificates: %q", k, v)
				}
				data[k] = "<certificates>"
			case k == "since":
				if _, err := time.Parse(time.DateOnly, v.(string)); err != nil {
					t.Errorf("data[since] is not a day: %v", err)
				}
				data[k] = "<day>"
			}
		}
	}
	return obj
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// The managedFields of every object a fresh kube-apiserver has, by
// "<group/version> <resource> <namespace>/<name>" (group/version as
// discovery prefers), recorded in testdata/bootstrap.
const bootstrapManagedFieldsFile = "managedfields.json"

// bootstrapManagedFields reads the managedFields of every object the
// server of c has, times left out, the identity lease named after
// oracleHost. APIServices are left out: the recording predates them;
// TestBootstrapAPIServicesMatchKubeAPIServer compares their
// managedFields.
func bootstrapManagedFields(t *testing.T, c kubernetes.Interface, host string) map[string][]metav1.ManagedFieldsEntry {
	t.Helper()
	lists, err := c.Discovery().ServerPreferredResources()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]metav1.ManagedFieldsEntry{}
	for _, l := range lists {
		gv, _ := schema.ParseGroupVersion(l.GroupVersion)
		if gv.Group == "apiregistration.k8s.io" {
			continue
		}
		prefix := "/apis/" + l.GroupVersion
		if gv.Group == "" {
			prefix = "/api/" + l.GroupVersion
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "list") {
				continue
			}
			raw, err := c.Discovery().RESTClient().Get().AbsPath(prefix, r.Name).DoRaw(context.Background())
			if err != nil {
				t.Fatalf("listing %s: %v", r.Name, err)
			}
			var list metav1.PartialObjectMetadataList
			if err := json.Unmarshal(raw, &list); err != nil {
				t.Fatal(err)
			}
			for _, o := range list.Items {
				name := strings.ReplaceAll(o.Name, identitylease.Name(host), identitylease.Name(oracleHost))
				entries := o.ManagedFields
				for i := range entries {
					entries[i].Time = nil
				}
				out[l.GroupVersion+" "+r.Name+" "+o.Namespace+"/"+name] = entries
			}
		}
	}
	return out
}

// knownManagedFieldsDifferences are the objects whose managedFields are
// not kube-apiserver's, each with the one manager that makes the
// difference and why. Nothing else may differ.
var knownManagedFieldsDifferences = map[string]struct {
	manager, onlyIn, why string
}{}

func init() {
	// kapi aggregates ClusterRoles itself; kube-apiserver leaves it to
	// kube-controller-manager, which the oracle does not run.
	for _, role := range []string{"admin", "edit", "view"} {
		knownManagedFieldsDifferences["rbac.authorization.k8s.io/v1 clusterroles /"+role] = struct{ manager, onlyIn, why string }{
			"clusterrole-aggregation-controller", "kapi", "kapi runs the ClusterRole aggregation of kube-controller-manager"}
	}
}

// compactFields is entries with their fields in compact JSON, as the
// server sends them; the recording is indented.
func compactFields(t *testing.T, entries []metav1.ManagedFieldsEntry) []metav1.ManagedFieldsEntry {
	t.Helper()
	out := make([]metav1.ManagedFieldsEntry, len(entries))
	for i, e := range entries {
		if e.FieldsV1 != nil {
			var b bytes.Buffer
			if err := json.Compact(&b, e.FieldsV1.Raw); err != nil {
				t.Fatal(err)
			}
			e.FieldsV1 = &metav1.FieldsV1{Raw: b.Bytes()}
		}
		out[i] = e
	}
	return out
}

// TestBootstrapManagedFieldsMatchKubeAPIServer: a fresh kapi has the
// objects a fresh kube-apiserver has (APIServices aside, which kapi does
// not serve yet), each with the same managedFields: the same managers,
// operations, versions, subresources and fields, in the same order
// (testdata/bootstrap/managedfields.json). The differences kapi knows of
// are listed by object in knownManagedFieldsDifferences, and each must be
// exactly the one manager named there.
func TestBootstrapManagedFieldsMatchKubeAPIServer(t *testing.T) {
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("testdata", "bootstrap", bootstrapManagedFieldsFile))
	if err != nil {
		t.Fatal(err)
	}
	var want map[string][]metav1.ManagedFieldsEntry
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	s := startBootstrapServer(t)
	c := clientset(t, s.ClientConfig)
	// Some objects are written in the background, and some written again
	// (a FlowSchema's status): wait until kapi has it all, or for the
	// last word.
	deadline := time.Now().Add(30 * time.Second)
	for {
		problems := compareBootstrapManagedFields(t, want, bootstrapManagedFields(t, c, host))
		if len(problems) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, p := range problems {
				t.Error(p)
			}
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// compareBootstrapManagedFields says how got differs from want, but for
// knownManagedFieldsDifferences.
func compareBootstrapManagedFields(t *testing.T, want, got map[string][]metav1.ManagedFieldsEntry) []string {
	var problems []string
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if _, ok := got[k]; !ok {
			problems = append(problems, k+": kube-apiserver has it, kapi does not")
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		w, ok := want[k]
		if !ok {
			problems = append(problems, k+": kapi has it, kube-apiserver does not")
			continue
		}
		g := got[k]
		if known, ok := knownManagedFieldsDifferences[k]; ok {
			without := func(entries []metav1.ManagedFieldsEntry) []metav1.ManagedFieldsEntry {
				n := len(entries)
				entries = slices.DeleteFunc(slices.Clone(entries), func(e metav1.ManagedFieldsEntry) bool { return e.Manager == known.manager })
				if n-len(entries) != 1 {
					problems = append(problems, fmt.Sprintf("%s: %d entries of %s, the known difference is one (%s)", k, n-len(entries), known.manager, known.why))
				}
				return entries
			}
			if known.onlyIn == "kapi" {
				g = without(g)
			} else {
				w = without(w)
			}
		}
		if diff := cmp.Diff(compactFields(t, w), compactFields(t, g)); diff != "" {
			problems = append(problems, fmt.Sprintf("%s: managedFields differ (-kube-apiserver +kapi):\n%s", k, diff))
		}
	}
	return problems
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

package corpus

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kapi-dev/kapi/pkg/app"
	"github.com/kapi-dev/kapi/pkg/testserver"
)

// oracleEnv names the admin kubeconfig of the kube-apiserver to record
// from. When it is set, TestCorpus records instead of comparing.
const oracleEnv = "KAPI_CORPUS_ORACLE"

// Every case answers on kapi as it did on kube-apiserver 1.37.1. With
// KAPI_CORPUS_ORACLE set, the cases are sent to that server and its
// answers recorded instead; -run 'TestCorpus/<group>/<resource>' picks
// the cases.
func TestCorpus(t *testing.T) {
	runCorpus(t, "testdata", testserver.Options{Admission: corpusAdmission()}, nil)
}

// corpusAdmission is the admission of the corpus's kapi and of the
// kube-apiserver it is recorded from (README.md): every default plugin
// but NamespaceLifecycle is off, so that the cases record what the
// resources themselves do.
func corpusAdmission() app.AdmissionConfig {
	var off []string
	for _, name := range app.DefaultAdmissionPlugins() {
		if name != "NamespaceLifecycle" {
			off = append(off, name)
		}
	}
	return app.AdmissionConfig{Disable: off}
}

// The cases of testdata-admission answer on a kapi with kube-apiserver's
// default admission plugins as they did on a kube-apiserver 1.37.1 with
// its defaults (the shared oracle): what the plugins add to and refuse of
// each write. Recorded from a kube-apiserver with no admission flags.
func TestAdmissionCorpus(t *testing.T) {
	runCorpus(t, "testdata-admission", testserver.Options{}, nil)
}

// enabledAdmission are the admission plugins, off by default, whose
// cases are in testdata-admission-enabled; eventRateLimitConfig is
// EventRateLimit's configuration there.
var enabledAdmission = []string{"NodeRestriction", "DenyServiceExternalIPs", "OwnerReferencesPermissionEnforcement", "EventRateLimit", "NamespaceExists"}

const eventRateLimitConfig = `apiVersion: eventratelimit.admission.k8s.io/v1alpha1
kind: Configuration
limits:
  - type: Namespace
    qps: 1
    burst: 3
  - type: User
    qps: 1
    burst: 5
`

// The cases of testdata-admission-enabled answer on a kapi with the
// plugins of enabledAdmission on (and every default plugin but
// NamespaceLifecycle off, as in the registry corpus, so that the cases
// show what those plugins do) as they did on a kube-apiserver 1.37.1
// started the same way. README.md says how to start it; the test checks
// that it refuses a Service's external IPs before it records.
func TestEnabledAdmissionCorpus(t *testing.T) {
	dir := t.TempDir()
	erl := filepath.Join(dir, "eventratelimit.yaml")
	cfg := filepath.Join(dir, "admission.yaml")
	if err := os.WriteFile(erl, []byte(eventRateLimitConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n  - name: EventRateLimit\n    path: "+erl+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	admission := corpusAdmission()
	admission.Enable, admission.ConfigFile = enabledAdmission, cfg
	runCorpus(t, "testdata-admission-enabled", testserver.Options{Admission: admission}, checkEnabledAdmission)
}

// checkEnabledAdmission fails the test unless the oracle refuses a
// Service's external IPs, as DenyServiceExternalIPs does.
func checkEnabledAdmission(t *testing.T, s Server) {
	t.Helper()
	r, err := s.do(context.Background(), Step{Method: "POST", Path: "/api/v1/namespaces/default/services", Query: "dryRun=All", Body: map[string]any{
		"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": "probe"},
		"spec": map[string]any{"ports": []any{map[string]any{"port": 80}}, "externalIPs": []any{"192.0.2.1"}},
	}}, "default")
	if err != nil {
		t.Fatal(err)
	}
	if r.code != 403 {
		t.Fatalf("the oracle admits a Service's external IPs (%d): record from a kube-apiserver started with --enable-admission-plugins=%s (test/corpus/README.md)", r.code, strings.Join(enabledAdmission, ","))
	}
}

// offByDefaultPlugins are the admission plugins kube-apiserver does not
// run by default whose cases are in testdata-admission-off.
var offByDefaultPlugins = []string{"AlwaysPullImages", "PodNodeSelector", "PodTolerationRestriction", "ExtendedResourceToleration", "LimitPodHardAntiAffinityTopology"}

// The cases of testdata-admission-off answer on a kapi with the default
// admission plugins and offByDefaultPlugins, configured by
// admission-off-config.yaml, as they did on a
// kube-apiserver 1.37.1 started with the same
// --enable-admission-plugins and --admission-control-config-file.
// Recording needs such a kube-apiserver: the test checks that pods there
// get the configured cluster node selector before it records.
func TestAdmissionOffByDefaultCorpus(t *testing.T) {
	config, err := filepath.Abs("admission-off-config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	runCorpus(t, "testdata-admission-off", testserver.Options{Admission: app.AdmissionConfig{Enable: offByDefaultPlugins, ConfigFile: config}}, checkOffByDefaultOracle)
}

// checkOffByDefaultOracle checks that the oracle runs PodNodeSelector with
// the corpus's configuration: a pod created in dry run gets its selector.
func checkOffByDefaultOracle(t *testing.T, s Server) {
	t.Helper()
	post := func(path, body string) (int, []byte) {
		resp, err := s.Client.Post(s.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, data
	}
	// The pod's service account (201, or 409 when an earlier run made it).
	post("/api/v1/namespaces/default/serviceaccounts", `{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"default"}}`)
	code, body := post("/api/v1/namespaces/default/pods?dryRun=All",
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"corpus-oracle-check"},"spec":{"containers":[{"name":"c","image":"x"}]}}`)
	var pod corev1.Pod
	if err := json.Unmarshal(body, &pod); err != nil || code != 201 || pod.Spec.NodeSelector["pool"] != "general" {
		t.Fatalf("the oracle does not run PodNodeSelector as admission-off-config.yaml says (%d %s): start it with --enable-admission-plugins=%s --admission-control-config-file=<that file>", code, body, strings.Join(offByDefaultPlugins, ","))
	}
}

// dualStackRanges are the --service-cluster-ip-range of the dual-stack
// corpus, on kapi and on the kube-apiserver it is recorded from.
const dualStackRanges = "10.0.0.0/24,fd00:10:96::/112"

// The cases of testdata-dualstack answer on a dual-stack kapi
// (--service-cluster-ip-range=10.0.0.0/24,fd00:10:96::/112) as they did
// on a kube-apiserver 1.37.1 started with the same flag. Recording needs
// such a kube-apiserver: the test checks the oracle's default
// ServiceCIDR before it records.
func TestDualStackCorpus(t *testing.T) {
	var ranges []*net.IPNet
	for _, s := range strings.Split(dualStackRanges, ",") {
		_, r, err := net.ParseCIDR(s)
		if err != nil {
			t.Fatal(err)
		}
		ranges = append(ranges, r)
	}
	runCorpus(t, "testdata-dualstack", testserver.Options{ServiceClusterIPRanges: ranges, Admission: corpusAdmission()}, func(t *testing.T, s Server) {
		checkServiceCIDRs(t, s, dualStackRanges)
	})
}

// runCorpus replays the cases under root on a kapi started with opts, or
// records them from the oracle, which checkOracle (if not nil) first
// checks is configured as opts says.
func runCorpus(t *testing.T, root string, opts testserver.Options, checkOracle func(*testing.T, Server)) {
	cases := caseFiles(t, root)
	if len(cases) == 0 {
		t.Fatalf("no cases in %s", root)
	}
	oracle := os.Getenv(oracleEnv)
	var server Server
	if oracle != "" {
		server = serverFromKubeconfig(t, oracle)
		if checkOracle != nil {
			checkOracle(t, server)
		}
	} else {
		s := testserver.Start(t, opts)
		server = serverFromConfig(t, s.ClientConfig)
	}
	for _, path := range cases {
		name := strings.TrimSuffix(filepath.ToSlash(strings.TrimPrefix(path, root+string(filepath.Separator))), ".yaml")
		t.Run(name, func(t *testing.T) {
			c, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := server.Run(context.Background(), c, namespaceFor(name))
			if err != nil {
				t.Fatal(err)
			}
			if oracle != "" {
				if err := WriteRecording(path, got); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := ReadRecording(path)
			if err != nil {
				t.Fatalf("%v (record it: %s=<kube-apiserver admin kubeconfig> go test ./test/corpus -run 'TestCorpus/%s')", err, oracleEnv, name)
			}
			if len(want) != len(c.Steps) {
				t.Fatalf("the recording has %d answers for %d steps: record it again", len(want), len(c.Steps))
			}
			// Compare as JSON values: the recording was decoded from
			// JSON, the answers were not written yet.
			got = roundTrip(t, got)
			for i := range want {
				SortManagedFields(want[i].Body)
				SortManagedFields(got[i].Body)
				step := c.Steps[i]
				if diff := cmp.Diff(want[i], got[i]); diff != "" {
					t.Errorf("step %d, %s %s: kapi answers differently from kube-apiserver (-kube-apiserver +kapi):\n%s", i, step.Method, step.Path, diff)
				}
			}
		})
	}
}

// caseFiles lists the case files below root.
func caseFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".yaml") {
			out = append(out, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// namespaceFor is a fresh namespace for a case: unique, so that a case
// recorded twice on one server does not meet its earlier objects.
func namespaceFor(name string) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	base := strings.NewReplacer("/", "-", "_", "-", ".", "-").Replace(strings.ToLower(name))
	if len(base) > 40 {
		base = base[:40]
	}
	return strings.Trim("c-"+base, "-") + "-" + hex.EncodeToString(b)
}

func serverFromKubeconfig(t *testing.T, path string) Server {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatal(err)
	}
	return serverFromConfig(t, cfg)
}

func serverFromConfig(t *testing.T, cfg *rest.Config) Server {
	t.Helper()
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return Server{Client: client, URL: strings.TrimSuffix(cfg.Host, "/")}
}

// roundTrip returns answers as they read back from a recording.
func roundTrip(t *testing.T, answers []Response) []Response {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "case.yaml")
	if err := WriteRecording(path, answers); err != nil {
		t.Fatal(err)
	}
	out, err := ReadRecording(path)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkServiceCIDRs fails the test unless the server's default
// ServiceCIDR holds ranges (comma-separated): recording cases from a
// server configured otherwise would record the wrong answers.
func checkServiceCIDRs(t *testing.T, s Server, ranges string) {
	t.Helper()
	resp, err := s.Client.Get(s.URL + "/apis/networking.k8s.io/v1/servicecidrs/kubernetes")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var cidr networkingv1.ServiceCIDR
	if err := json.NewDecoder(resp.Body).Decode(&cidr); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cidr.Spec.CIDRs, ","); got != ranges {
		t.Fatalf("the oracle's default ServiceCIDR is %q, not %q: record from a kube-apiserver started with --service-cluster-ip-range=%s", got, ranges, ranges)
	}
}

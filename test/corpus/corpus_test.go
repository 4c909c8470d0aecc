package corpus

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kapi-dev/kapi/pkg/app"
	"github.com/kapi-dev/kapi/pkg/cmd"
	"github.com/kapi-dev/kapi/pkg/testserver"
)

// oracleEnv names the admin kubeconfig of the kube-apiserver to record
// from. When it is set, TestCorpus records instead of comparing.
const oracleEnv = "KAPI_CORPUS_ORACLE"

// A root is a directory of cases and the configuration they were
// recorded under: kapi replays them started with it, and the
// kube-apiserver 1.37.1 they are recorded from must have run with the
// same flags. Each root is declared once, by the test that replays it.
type root struct {
	dir       string
	admission app.AdmissionConfig
	// options are kapi's other settings, oracleFlags the kube-apiserver
	// flags that match them.
	options     testserver.Options
	oracleFlags []string
	// check returns an error if the oracle is not configured as the root
	// says, before anything is recorded from it: answers of a server
	// configured otherwise would be wrong. Nil checks nothing.
	check func(Server) error
}

// Every case answers on kapi as it did on kube-apiserver 1.37.1. With
// KAPI_CORPUS_ORACLE set, the cases are sent to that server and its
// answers recorded instead; -run 'TestCorpus/<group>/<resource>' picks
// the cases. Both run every default admission plugin but
// NamespaceLifecycle off, so that the cases record what the resources
// themselves do.
func TestCorpus(t *testing.T) {
	// The oracle runs no kube-controller-manager: policies get no status.
	root{dir: "testdata", admission: defaultsBut("NamespaceLifecycle"), options: testserver.Options{DisablePolicyStatusController: true}, check: serviceAccountsAre(false)}.run(t)
}

// The cases of testdata-admission answer on a kapi with kube-apiserver's
// default admission plugins as they did on a kube-apiserver 1.37.1 with
// its defaults (the shared oracle): what the plugins add to and refuse of
// each write.
func TestAdmissionCorpus(t *testing.T) {
	root{dir: "testdata-admission", options: testserver.Options{DisablePolicyStatusController: true}, check: serviceAccountsAre(true)}.run(t)
}

// defaultsBut is the admission of cases that show what only the named
// default plugins do: every other default plugin is off.
func defaultsBut(keep ...string) app.AdmissionConfig {
	var off []string
	for _, name := range app.DefaultAdmissionPlugins() {
		if !slices.Contains(keep, name) {
			off = append(off, name)
		}
	}
	return app.AdmissionConfig{Disable: off}
}

// serviceAccountsAre returns a check that the oracle runs the
// ServiceAccount plugin (on) or not: whether it refuses a pod, in dry
// run, whose service account does not exist.
func serviceAccountsAre(on bool) func(Server) error {
	return func(s Server) error {
		r, err := s.do(context.Background(), Step{Method: "POST", Path: "/api/v1/namespaces/default/pods", Query: "dryRun=All", Body: map[string]any{
			"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "corpus-oracle-check"},
			"spec": map[string]any{"serviceAccountName": "corpus-oracle-check-missing", "containers": []any{map[string]any{"name": "c", "image": "x"}}},
		}}, "default")
		if err != nil {
			return err
		}
		if refused := r.code == 403; refused != on {
			return fmt.Errorf("a pod of a missing service account: %d, so the ServiceAccount plugin is on: %v, want %v", r.code, refused, on)
		}
		return nil
	}
}

// enabledAdmission are the admission plugins, off by default, whose
// cases are in testdata-admission-enabled.
var enabledAdmission = []string{"NodeRestriction", "DenyServiceExternalIPs", "OwnerReferencesPermissionEnforcement", "EventRateLimit", "NamespaceExists"}

// The cases of testdata-admission-enabled answer on a kapi with the
// plugins of enabledAdmission on, EventRateLimit configured by
// admission-enabled-config.yaml (and every default plugin but
// NamespaceLifecycle off, as in the registry corpus, so that the cases
// show what those plugins do) as they did on a kube-apiserver 1.37.1
// started the same way.
func TestEnabledAdmissionCorpus(t *testing.T) {
	admission := defaultsBut("NamespaceLifecycle")
	admission.Enable, admission.ConfigFile = enabledAdmission, "admission-enabled-config.yaml"
	root{dir: "testdata-admission-enabled", admission: admission, check: refusesExternalIPs}.run(t)
}

// refusesExternalIPs checks that the oracle refuses a Service's external
// IPs, as DenyServiceExternalIPs does.
func refusesExternalIPs(s Server) error {
	r, err := s.do(context.Background(), Step{Method: "POST", Path: "/api/v1/namespaces/default/services", Query: "dryRun=All", Body: map[string]any{
		"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": "probe"},
		"spec": map[string]any{"ports": []any{map[string]any{"port": 80}}, "externalIPs": []any{"192.0.2.1"}},
	}}, "default")
	if err != nil {
		return err
	}
	if r.code != 403 {
		return fmt.Errorf("it admits a Service's external IPs (%d)", r.code)
	}
	return nil
}

// offByDefaultPlugins are the admission plugins kube-apiserver does not
// run by default whose cases are in testdata-admission-off.
var offByDefaultPlugins = []string{"AlwaysPullImages", "PodNodeSelector", "PodTolerationRestriction", "ExtendedResourceToleration", "LimitPodHardAntiAffinityTopology"}

// The cases of testdata-admission-off answer on a kapi with the default
// admission plugins and offByDefaultPlugins, configured by
// admission-off-config.yaml, as they did on a kube-apiserver 1.37.1
// started with the same flags.
func TestAdmissionOffByDefaultCorpus(t *testing.T) {
	admission := app.AdmissionConfig{Enable: offByDefaultPlugins, ConfigFile: "admission-off-config.yaml"}
	root{dir: "testdata-admission-off", admission: admission, check: selectsConfiguredNodes}.run(t)
}

// selectsConfiguredNodes checks that the oracle runs PodNodeSelector with
// the corpus's configuration: a pod created in dry run gets its selector.
func selectsConfiguredNodes(s Server) error {
	ctx := context.Background()
	// The pod's service account (201, or 409 when an earlier run made it).
	if _, err := s.do(ctx, Step{Method: "POST", Path: "/api/v1/namespaces/default/serviceaccounts", Body: map[string]any{
		"apiVersion": "v1", "kind": "ServiceAccount", "metadata": map[string]any{"name": "default"},
	}}, "default"); err != nil {
		return err
	}
	r, err := s.do(ctx, Step{Method: "POST", Path: "/api/v1/namespaces/default/pods", Query: "dryRun=All", Body: map[string]any{
		"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "corpus-oracle-check"},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "x"}}},
	}}, "default")
	if err != nil {
		return err
	}
	if pool := lookup(r.body, "spec.nodeSelector.pool"); r.code != 201 || pool != "general" {
		return fmt.Errorf("a pod does not get the configured node selector (%d, pool %v)", r.code, pool)
	}
	return nil
}

// dualStackRanges are the --service-cluster-ip-range of the dual-stack
// corpus, on kapi and on the kube-apiserver it is recorded from.
const dualStackRanges = "10.0.0.0/24,fd00:10:96::/112"

// The cases of testdata-dualstack answer on a dual-stack kapi as they did
// on a kube-apiserver 1.37.1 started with the same
// --service-cluster-ip-range.
func TestDualStackCorpus(t *testing.T) {
	var ranges []*net.IPNet
	for _, s := range strings.Split(dualStackRanges, ",") {
		_, r, err := net.ParseCIDR(s)
		if err != nil {
			t.Fatal(err)
		}
		ranges = append(ranges, r)
	}
	root{
		dir: "testdata-dualstack", admission: defaultsBut("NamespaceLifecycle"),
		options:     testserver.Options{ServiceClusterIPRanges: ranges},
		oracleFlags: []string{"--service-cluster-ip-range=" + dualStackRanges},
		check:       func(s Server) error { return checkServiceCIDRs(s, dualStackRanges) },
	}.run(t)
}

// run replays the root's cases on a kapi started with its configuration,
// or records them from the oracle once check passes.
func (r root) run(t *testing.T) {
	t.Helper()
	opts := r.server(t)
	oracle := os.Getenv(oracleEnv)
	if oracle == "" {
		kapi := serverFromConfig(t, testserver.Start(t, opts).ClientConfig)
		// The check must pass on kapi too, or it checks something else
		// than the configuration.
		if r.check != nil {
			if err := r.check(kapi); err != nil {
				t.Fatalf("kapi, started as %s's cases need, fails the check of the oracle: %v", r.dir, err)
			}
		}
		runCorpus(t, r.dir, kapi, false)
		return
	}
	server := serverFromKubeconfig(t, oracle)
	if r.check != nil {
		if err := r.check(server); err != nil {
			flags := append(cmd.AdmissionFlags(opts.Admission), r.oracleFlags...)
			t.Fatalf("the oracle is not configured as %s's cases need: %v. Record from a kube-apiserver started with\n\tORACLE_FLAGS='%s'\n(test/corpus/README.md)", r.dir, err, strings.Join(flags, " "))
		}
	}
	runCorpus(t, r.dir, server, true)
}

// server is the configuration of the root's kapi, with the admission
// configuration file's path made absolute, as the oracle needs it.
func (r root) server(t *testing.T) testserver.Options {
	t.Helper()
	opts := r.options
	opts.Admission = r.admission
	if f := opts.Admission.ConfigFile; f != "" {
		abs, err := filepath.Abs(f)
		if err != nil {
			t.Fatal(err)
		}
		opts.Admission.ConfigFile = abs
	}
	return opts
}

// runCorpus replays the cases under root on server and compares its
// answers with their recordings, or, when recording, writes its answers.
func runCorpus(t *testing.T, root string, server Server, recording bool) {
	cases := caseFiles(t, root)
	if len(cases) == 0 {
		t.Fatalf("no cases in %s", root)
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
			if recording {
				if err := WriteRecording(path, got); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := ReadRecording(path)
			if err != nil {
				t.Fatalf("%v (record it: %s=<kube-apiserver admin kubeconfig> go test ./test/corpus -run '%s/%s')", err, oracleEnv, strings.Split(t.Name(), "/")[0], name)
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

// checkServiceCIDRs checks that the server's default ServiceCIDR holds
// ranges (comma-separated).
func checkServiceCIDRs(s Server, ranges string) error {
	r, err := s.do(context.Background(), Step{Method: "GET", Path: "/apis/networking.k8s.io/v1/servicecidrs/kubernetes"}, "default")
	if err != nil {
		return err
	}
	var got []string
	if cidrs, ok := lookup(r.body, "spec.cidrs").([]any); ok {
		for _, c := range cidrs {
			got = append(got, fmt.Sprint(c))
		}
	}
	if strings.Join(got, ",") != ranges {
		return fmt.Errorf("its default ServiceCIDR is %q, not %q", got, ranges)
	}
	return nil
}

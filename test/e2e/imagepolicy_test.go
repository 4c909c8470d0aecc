package e2e

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	imagepolicyv1alpha1 "k8s.io/api/imagepolicy/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/testpki"
	"github.com/kapi-dev/kapi/pkg/app"
	"github.com/kapi-dev/kapi/pkg/testserver"
)

// imagePolicyRecording holds kube-apiserver 1.37.1's answers to the
// ImagePolicyWebhook scenario, one list of steps per configuration.
const imagePolicyRecording = "testdata/imagepolicy-oracle.json"

// imagePolicyNamespace stands for the scenario's namespace in the
// recording.
const imagePolicyNamespace = "h-imagepolicy"

// imagePolicyConfig is one configuration the scenario runs under: how
// --admission-control-config-file gives the plugin its configuration
// (embedded in an AdmissionConfiguration, or the plugin's own legacy
// file) and the configuration, the kubeconfig's path left as %s.
type imagePolicyConfig struct {
	Name     string
	Embedded bool
	// ByPath embeds it by path, in a file of its own, rather than inline.
	ByPath bool
	Config string
	// Steps are the steps run under it.
	Steps func(s *imagePolicyScenario)
}

var imagePolicyConfigs = []imagePolicyConfig{
	{
		// Answers kept 5 minutes when allowed, 30 s when denied; the
		// backend's failure refuses the pod.
		Name: "embedded-fail-closed", Embedded: true,
		Config: "imagePolicy:\n  kubeConfigFile: %s\n  allowTTL: 300\n  denyTTL: 30\n  retryBackoff: 1\n  defaultAllow: false\n",
		Steps:  imagePolicyFailClosedSteps,
	},
	{
		// The plugin's own file, versioned; allowed answers are not kept;
		// the backend's failure admits the pod.
		Name:   "legacy-fail-open",
		Config: "apiVersion: imagepolicy.admission.k8s.io/v1alpha1\nkind: ImagePolicyWebhookConfiguration\nimagePolicy:\n  kubeConfigFile: %s\n  allowTTL: -1\n  retryBackoff: 1\n  defaultAllow: true\n",
		Steps:  imagePolicyFailOpenSteps,
	},
	{
		// The legacy form, unversioned, in a file the
		// AdmissionConfiguration names; denials are not kept.
		Name: "by-path-legacy", Embedded: true, ByPath: true,
		Config: "imagePolicy:\n  kubeConfigFile: %s\n  denyTTL: -1\n  retryBackoff: 1\n",
		Steps:  imagePolicyLegacySteps,
	},
}

// imagePolicyStep is what one step of the scenario saw: the answer's
// status (nil when the write succeeded), the reviews the backend
// received, the write's audit annotations from the plugin, and the
// annotations of the pod stored.
type imagePolicyStep struct {
	Step             string            `json:"step"`
	Status           *metav1.Status    `json:"status,omitempty"`
	Reviews          []backendReview   `json:"reviews,omitempty"`
	AuditAnnotations map[string]string `json:"auditAnnotations,omitempty"`
	PodAnnotations   map[string]string `json:"podAnnotations,omitempty"`
}

// backendReview is a review the backend received: the body as sent (an
// ImageReview, as generic JSON), its path and credentials.
type backendReview struct {
	Path          string         `json:"path"`
	Query         string         `json:"query"`
	Authorization string         `json:"authorization"`
	ContentType   string         `json:"contentType"`
	Body          map[string]any `json:"body"`
}

// ImagePolicyWebhook as kube-apiserver 1.37.1 runs it, under two
// configurations (embedded in an AdmissionConfiguration and the plugin's
// own versioned file): the ImageReview posted for a pod's containers and
// init containers, for its ephemeral containers, with its
// *.image-policy.k8s.io/ annotations and its namespace, with the
// kubeconfig's credentials; answers reused for allowTTL or denyTTL, or
// not at all; a backend answering 500 called five times; its refusals,
// with and without a reason, and its failures refusing the pod or
// admitting it failed open; its audit annotations; writes that are not
// of pods left alone. Each step's answer, the reviews the backend
// received, the audit annotations and the pods' annotations are compared
// with kube-apiserver's (testdata/imagepolicy-oracle.json).
//
// With KAPI_IMAGEPOLICY_ORACLE set to a private oracle's directory (its
// bin linked, as /work/shared/oracle's README says), KAPI_ORACLE_SCRIPTS
// to the directory of its start.sh and stop.sh, and ORACLE_PORT and
// ORACLE_ETCD_PORT to its ports, the test starts that oracle under each
// configuration, runs the scenario there and writes the recording.
func TestImagePolicyWebhookAsKubeAPIServer(t *testing.T) {
	backend := startImageBackend(t)
	oracle := os.Getenv("KAPI_IMAGEPOLICY_ORACLE")
	recorded := map[string][]imagePolicyStep{}
	if oracle == "" {
		data, err := os.ReadFile(imagePolicyRecording)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &recorded); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range imagePolicyConfigs {
		dir := t.TempDir()
		flags := backend.files(t, dir, c)
		var got []imagePolicyStep
		if oracle != "" {
			ns := fmt.Sprintf("%s-%d", imagePolicyNamespace, time.Now().Unix())
			got = runOracleImagePolicy(t, oracle, flags, ns, backend, c)
			recorded[c.Name] = got
			continue
		}
		audit := app.NewAuditConfig()
		audit.PolicyFile = flags.policy
		audit.Log.Path = flags.auditLog
		s, err := testserver.StartE(testserver.Options{
			Admission: app.AdmissionConfig{Enable: []string{"ImagePolicyWebhook"}, ConfigFile: flags.admission},
			Audit:     &audit,
		}, t.TempDir)
		if err != nil {
			t.Fatal(err)
		}
		sc := &imagePolicyScenario{t: t, cfg: s.ClientConfig, ns: imagePolicyNamespace, backend: backend}
		sc.run(c)
		if err := s.Stop(); err != nil {
			t.Errorf("stopping kapi: %v", err)
		}
		got = sc.finish(flags.auditLog)
		want := recorded[c.Name]
		if len(got) != len(want) {
			t.Fatalf("%s: the scenario ran %d steps, the recording has %d: record it again", c.Name, len(got), len(want))
		}
		for i := range want {
			if diff := cmp.Diff(want[i], got[i]); diff != "" {
				t.Errorf("%s: step %s differs from kube-apiserver's (-oracle +kapi):\n%s", c.Name, want[i].Step, diff)
			}
		}
	}
	if oracle != "" {
		data, err := json.MarshalIndent(recorded, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(imagePolicyRecording, append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("recorded %s", imagePolicyRecording)
	}
}

// imagePolicyFiles are the files of one configuration.
type imagePolicyFiles struct {
	admission, policy, auditLog string
}

// runOracleImagePolicy starts the oracle with the configuration, runs the
// scenario, and stops it.
func runOracleImagePolicy(t *testing.T, oracle string, files imagePolicyFiles, ns string, backend *imageBackend, c imagePolicyConfig) []imagePolicyStep {
	cfg, stop := startPrivateOracle(t, oracle, "--enable-admission-plugins=ImagePolicyWebhook --admission-control-config-file="+files.admission+
		" --audit-policy-file="+files.policy+" --audit-log-path="+files.auditLog)
	defer stop()
	sc := &imagePolicyScenario{t: t, cfg: cfg, ns: ns, backend: backend}
	sc.run(c)
	stop()
	return sc.finish(files.auditLog)
}

// startPrivateOracle starts the oracle of directory oracle (a private one,
// its bin linked, on the ports ORACLE_PORT and ORACLE_ETCD_PORT name) with
// kube-apiserver flags, by the start.sh of KAPI_ORACLE_SCRIPTS, and
// returns its admin's configuration and what stops it (once; later calls
// do nothing).
func startPrivateOracle(t *testing.T, oracle, flags string) (*rest.Config, func()) {
	scripts := os.Getenv("KAPI_ORACLE_SCRIPTS")
	if scripts == "" {
		t.Fatal("KAPI_ORACLE_SCRIPTS must name the oracle's scripts")
	}
	script := func(name string, env ...string) {
		cmd := exec.Command(filepath.Join(scripts, name))
		cmd.Env = append(os.Environ(), append(env, "ORACLE_DIR="+oracle)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
	}
	script("start.sh", "ORACLE_FLAGS="+flags)
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			script("stop.sh")
		}
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(oracle, "run", "admin.kubeconfig"))
	if err != nil {
		stop()
		t.Fatal(err)
	}
	return cfg, stop
}

// imagePolicyScenario runs the steps of one configuration against one
// server.
type imagePolicyScenario struct {
	t       *testing.T
	cfg     *rest.Config
	ns      string
	backend *imageBackend
	steps   []imagePolicyStep
	// userAgents are the user agents of the steps, to find their audit
	// events by.
	userAgents []string
}

func (s *imagePolicyScenario) run(c imagePolicyConfig) {
	ctx := context.Background()
	admin := s.client("setup")
	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: s.ns}}, metav1.CreateOptions{}); err != nil {
		s.t.Fatal(err)
	}
	if _, err := admin.CoreV1().ServiceAccounts(s.ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{}); err != nil {
		s.t.Fatal(err)
	}
	s.backend.take()
	c.Steps(s)
	if err := admin.CoreV1().Namespaces().Delete(ctx, s.ns, metav1.DeleteOptions{}); err != nil {
		s.t.Fatal(err)
	}
}

// client is a client whose requests the audit log names by step.
func (s *imagePolicyScenario) client(step string) *kubernetes.Clientset {
	cfg := rest.CopyConfig(s.cfg)
	cfg.UserAgent = "imagepolicy-e2e/" + step
	return clientset(s.t, cfg)
}

// step runs write under the step's client and records what it saw; the
// pod named, if any, is read back for its annotations.
func (s *imagePolicyScenario) step(name, pod string, write func(ctx context.Context, c *kubernetes.Clientset) error) {
	ctx := context.Background()
	c := s.client(name)
	err := write(ctx, c)
	st := imagePolicyStep{Step: name, Reviews: s.backend.take()}
	if err != nil {
		status, ok := err.(apierrors.APIStatus)
		if !ok {
			s.t.Fatalf("step %s: %v", name, err)
		}
		st.Status = ptr.To(status.Status())
	} else if pod != "" {
		p, gerr := c.CoreV1().Pods(s.ns).Get(ctx, pod, metav1.GetOptions{})
		if gerr != nil {
			s.t.Fatalf("step %s: %v", name, gerr)
		}
		st.PodAnnotations = p.Annotations
	}
	s.steps = append(s.steps, st)
	s.userAgents = append(s.userAgents, "imagepolicy-e2e/"+name)
}

func (s *imagePolicyScenario) createPod(step string, pod *corev1.Pod, opts metav1.CreateOptions) {
	name := pod.Name
	if len(opts.DryRun) > 0 {
		name = ""
	}
	s.step(step, name, func(ctx context.Context, c *kubernetes.Clientset) error {
		_, err := c.CoreV1().Pods(s.ns).Create(ctx, pod, opts)
		return err
	})
}

// imagePod is a pod with a container of each image (the first named
// "main", the rest "c1"...) and init containers of the init images.
func imagePod(name string, annotations map[string]string, images []string, initImages ...string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: annotations}}
	for i, img := range images {
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: fmt.Sprintf("c%d", i), Image: img})
	}
	for i, img := range initImages {
		p.Spec.InitContainers = append(p.Spec.InitContainers, corev1.Container{Name: fmt.Sprintf("init%d", i), Image: img})
	}
	return p
}

func imagePolicyFailClosedSteps(s *imagePolicyScenario) {
	forwarded := map[string]string{"a.image-policy.k8s.io/team": "blue", "image-policy.k8s.io/bare": "not-forwarded", "other": "x"}
	s.createPod("allowed", imagePod("allowed", forwarded, []string{"registry.example/app:1", "registry.example/sidecar:1"}, "registry.example/init:1"), metav1.CreateOptions{})
	// The same review again: the answer is reused.
	s.createPod("allowed-cached", imagePod("allowed-again", forwarded, []string{"registry.example/app:1", "registry.example/sidecar:1"}, "registry.example/init:1"), metav1.CreateOptions{})
	s.createPod("denied", imagePod("denied", nil, []string{"registry.example/app:1", "denied.example/app:1"}), metav1.CreateOptions{})
	s.createPod("denied-cached", imagePod("denied-again", nil, []string{"registry.example/app:1", "denied.example/app:1"}), metav1.CreateOptions{})
	s.createPod("denied-without-reason", imagePod("silent", nil, []string{"silent.example/app:1"}), metav1.CreateOptions{})
	s.createPod("audited", imagePod("audited", nil, []string{"audited.example/app:1"}), metav1.CreateOptions{})
	s.createPod("backend-error-retried", imagePod("error", nil, []string{"error.example/app:1"}), metav1.CreateOptions{})
	s.createPod("backend-not-json", imagePod("not-json", nil, []string{"not-json.example/app:1"}), metav1.CreateOptions{})
	s.createPod("dry-run", imagePod("dry", nil, []string{"dry.example/app:1"}), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	s.step("update-new-image-denied", "", func(ctx context.Context, c *kubernetes.Clientset) error {
		p, err := c.CoreV1().Pods(s.ns).Get(ctx, "allowed", metav1.GetOptions{})
		if err != nil {
			return err
		}
		p.Spec.Containers[0].Image = "denied.example/app:2"
		_, err = c.CoreV1().Pods(s.ns).Update(ctx, p, metav1.UpdateOptions{})
		return err
	})
	s.step("update-labels-cached", "allowed", func(ctx context.Context, c *kubernetes.Clientset) error {
		p, err := c.CoreV1().Pods(s.ns).Get(ctx, "allowed", metav1.GetOptions{})
		if err != nil {
			return err
		}
		p.Labels = map[string]string{"updated": "yes"}
		_, err = c.CoreV1().Pods(s.ns).Update(ctx, p, metav1.UpdateOptions{})
		return err
	})
	s.step("status-not-reviewed", "", func(ctx context.Context, c *kubernetes.Clientset) error {
		p, err := c.CoreV1().Pods(s.ns).Get(ctx, "allowed", metav1.GetOptions{})
		if err != nil {
			return err
		}
		p.Status.Message = "updated"
		_, err = c.CoreV1().Pods(s.ns).UpdateStatus(ctx, p, metav1.UpdateOptions{})
		return err
	})
	for _, img := range []string{"registry.example/debug:1", "denied.example/debug:1"} {
		step := "ephemeral-allowed"
		if strings.HasPrefix(img, "denied") {
			step = "ephemeral-denied"
		}
		s.step(step, "", func(ctx context.Context, c *kubernetes.Clientset) error {
			p, err := c.CoreV1().Pods(s.ns).Get(ctx, "allowed", metav1.GetOptions{})
			if err != nil {
				return err
			}
			p.Spec.EphemeralContainers = append(p.Spec.EphemeralContainers, corev1.EphemeralContainer{EphemeralContainerCommon: corev1.EphemeralContainerCommon{
				Name: fmt.Sprintf("debug%d", len(p.Spec.EphemeralContainers)), Image: img, TerminationMessagePolicy: corev1.TerminationMessageReadFile, ImagePullPolicy: corev1.PullIfNotPresent}})
			_, err = c.CoreV1().Pods(s.ns).UpdateEphemeralContainers(ctx, "allowed", p, metav1.UpdateOptions{})
			return err
		})
	}
	s.step("deployment-not-reviewed", "", func(ctx context.Context, c *kubernetes.Clientset) error {
		labels := map[string]string{"app": "d"}
		_, err := c.AppsV1().Deployments(s.ns).Create(ctx, &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "d"},
			Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "denied.example/app:3"}}},
			}},
		}, metav1.CreateOptions{})
		return err
	})
}

func imagePolicyFailOpenSteps(s *imagePolicyScenario) {
	s.createPod("failed-open", imagePod("error", map[string]string{"keep": "me"}, []string{"error.example/app:1"}), metav1.CreateOptions{})
	s.createPod("failed-open-not-json", imagePod("not-json", nil, []string{"not-json.example/app:1"}), metav1.CreateOptions{})
	s.createPod("allowed", imagePod("allowed", nil, []string{"registry.example/app:1"}), metav1.CreateOptions{})
	// allowTTL -1: the answer is not kept.
	s.createPod("allowed-not-cached", imagePod("allowed-again", nil, []string{"registry.example/app:1"}), metav1.CreateOptions{})
	s.createPod("denied", imagePod("denied", nil, []string{"denied.example/app:1"}), metav1.CreateOptions{})
	// denyTTL defaults to 30 s.
	s.createPod("denied-cached", imagePod("denied-again", nil, []string{"denied.example/app:1"}), metav1.CreateOptions{})
}

func imagePolicyLegacySteps(s *imagePolicyScenario) {
	s.createPod("denied", imagePod("denied", nil, []string{"denied.example/app:1"}), metav1.CreateOptions{})
	// denyTTL -1: the denial is not kept.
	s.createPod("denied-not-cached", imagePod("denied-again", nil, []string{"denied.example/app:1"}), metav1.CreateOptions{})
	s.createPod("too-many-requests-retried", imagePod("busy", nil, []string{"busy.example/app:1"}), metav1.CreateOptions{})
	s.createPod("not-found-not-retried", imagePod("missing", nil, []string{"missing.example/app:1"}), metav1.CreateOptions{})
	s.createPod("backend-status-forbidden", imagePod("status", nil, []string{"status.example/app:1"}), metav1.CreateOptions{})
	s.createPod("allowed-cached", imagePod("allowed", nil, []string{"registry.example/app:1"}), metav1.CreateOptions{})
	s.createPod("allowed-cached-again", imagePod("allowed-again", nil, []string{"registry.example/app:1"}), metav1.CreateOptions{})
	s.createPod("no-containers-invalid", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "empty"}}, metav1.CreateOptions{})
}

// finish adds each step's audit annotations, read from the audit log
// once the server stopped, and normalizes what differs between servers.
func (s *imagePolicyScenario) finish(auditLog string) []imagePolicyStep {
	f, err := os.Open(auditLog)
	if err != nil {
		s.t.Fatal(err)
	}
	defer f.Close()
	byAgent := map[string]map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var ev struct {
			Stage       string            `json:"stage"`
			UserAgent   string            `json:"userAgent"`
			Verb        string            `json:"verb"`
			Annotations map[string]string `json:"annotations"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			s.t.Fatal(err)
		}
		if ev.Stage != "ResponseComplete" || ev.Verb == "get" {
			continue
		}
		for k, v := range ev.Annotations {
			if strings.HasPrefix(k, "imagepolicywebhook.image-policy.k8s.io/") {
				if byAgent[ev.UserAgent] == nil {
					byAgent[ev.UserAgent] = map[string]string{}
				}
				byAgent[ev.UserAgent][k] = v
			}
		}
	}
	if err := sc.Err(); err != nil {
		s.t.Fatal(err)
	}
	for i := range s.steps {
		s.steps[i].AuditAnnotations = byAgent[s.userAgents[i]]
	}
	data, err := json.Marshal(s.steps)
	if err != nil {
		s.t.Fatal(err)
	}
	text := strings.ReplaceAll(string(data), s.ns, imagePolicyNamespace)
	text = strings.ReplaceAll(text, s.backend.host, "BACKEND")
	var out []imagePolicyStep
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		s.t.Fatal(err)
	}
	for i := range out {
		if st := out[i].Status; st != nil {
			st.ListMeta = metav1.ListMeta{}
		}
	}
	return out
}

// imageBackend is an image policy backend over HTTPS on loopback. It
// answers by the images reviewed: an image of denied.example is refused
// with a reason naming it, of silent.example without one; of
// audited.example allowed with an audit annotation; of error.example
// with HTTP 500, of not-json.example with a body that is not JSON; any
// other allowed.
type imageBackend struct {
	url, host string
	ca        []byte

	mu      sync.Mutex
	reviews []backendReview
}

func startImageBackend(t *testing.T) *imageBackend {
	ca, cert := testpki.Serving(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &imageBackend{url: "https://" + l.Addr().String(), host: l.Addr().String(), ca: ca}
	srv := &http.Server{Handler: b, TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}}, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.ServeTLS(l, "", "") }()
	t.Cleanup(func() { _ = srv.Close() })
	return b
}

func (b *imageBackend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rec := backendReview{Path: r.URL.Path, Query: r.URL.RawQuery, Authorization: r.Header.Get("Authorization"), ContentType: r.Header.Get("Content-Type")}
	_ = json.Unmarshal(body, &rec.Body)
	b.mu.Lock()
	b.reviews = append(b.reviews, rec)
	b.mu.Unlock()
	var review imagepolicyv1alpha1.ImageReview
	if err := json.Unmarshal(body, &review); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	status := imagepolicyv1alpha1.ImageReviewStatus{Allowed: true}
	for _, c := range review.Spec.Containers {
		host, _, _ := strings.Cut(c.Image, "/")
		switch host {
		case "error.example":
			http.Error(w, "backend broken", http.StatusInternalServerError)
			return
		case "busy.example":
			w.Header().Set("Retry-After", "0")
			http.Error(w, "busy", http.StatusTooManyRequests)
			return
		case "missing.example":
			http.Error(w, "no such policy", http.StatusNotFound)
			return
		case "status.example":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"policy backend says no","reason":"Forbidden","code":403}`)
			return
		case "not-json.example":
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, "not json")
			return
		case "denied.example":
			status = imagepolicyv1alpha1.ImageReviewStatus{Reason: "image " + c.Image + " is not signed"}
		case "silent.example":
			status = imagepolicyv1alpha1.ImageReviewStatus{}
		case "audited.example":
			status.AuditAnnotations = map[string]string{"checked-by": "backend", "image": c.Image}
		}
	}
	review.Status = status
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(review)
}

// take returns the reviews received since the last take.
func (b *imageBackend) take() []backendReview {
	b.mu.Lock()
	defer b.mu.Unlock()
	r := b.reviews
	b.reviews = nil
	return r
}

// files writes a configuration's files into dir: the backend's
// kubeconfig, with a token, the admission configuration, and an audit
// policy recording pods' writes at Metadata.
func (b *imageBackend) files(t *testing.T, dir string, c imagePolicyConfig) imagePolicyFiles {
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	kubeconfig := write("backend.kubeconfig", fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: backend
  cluster:
    server: %s/imagepolicy/review
    certificate-authority-data: %s
users:
- name: apiserver
  user: {token: image-policy-secret}
contexts:
- name: backend
  context: {cluster: backend, user: apiserver}
current-context: backend
`, b.url, base64.StdEncoding.EncodeToString(b.ca)))
	config := fmt.Sprintf(c.Config, kubeconfig)
	var admission string
	if c.ByPath {
		own := write("imagepolicy.yaml", config)
		admission = write("admission.yaml", "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ImagePolicyWebhook\n  path: "+own+"\n")
	} else if c.Embedded {
		indented := "    " + strings.ReplaceAll(strings.TrimSuffix(config, "\n"), "\n", "\n    ") + "\n"
		admission = write("admission.yaml", "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ImagePolicyWebhook\n  configuration:\n"+indented)
	} else {
		admission = write("imagepolicy.yaml", config)
	}
	policy := write("audit-policy.yaml", `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
  resources: [{group: "", resources: [pods, pods/ephemeralcontainers, pods/status]}, {group: apps, resources: [deployments]}]
- level: None
`)
	return imagePolicyFiles{admission: admission, policy: policy, auditLog: filepath.Join(dir, "audit.log")}
}

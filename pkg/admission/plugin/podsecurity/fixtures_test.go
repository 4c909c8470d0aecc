package podsecurity

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/podsecurity/policy"
	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/endpoints/warning"
)

// fixture is one pod of the upstream Pod Security Standards fixtures
// (testdata/upstream, see its README), at the policy versions
// [Versions[0], Versions[1]] of its level.
type fixture struct {
	Name     string     `json:"name"`
	Expect   string     `json:"expect"`
	Versions [2]string  `json:"versions"`
	Pod      corev1.Pod `json:"pod"`
}

// fixtureCase is a fixture at one version: the pod, created in a
// namespace that enforces and warns at level:version, and a Deployment
// whose template is the pod, created there too.
type fixtureCase struct {
	level, version string
	fixture        *fixture
}

func (c fixtureCase) key() string { return c.version + "/" + c.fixture.Expect + "/" + c.fixture.Name }

// answer is what a server answered to one dry-run create.
type answer struct {
	Code     int      `json:"code"`
	Message  string   `json:"message,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

type fixtureAnswers struct {
	Pod        answer `json:"pod"`
	Deployment answer `json:"deployment"`
}

// fixtureCases expands the fixtures of a level to every version they
// hold at, and those of the newest version to latest too.
func fixtureCases(t *testing.T, level string) []fixtureCase {
	data, err := os.ReadFile(filepath.Join("testdata", "upstream", level+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var fixtures []*fixture
	if err := yaml.UnmarshalStrict(data, &fixtures); err != nil {
		t.Fatal(err)
	}
	minor := func(v string) int {
		n, err := strconv.Atoi(strings.TrimPrefix(v, "v1."))
		if err != nil {
			t.Fatalf("version %q", v)
		}
		return n
	}
	var cases []fixtureCase
	for _, f := range fixtures {
		for m := minor(f.Versions[0]); m <= minor(f.Versions[1]); m++ {
			cases = append(cases, fixtureCase{level, fmt.Sprintf("v1.%d", m), f})
		}
		if minor(f.Versions[1]) == policy.MaxVersion {
			cases = append(cases, fixtureCase{level, "latest", f})
		}
	}
	return cases
}

// The pods of the upstream fixtures, created in namespaces that enforce
// and warn at each level and version, are refused with the message a
// kube-apiserver 1.37.1 gave, or admitted with its warnings; the
// Deployments made of them are admitted with its warnings.
func TestUpstreamFixturesAnswerAsKubeAPIServer(t *testing.T) {
	for _, level := range []string{"baseline", "restricted"} {
		t.Run(level, func(t *testing.T) {
			cases := fixtureCases(t, level)
			recording := filepath.Join("testdata", "upstream", level+".oracle.json")
			if kubeconfig := os.Getenv("KAPI_PODSECURITY_ORACLE"); kubeconfig != "" {
				recordFixtures(t, kubeconfig, level, cases, recording)
			}
			data, err := os.ReadFile(recording)
			if err != nil {
				t.Fatalf("no recording (record with KAPI_PODSECURITY_ORACLE=<kubeconfig>): %v", err)
			}
			var want map[string]fixtureAnswers
			if err := json.Unmarshal(data, &want); err != nil {
				t.Fatal(err)
			}
			p, err := New(Config{})
			if err != nil {
				t.Fatal(err)
			}
			compared, invalid := 0, 0
			for _, c := range cases {
				w, ok := want[c.key()]
				if !ok {
					t.Errorf("%s: not recorded", c.key())
					continue
				}
				ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "fixtures", Labels: map[string]string{
					policy.EnforceLevelLabel: level, policy.EnforceVersionLabel: c.version,
					policy.WarnLevelLabel: level, policy.WarnVersionLabel: c.version,
				}}}
				p.namespaces = staticNamespaces{ns}
				// A pod the server's validation refuses never reaches
				// admission: such fixtures (see the README) say nothing
				// of the plugin.
				if w.Pod.Code == 422 && w.Deployment.Code == 422 {
					invalid++
					continue
				}
				compared += 2
				if diff := validate(p, podAttributes(fixturePod(c.fixture))).differs(w.Pod); diff != "" {
					t.Errorf("%s: pod: %s", c.key(), diff)
				}
				if diff := validate(p, deploymentAttributes(fixtureDeployment(c.fixture))).differs(w.Deployment); diff != "" {
					t.Errorf("%s: deployment: %s", c.key(), diff)
				}
			}
			t.Logf("%d answers compared; %d fixtures invalid on the oracle", compared, invalid)
		})
	}
}

// staticNamespaces has one namespace.
type staticNamespaces struct{ ns *corev1.Namespace }

func (s staticNamespaces) GetNamespace(_ context.Context, name string) (*corev1.Namespace, error) {
	if name != s.ns.Name {
		return nil, apierrors.NewNotFound(corev1.Resource("namespaces"), name)
	}
	return s.ns, nil
}

// fixturePod is the pod the oracle was sent: named test, with the default
// service account.
func fixturePod(f *fixture) *corev1.Pod {
	pod := f.Pod.DeepCopy()
	pod.Name = "test"
	pod.Spec.ServiceAccountName = "default"
	return pod
}

// fixtureDeployment is a Deployment whose template is the fixture.
func fixtureDeployment(f *fixture) *appsv1.Deployment {
	pod := f.Pod.DeepCopy()
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Labels["test"] = "true"
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: "test"},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"test": "true"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: pod.ObjectMeta, Spec: pod.Spec},
		},
	}
}

func podAttributes(pod *corev1.Pod) *admission.Attributes {
	pod = pod.DeepCopy()
	scheme.Scheme.Default(pod)
	// The pod registry copies AppArmor annotations into the security
	// contexts before admission validates a new pod.
	core.ApplyAppArmorAnnotations(pod)
	return &admission.Attributes{
		Name: pod.Name, Namespace: "fixtures", Operation: admission.Create,
		Resource: corev1.SchemeGroupVersion.WithResource("pods"), Kind: corev1.SchemeGroupVersion.WithKind("Pod"),
		Object: pod, User: &user.DefaultInfo{Name: "admin"},
	}
}

func deploymentAttributes(d *appsv1.Deployment) *admission.Attributes {
	d = d.DeepCopy()
	scheme.Scheme.Default(d)
	return &admission.Attributes{
		Name: d.Name, Namespace: "fixtures", Operation: admission.Create,
		Resource: appsv1.SchemeGroupVersion.WithResource("deployments"), Kind: appsv1.SchemeGroupVersion.WithKind("Deployment"),
		Object: d, User: &user.DefaultInfo{Name: "admin"},
	}
}

// result is the plugin's answer to one write.
type result struct {
	err      error
	warnings []string
}

func validate(p *Plugin, a *admission.Attributes) result {
	rec := warning.NewRecorder(http.Header{})
	err := p.Validate(warning.WithRecorder(context.Background(), rec), a)
	return result{err: err, warnings: rec.Texts()}
}

// differs says how r differs from a recorded answer: the same refusal
// (code and message), or admitted with the same warnings.
func (r result) differs(want answer) string {
	if want.Code == 201 {
		if r.err != nil {
			return fmt.Sprintf("refused (%v), the oracle admitted it", r.err)
		}
	} else {
		st, ok := r.err.(apierrors.APIStatus)
		if !ok {
			return fmt.Sprintf("admitted (err %v), the oracle answered %d %q", r.err, want.Code, want.Message)
		}
		if int(st.Status().Code) != want.Code || st.Status().Message != want.Message {
			return fmt.Sprintf("got %d %q, the oracle answered %d %q", st.Status().Code, st.Status().Message, want.Code, want.Message)
		}
	}
	// The oracle's answers hold the registry's warnings too (deprecated
	// fields); the plugin's are those that say what PodSecurity would do.
	var wantWarnings []string
	for _, w := range want.Warnings {
		if strings.HasPrefix(w, "would violate PodSecurity ") {
			wantWarnings = append(wantWarnings, w)
		}
	}
	if !slices.Equal(r.warnings, wantWarnings) {
		return fmt.Sprintf("warnings %q, the oracle's %q", r.warnings, wantWarnings)
	}
	return ""
}

// recordFixtures sends every case to the kube-apiserver of kubeconfig,
// as dry-run creates in namespaces labelled for each version, and writes
// the answers to recording.
func recordFixtures(t *testing.T, kubeconfig, level string, cases []fixtureCase, recording string) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	byVersion := map[string][]fixtureCase{}
	var versions []string
	for _, c := range cases {
		if byVersion[c.version] == nil {
			versions = append(versions, c.version)
		}
		byVersion[c.version] = append(byVersion[c.version], c)
	}
	answers := map[string]fixtureAnswers{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	work := make(chan string)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for version := range work {
				got, err := recordVersion(cfg, level, version, byVersion[version])
				mu.Lock()
				if err != nil {
					t.Errorf("%s %s: %v", level, version, err)
				}
				for k, v := range got {
					answers[k] = v
				}
				mu.Unlock()
			}
		}()
	}
	for _, v := range versions {
		work <- v
	}
	close(work)
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	// One answer a line, by key: small, and a change reads as a diff.
	keys := slices.Sorted(maps.Keys(answers))
	var data []byte
	for i, k := range keys {
		line, err := json.Marshal(map[string]fixtureAnswers{k: answers[k]})
		if err != nil {
			t.Fatal(err)
		}
		sep := ","
		if i == len(keys)-1 {
			sep = ""
		}
		data = append(data, fmt.Sprintf("%s\n %s%s", map[bool]string{true: "{", false: ""}[i == 0], line[1:len(line)-1], sep)...)
	}
	data = append(data, "\n}"...)
	if err := os.WriteFile(recording, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// warnings collects the warnings of the last request.
type warnings struct{ texts []string }

func (w *warnings) HandleWarningHeader(_ int, _ string, text string) { w.texts = append(w.texts, text) }

func recordVersion(base *rest.Config, level, version string, cases []fixtureCase) (map[string]fixtureAnswers, error) {
	ctx := context.Background()
	cfg := rest.CopyConfig(base)
	w := &warnings{}
	cfg.WarningHandler = w
	cfg.QPS, cfg.Burst = -1, -1
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("psa-fixtures-%s-%s-%s", level, strings.ReplaceAll(version, ".", "-"), rand.String(5))
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
		policy.EnforceLevelLabel: level, policy.EnforceVersionLabel: version,
		policy.WarnLevelLabel: level, policy.WarnVersionLabel: version,
	}}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return nil, err
	}
	defer cs.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{})
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	if _, err := cs.CoreV1().ServiceAccounts(name).Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		return nil, err
	}
	toAnswer := func(err error) answer {
		a := answer{Code: 201, Warnings: w.texts}
		if err != nil {
			st, ok := err.(apierrors.APIStatus)
			if !ok {
				return answer{Code: -1, Message: err.Error()}
			}
			a.Code, a.Message = int(st.Status().Code), st.Status().Message
		}
		w.texts = nil
		return a
	}
	dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	out := map[string]fixtureAnswers{}
	for _, c := range cases {
		var a fixtureAnswers
		w.texts = nil
		_, err := cs.CoreV1().Pods(name).Create(ctx, fixturePod(c.fixture), dryRun)
		a.Pod = toAnswer(err)
		_, err = cs.AppsV1().Deployments(name).Create(ctx, fixtureDeployment(c.fixture), dryRun)
		a.Deployment = toAnswer(err)
		if a.Pod.Code < 0 || a.Deployment.Code < 0 {
			return nil, fmt.Errorf("%s: %s%s", c.key(), a.Pod.Message, a.Deployment.Message)
		}
		out[c.key()] = a
	}
	return out, nil
}

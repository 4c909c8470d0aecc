package corpus

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/pkg/app"
	"github.com/kapi-dev/kapi/pkg/testserver"
)

// podSecurityRoot is testdata-podsecurity: of the default admission
// plugins only NamespaceLifecycle and PodSecurity, the latter with the
// defaults and exemptions of podsecurity-admission-config.yaml, so that
// what the cases show is PodSecurity's alone. Its tests' names do not
// start with TestCorpus, so that recording the registry corpus never
// touches them.
func podSecurityRoot() root {
	admission := defaultsBut("NamespaceLifecycle", "PodSecurity")
	admission.ConfigFile = "podsecurity-admission-config.yaml"
	return root{dir: "testdata-podsecurity", admission: admission, check: enforcesBaselineByDefault}
}

// The cases of testdata-podsecurity answer on a kapi whose PodSecurity
// has defaults and exemptions as they did on a kube-apiserver 1.37.1
// started with the same flags.
func TestPodSecurityConfigCorpus(t *testing.T) {
	podSecurityRoot().run(t)
}

// enforcesBaselineByDefault checks that the oracle's PodSecurity enforces
// the configured default, baseline, on an unlabelled namespace that is
// not exempt: a privileged pod is refused for it.
func enforcesBaselineByDefault(s Server) error {
	r, err := s.do(context.Background(), Step{Method: "POST", Path: "/api/v1/namespaces/kube-public/pods", Query: "dryRun=All", Body: map[string]any{
		"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "corpus-oracle-check"},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "x", "securityContext": map[string]any{"privileged": true}}}},
	}}, "kube-public")
	if err != nil {
		return err
	}
	if msg, _ := lookup(r.body, "message").(string); r.code != 403 || !strings.Contains(msg, `violates PodSecurity "baseline:v1.30"`) {
		return fmt.Errorf("a privileged pod in kube-public: %d %q, not refused by PodSecurity's configured default", r.code, msg)
	}
	return nil
}

// podSecurityMetricsRecording holds the change of a kube-apiserver's
// pod_security_* series over one run of the testdata-podsecurity cases.
const podSecurityMetricsRecording = "testdata-podsecurity.metrics.oracle.json"

// The cases of testdata-podsecurity move kapi's pod_security_evaluations_total,
// pod_security_exemptions_total and pod_security_errors_total series as
// they moved a kube-apiserver's with the same flags (recorded as the
// change over one run, with KAPI_CORPUS_ORACLE set as for
// TestPodSecurityConfigCorpus).
func TestPodSecurityMetrics(t *testing.T) {
	oracle := os.Getenv(oracleEnv)
	var server Server
	if oracle != "" {
		server = serverFromKubeconfig(t, oracle)
	} else {
		s := testserver.Start(t, podSecurityRoot().server(t))
		server = serverFromConfig(t, s.ClientConfig)
	}
	before := podSecuritySeries(t, server)
	for _, path := range caseFiles(t, "testdata-podsecurity") {
		c, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := server.Run(context.Background(), c, namespaceFor("metrics")); err != nil {
			t.Fatal(err)
		}
	}
	after := podSecuritySeries(t, server)
	got := map[string]float64{}
	for k, v := range after {
		if d := v - before[k]; d != 0 || !hasKey(before, k) {
			got[k] = d
		}
	}
	if oracle != "" {
		data, err := json.MarshalIndent(got, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(podSecurityMetricsRecording, append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(podSecurityMetricsRecording)
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]float64
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	// Series a long-running oracle had before the run are not in its
	// recording unless they moved; kapi's are fresh, so its unmoved ones
	// (kube's series created up front) are compared as 0 if recorded.
	for k, v := range got {
		if _, ok := want[k]; !ok && v == 0 {
			delete(got, k)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pod_security_* series moved differently (-kube-apiserver +kapi):\n%s", diff)
	}
}

func hasKey(m map[string]float64, k string) bool { _, ok := m[k]; return ok }

// podSecuritySeries are the server's pod_security_* series, by name and
// labels as /metrics writes them.
func podSecuritySeries(t *testing.T, s Server) map[string]float64 {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.URL+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := s.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "pod_security_") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out
}

// podSecurityAuditRecording holds the PodSecurity annotations of a
// kube-apiserver's audit events over one run of the testdata-podsecurity
// cases.
const podSecurityAuditRecording = "testdata-podsecurity.audit.oracle.json"

// auditedRequest is one audit event of the corpus's requests: the
// request, and the annotations PodSecurity added to it.
type auditedRequest struct {
	Verb        string            `json:"verb"`
	URI         string            `json:"uri"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

var caseNamespace = regexp.MustCompile(`c-metrics-[0-9a-f]{8}`)

// The cases of testdata-podsecurity leave on kapi's audit events the
// pod-security.kubernetes.io annotations (enforce-policy,
// audit-violations, exempt, error) a kube-apiserver with the same flags
// and podsecurity-audit-policy.yaml left on its own. Recording needs,
// besides KAPI_CORPUS_ORACLE, the oracle's --audit-log-path in
// KAPI_PODSECURITY_AUDIT_LOG.
func TestPodSecurityAuditAnnotations(t *testing.T) {
	oracle := os.Getenv(oracleEnv)
	var server Server
	var logPath string
	var stop func() error
	if oracle != "" {
		server = serverFromKubeconfig(t, oracle)
		logPath = os.Getenv("KAPI_PODSECURITY_AUDIT_LOG")
		if logPath == "" {
			t.Fatal("recording needs the oracle's audit log in KAPI_PODSECURITY_AUDIT_LOG")
		}
	} else {
		audit := app.NewAuditConfig()
		audit.PolicyFile = "podsecurity-audit-policy.yaml"
		logPath = filepath.Join(t.TempDir(), "audit.log")
		audit.Log.Path = logPath
		opts := podSecurityRoot().server(t)
		opts.Audit = &audit
		s := testserver.Start(t, opts)
		server = serverFromConfig(t, s.ClientConfig)
		stop = s.Stop
	}
	offset := int64(0)
	if fi, err := os.Stat(logPath); err == nil {
		offset = fi.Size()
	}
	for _, path := range caseFiles(t, "testdata-podsecurity") {
		c, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := server.Run(context.Background(), c, namespaceFor("metrics")); err != nil {
			t.Fatal(err)
		}
	}
	if stop != nil {
		// Stopping the server flushes its audit log.
		if err := stop(); err != nil {
			t.Fatal(err)
		}
	} else {
		time.Sleep(2 * time.Second) // the oracle's log backend writes asynchronously
	}
	got := readAudited(t, logPath, offset)
	if oracle != "" {
		data, err := json.MarshalIndent(got, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(podSecurityAuditRecording, append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(podSecurityAuditRecording)
	if err != nil {
		t.Fatal(err)
	}
	var want []auditedRequest
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("PodSecurity's audit annotations differ (-kube-apiserver +kapi):\n%s", diff)
	}
}

// readAudited reads the events of the corpus's writes from an audit log,
// from offset on.
func readAudited(t *testing.T, path string, offset int64) []auditedRequest {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	var out []auditedRequest
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev struct {
			Stage       string            `json:"stage"`
			Verb        string            `json:"verb"`
			RequestURI  string            `json:"requestURI"`
			UserAgent   string            `json:"userAgent"`
			Annotations map[string]string `json:"annotations"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatal(err)
		}
		if ev.UserAgent != "corpus" || ev.Stage != "ResponseComplete" || ev.Verb == "get" || ev.Verb == "list" {
			continue
		}
		r := auditedRequest{Verb: ev.Verb, URI: caseNamespace.ReplaceAllString(ev.RequestURI, "NAMESPACE")}
		for k, v := range ev.Annotations {
			if strings.HasPrefix(k, "pod-security.kubernetes.io/") {
				if r.Annotations == nil {
					r.Annotations = map[string]string{}
				}
				r.Annotations[k] = caseNamespace.ReplaceAllString(v, "NAMESPACE")
			}
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

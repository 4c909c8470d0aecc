package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kapi-dev/kapi/pkg/app"
	"github.com/kapi-dev/kapi/pkg/testserver"
)

// policyAuditRecording is what kube-apiserver 1.37.1 answered to the
// scenario of policyAuditScenario: the warnings of the write and the
// annotations of its audit event.
const policyAuditRecording = "testdata/validatingadmissionpolicy-audit-oracle.json"

// policyAuditPolicy logs the configmaps' writes at Metadata: the level
// that carries annotations.
const policyAuditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
  - level: Metadata
    resources: [{group: "", resources: [configmaps]}]
  - level: None
`

type policyAuditAnswer struct {
	Warnings    []string          `json:"warnings"`
	Annotations map[string]string `json:"annotations"`
	// ValidationFailures is the validation_failure annotation, decoded
	// and ordered by binding and expression (kube-apiserver lists the
	// bindings in no fixed order).
	ValidationFailures []map[string]any `json:"validationFailures"`
}

const validationFailureKey = "validation.policy.admission.k8s.io/validation_failure"

// TestValidatingAdmissionPolicyAuditAnnotations: a policy's validations
// that fail under bindings with the Audit action are recorded in the
// write's audit event as kube-apiserver records them (the
// validation_failure annotation, one entry per binding and validation),
// with the policy's auditAnnotations under its name, and the Warn action
// adds its warnings. With KAPI_VAP_AUDIT_ORACLE (a kubeconfig) and
// KAPI_VAP_AUDIT_LOG (that server's audit log, written with
// policyAuditPolicy) set, the test records the oracle's answer instead.
func TestValidatingAdmissionPolicyAuditAnnotations(t *testing.T) {
	if oracle := os.Getenv("KAPI_VAP_AUDIT_ORACLE"); oracle != "" {
		cfg, err := clientcmd.BuildConfigFromFlags("", oracle)
		if err != nil {
			t.Fatal(err)
		}
		answer := policyAuditScenario(t, cfg, "vap-audit-oracle", os.Getenv("KAPI_VAP_AUDIT_LOG"), nil)
		data, _ := json.MarshalIndent(answer, "", "  ")
		if err := os.WriteFile(policyAuditRecording, append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	dir := t.TempDir()
	policyFile := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(policyFile, []byte(policyAuditPolicy), 0o600); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "audit.log")
	audit := app.NewAuditConfig()
	audit.PolicyFile = policyFile
	audit.Log.Path = logPath
	s, err := testserver.StartE(testserver.Options{Audit: &audit}, t.TempDir)
	if err != nil {
		t.Fatal(err)
	}
	got := policyAuditScenario(t, s.ClientConfig, "vap-audit", logPath, func() {
		// Stopping the server flushes the log.
		if err := s.Stop(); err != nil {
			t.Errorf("stopping kapi: %v", err)
		}
	})
	data, err := os.ReadFile(policyAuditRecording)
	if err != nil {
		t.Fatal(err)
	}
	var want policyAuditAnswer
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("kapi differs from kube-apiserver (-kube-apiserver +kapi):\n%s", diff)
	}
}

type warningsRecorder struct {
	mu   sync.Mutex
	seen []string
}

func (w *warningsRecorder) HandleWarningHeader(code int, agent, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen = append(w.seen, text)
}

func (w *warningsRecorder) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.seen
	w.seen = nil
	return out
}

// policyAuditScenario binds a policy twice (Audit; Warn and Audit) in a
// namespace of its own, waits for it to warn, creates a ConfigMap that
// fails both validations, cleans up, and returns the warnings of the
// create and the annotations of its audit event. stop, if set, runs
// before the log is read.
func policyAuditScenario(t *testing.T, cfg *rest.Config, namespace, logPath string, stop func()) policyAuditAnswer {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	warnings := &warningsRecorder{}
	cfg = rest.CopyConfig(cfg)
	cfg.WarningHandler = warnings
	cs := kubernetes.NewForConfigOrDie(cfg)
	ar := cs.AdmissionregistrationV1()
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: namespace},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{
				NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": namespace}},
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
				}}},
			},
			Validations: []admissionregistrationv1.Validation{
				{Expression: "has(object.data)", Message: "has data"},
				{Expression: "object.metadata.name.size() < 5", MessageExpression: "'name ' + object.metadata.name + ' too long'"},
			},
			AuditAnnotations: []admissionregistrationv1.AuditAnnotation{
				{Key: "name", ValueExpression: "'cm ' + object.metadata.name"},
				{Key: "empty", ValueExpression: "null"},
			},
		},
	}
	if _, err := ar.ValidatingAdmissionPolicies().Create(ctx, policy, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for name, actions := range map[string][]admissionregistrationv1.ValidationAction{
		namespace + "-a": {admissionregistrationv1.Audit},
		namespace + "-b": {admissionregistrationv1.Warn, admissionregistrationv1.Audit},
	} {
		b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: namespace, ValidationActions: actions}}
		if _, err := ar.ValidatingAdmissionPolicyBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	defer func() {
		for _, b := range []string{namespace + "-a", namespace + "-b"} {
			_ = ar.ValidatingAdmissionPolicyBindings().Delete(context.Background(), b, metav1.DeleteOptions{})
		}
		_ = ar.ValidatingAdmissionPolicies().Delete(context.Background(), namespace, metav1.DeleteOptions{})
		_ = cs.CoreV1().Namespaces().Delete(context.Background(), namespace, metav1.DeleteOptions{})
	}()
	// The policy is in effect once a dry run warns twice (both bindings).
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "longname"}}
	for {
		if _, err := cs.CoreV1().ConfigMaps(namespace).Create(ctx, cm, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
			t.Fatal(err)
		}
		if len(warnings.take()) == 2 && ctx.Err() == nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("the policy never took effect")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, err := cs.CoreV1().ConfigMaps(namespace).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	answer := policyAuditAnswer{Warnings: warnings.take()}
	if stop != nil {
		stop()
	}
	answer.Annotations = createAnnotations(t, logPath, namespace, cm.Name)
	if v, ok := answer.Annotations[validationFailureKey]; ok {
		if err := json.Unmarshal([]byte(v), &answer.ValidationFailures); err != nil {
			t.Fatalf("%s: %v", validationFailureKey, err)
		}
		sort.Slice(answer.ValidationFailures, func(i, j int) bool {
			a, b := answer.ValidationFailures[i], answer.ValidationFailures[j]
			if a["binding"] != b["binding"] {
				return a["binding"].(string) < b["binding"].(string)
			}
			return a["expressionIndex"].(float64) < b["expressionIndex"].(float64)
		})
		delete(answer.Annotations, validationFailureKey)
	}
	// The namespace's name differs between the recording and the test.
	normalised := map[string]string{}
	for k, v := range answer.Annotations {
		normalised[strings.ReplaceAll(k, namespace, "NAMESPACE")] = strings.ReplaceAll(v, namespace, "NAMESPACE")
	}
	answer.Annotations = normalised
	for i := range answer.Warnings {
		answer.Warnings[i] = strings.ReplaceAll(answer.Warnings[i], namespace, "NAMESPACE")
	}
	for _, f := range answer.ValidationFailures {
		for k, v := range f {
			if s, ok := v.(string); ok {
				f[k] = strings.ReplaceAll(s, namespace, "NAMESPACE")
			}
		}
	}
	return answer
}

// createAnnotations are the annotations of the ResponseComplete event of
// the (not dry-run) create of the ConfigMap name in namespace.
func createAnnotations(t *testing.T, logPath, namespace, name string) map[string]string {
	deadline := time.Now().Add(10 * time.Second)
	for {
		f, err := os.Open(logPath)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var ev struct {
				Stage       string            `json:"stage"`
				Verb        string            `json:"verb"`
				RequestURI  string            `json:"requestURI"`
				ObjectRef   map[string]string `json:"objectRef"`
				Annotations map[string]string `json:"annotations"`
			}
			if json.Unmarshal(sc.Bytes(), &ev) != nil {
				continue
			}
			if ev.Stage == "ResponseComplete" && ev.Verb == "create" && !strings.Contains(ev.RequestURI, "dryRun") &&
				ev.ObjectRef["namespace"] == namespace && ev.ObjectRef["name"] == name {
				f.Close()
				return ev.Annotations
			}
		}
		f.Close()
		if time.Now().After(deadline) {
			t.Fatalf("no audit event of the create of %s/%s in %s", namespace, name, logPath)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

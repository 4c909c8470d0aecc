package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// rolloutRecording is where the answers of kubectl and kube-apiserver
// 1.37.1 to the rollout scenario are kept.
const rolloutRecording = "testdata/rollout-kubectl-oracle.json"

// rolloutNamespace is the scenario's namespace. A recording runs in a
// fresh namespace of the oracle (which has no controller to delete an old
// one) and names it rolloutNamespace in what it keeps.
const rolloutNamespace = "h-rollout"

// kubectlStep is one kubectl command of a scenario and what it answered.
type kubectlStep struct {
	Args     []string `json:"args"`
	Stdin    string   `json:"stdin,omitempty"`
	ExitCode int      `json:"exitCode"`
	Output   string   `json:"output"`
}

// TestKubectlScaleAndRollout runs `kubectl scale` on a replicaset and a
// statefulset, and `kubectl rollout history/undo/pause/resume/restart` on
// a deployment, a statefulset and a daemonset, against the kapi binary,
// and compares every answer with kubectl's against kube-apiserver 1.37.1
// (testdata/rollout-kubectl-oracle.json).
//
// Neither server runs controllers, so the scenario creates what they
// would: the replicasets of the deployment's revisions and the
// controllerrevisions of the statefulset's and the daemonset's, owned by
// their workload. What remains is the API server's part: reading the
// owned objects by selector and controller reference, the patches of
// undo, pause, resume and restart, and the generation they bump.
//
// With KAPI_ROLLOUT_ORACLE set to the kubeconfig of an oracle, the test
// runs the scenario there and writes the recording instead.
func TestKubectlScaleAndRollout(t *testing.T) {
	if oracle := os.Getenv("KAPI_ROLLOUT_ORACLE"); oracle != "" {
		recordRollout(t, oracle)
		return
	}
	recorded := readKubectlRecording(t, rolloutRecording)
	p := startKapiBinary(t, t.TempDir())
	// The width of a table's AGE column depends on the ages.
	compareKubectlSteps(t, recorded, runRolloutScenario(t, p.kubeconfig, rolloutNamespace), squeezeSpaces)
}

// squeezeSpaces makes every run of spaces one space.
func squeezeSpaces(s string) string { return spacesPattern.ReplaceAllString(s, " ") }

func recordRollout(t *testing.T, kubeconfig string) {
	ns := fmt.Sprintf("%s-%d", rolloutNamespace, time.Now().Unix())
	steps := runRolloutScenario(t, kubeconfig, ns)
	for i := range steps {
		for j, arg := range steps[i].Args {
			steps[i].Args[j] = strings.ReplaceAll(arg, ns, rolloutNamespace)
		}
		steps[i].Stdin = strings.ReplaceAll(steps[i].Stdin, ns, rolloutNamespace)
		steps[i].Output = strings.ReplaceAll(steps[i].Output, ns, rolloutNamespace)
	}
	writeKubectlRecording(t, rolloutRecording, steps)
}

var (
	uidPattern  = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	timePattern = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`)
	// agePattern is the AGE column of a table.
	agePattern    = regexp.MustCompile(`\b(\d+[smhd])+\b`)
	spacesPattern = regexp.MustCompile(` +`)
)

// rolloutRun runs kubectl against one server, in the scenario's namespace,
// and keeps every command and its answer.
type rolloutRun struct {
	t          *testing.T
	kubectl    string
	kubeconfig string
	ns         string
	steps      []kubectlStep
}

// run runs kubectl and records the command with its output, in which the
// uids and times of the run are placeholders.
func (r *rolloutRun) run(stdin string, args ...string) string {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.kubectl, append([]string{"--kubeconfig", r.kubeconfig, "-n", r.ns}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	code := 0
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		r.t.Fatalf("kubectl %s: %v", strings.Join(args, " "), err)
	}
	output := timePattern.ReplaceAllString(uidPattern.ReplaceAllString(string(out), "<uid>"), "<time>")
	output = agePattern.ReplaceAllString(output, "<age>")
	r.steps = append(r.steps, kubectlStep{Args: args, Stdin: uidPattern.ReplaceAllString(stdin, "<uid>"), ExitCode: code, Output: output})
	return string(out)
}

// uid returns the uid of an object; the command is not recorded.
func (r *rolloutRun) uid(kind, name string) string {
	r.t.Helper()
	out, err := exec.Command(r.kubectl, "--kubeconfig", r.kubeconfig, "-n", r.ns, "get", kind, name, "-o", "jsonpath={.metadata.uid}").CombinedOutput()
	if err != nil {
		r.t.Fatalf("uid of %s %s: %v\n%s", kind, name, err, out)
	}
	return string(out)
}

// runRolloutScenario runs the scenario against the server of kubeconfig in
// a new namespace ns and returns its commands and answers.
func runRolloutScenario(t *testing.T, kubeconfig, ns string) []kubectlStep {
	kubectl := filepath.Join(binaries(t), "kubectl")
	if out, err := exec.Command(kubectl, "--kubeconfig", kubeconfig, "create", "namespace", ns).CombinedOutput(); err != nil {
		t.Fatalf("creating namespace %s: %v\n%s", ns, err, out)
	}
	r := &rolloutRun{t: t, kubectl: kubectl, kubeconfig: kubeconfig, ns: ns}
	jsonpath := func(kind, name, path string) { r.run("", "get", kind, name, "-o", "jsonpath="+path) }

	// A deployment and the replicasets of its two revisions.
	r.run(workload("Deployment", "web", "nginx:1.27"), "apply", "-f", "-")
	uid := r.uid("deployment", "web")
	r.run(replicaSet("web-6d4cf56db6", uid, "1", "nginx:1.26"), "create", "-f", "-")
	r.run(replicaSet("web-7c5ddbdf54", uid, "2", "nginx:1.27"), "create", "-f", "-")
	r.run(replicaSet("stray", "00000000-0000-0000-0000-000000000000", "9", "nginx:1.20"), "create", "-f", "-")
	r.run("", "rollout", "history", "deployment/web")
	r.run("", "rollout", "history", "deployment/web", "--revision=1")
	r.run("", "rollout", "undo", "deployment/web", "--to-revision=1")
	jsonpath("deployment", "web", "{.spec.template.spec.containers[0].image} {.metadata.generation} {.metadata.annotations}")
	r.run("", "rollout", "undo", "deployment/web", "--to-revision=5")
	r.run("", "rollout", "pause", "deployment/web")
	r.run("", "rollout", "pause", "deployment/web")
	jsonpath("deployment", "web", "{.spec.paused} {.metadata.generation}")
	r.run("", "rollout", "undo", "deployment/web")
	r.run("", "rollout", "restart", "deployment/web")
	r.run("", "rollout", "resume", "deployment/web")
	jsonpath("deployment", "web", "{.spec.paused} {.metadata.generation}")
	r.run("", "rollout", "restart", "deployment/web")
	jsonpath("deployment", "web", "{.metadata.generation} {.spec.template.metadata.annotations}")

	// `kubectl scale` of a replicaset, with and without a precondition.
	r.run("", "scale", "replicaset/web-6d4cf56db6", "--replicas=3")
	r.run("", "scale", "replicaset/web-6d4cf56db6", "--current-replicas=2", "--replicas=4")
	r.run("", "scale", "replicaset/web-6d4cf56db6", "--current-replicas=3", "--replicas=4")
	jsonpath("replicaset", "web-6d4cf56db6", "{.spec.replicas} {.metadata.generation}")
	r.run("", "get", "replicasets")

	// A statefulset and the controllerrevisions of its two revisions.
	r.run(workload("StatefulSet", "db", "postgres:17"), "apply", "-f", "-")
	uid = r.uid("statefulset", "db")
	r.run(controllerRevision("db-5c9f8d7b6", "StatefulSet", "db", uid, 1, "postgres:16"), "create", "-f", "-")
	r.run(controllerRevision("db-84b7c6d9f", "StatefulSet", "db", uid, 2, "postgres:17"), "create", "-f", "-")
	r.run("", "rollout", "history", "statefulset/db")
	r.run("", "rollout", "history", "statefulset/db", "--revision=1")
	r.run("", "rollout", "undo", "statefulset/db", "--to-revision=1")
	jsonpath("statefulset", "db", "{.spec.template.spec.containers[0].image} {.metadata.generation}")
	r.run("", "rollout", "restart", "statefulset/db")
	jsonpath("statefulset", "db", "{.metadata.generation} {.spec.template.metadata.annotations}")
	r.run("", "rollout", "pause", "statefulset/db")
	r.run("", "rollout", "resume", "statefulset/db")
	r.run("", "scale", "statefulset/db", "--replicas=2")
	jsonpath("statefulset", "db", "{.spec.replicas} {.metadata.generation}")
	r.run("", "get", "statefulsets", "-o", "wide")

	// A daemonset and its controllerrevisions.
	r.run(workload("DaemonSet", "agent", "fluent-bit:3"), "apply", "-f", "-")
	uid = r.uid("daemonset", "agent")
	r.run(controllerRevision("agent-7f6d5c4b3", "DaemonSet", "agent", uid, 1, "fluent-bit:2"), "create", "-f", "-")
	r.run(controllerRevision("agent-6b5c4d3e2", "DaemonSet", "agent", uid, 2, "fluent-bit:3"), "create", "-f", "-")
	r.run("", "rollout", "history", "daemonset/agent")
	r.run("", "rollout", "history", "daemonset/agent", "--revision=2")
	r.run("", "rollout", "undo", "daemonset/agent")
	jsonpath("daemonset", "agent", "{.spec.template.spec.containers[0].image} {.metadata.generation} {.metadata.annotations}")
	r.run("", "rollout", "restart", "daemonset/agent")
	jsonpath("daemonset", "agent", "{.metadata.generation} {.metadata.annotations.deprecated\\.daemonset\\.template\\.generation}")
	r.run("", "rollout", "pause", "daemonset/agent")
	r.run("", "scale", "daemonset/agent", "--replicas=2")
	r.run("", "get", "controllerrevisions")
	return r.steps
}

// workload is a Deployment, StatefulSet or DaemonSet of one container.
func workload(kind, name, image string) string {
	serviceName := ""
	if kind == "StatefulSet" {
		serviceName = "\n  serviceName: " + name
	}
	return fmt.Sprintf(`apiVersion: apps/v1
kind: %s
metadata:
  name: %s
  labels: {app: %s}
spec:%s
  selector:
    matchLabels: {app: %s}
  template:
    metadata:
      labels: {app: %s}
    spec:
      containers:
      - name: main
        image: %s
`, kind, name, name, serviceName, name, name, image)
}

// replicaSet is a replicaset of the deployment web with uid, as the
// deployment controller writes one for a revision.
func replicaSet(name, ownerUID, revision, image string) string {
	hash := name[strings.LastIndex(name, "-")+1:]
	return fmt.Sprintf(`apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: %s
  labels: {app: web, pod-template-hash: %s}
  annotations:
    deployment.kubernetes.io/revision: "%s"
  ownerReferences:
  - apiVersion: apps/v1
    kind: Deployment
    name: web
    uid: %s
    controller: true
    blockOwnerDeletion: true
spec:
  replicas: 0
  selector:
    matchLabels: {app: web, pod-template-hash: %s}
  template:
    metadata:
      labels: {app: web, pod-template-hash: %s}
    spec:
      containers:
      - name: main
        image: %s
`, name, hash, revision, ownerUID, hash, hash, image)
}

// controllerRevision is a revision of a statefulset or daemonset, as their
// controllers write one: the template as a patch that replaces it.
func controllerRevision(name, kind, owner, ownerUID string, revision int, image string) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: ControllerRevision
metadata:
  name: %s
  labels: {app: %s, controller.kubernetes.io/hash: %s}
  ownerReferences:
  - apiVersion: apps/v1
    kind: %s
    name: %s
    uid: %s
    controller: true
    blockOwnerDeletion: true
revision: %d
data:
  spec:
    template:
      $patch: replace
      metadata:
        labels: {app: %s}
      spec:
        containers:
        - name: main
          image: %s
`, name, owner, name[strings.LastIndex(name, "-")+1:], kind, owner, ownerUID, revision, owner, image)
}

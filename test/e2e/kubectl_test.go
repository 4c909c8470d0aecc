package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const deploymentYAML = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: REPLICAS
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        ports:
        - containerPort: 80
`

// TestKubectl drives a zero-config kapi binary with the real kubectl, as a
// user would, with no flags beyond the kubeconfig.
func TestKubectl(t *testing.T) {
	p := startKapiBinary(t, t.TempDir())

	t.Run("get namespaces lists the system namespaces", func(t *testing.T) {
		out := p.mustKubectl(t, "", "get", "ns")
		for _, ns := range []string{"default", "kube-system", "kube-public", "kube-node-lease"} {
			if !strings.Contains(out, ns) {
				t.Errorf("missing %s in:\n%s", ns, out)
			}
		}
		if !strings.HasPrefix(out, "NAME") || !strings.Contains(strings.SplitN(out, "\n", 2)[0], "STATUS") {
			t.Errorf("server-side table columns missing:\n%s", out)
		}
	})

	t.Run("apply twice, then change", func(t *testing.T) {
		out := p.mustKubectl(t, strings.Replace(deploymentYAML, "REPLICAS", "2", 1), "apply", "-f", "-")
		if !strings.Contains(out, "deployment.apps/web created") {
			t.Fatalf("first apply: %s", out)
		}
		out = p.mustKubectl(t, strings.Replace(deploymentYAML, "REPLICAS", "2", 1), "apply", "-f", "-")
		if !strings.Contains(out, "deployment.apps/web unchanged") {
			t.Fatalf("second apply: %s", out)
		}
		out = p.mustKubectl(t, strings.Replace(deploymentYAML, "REPLICAS", "3", 1), "apply", "-f", "-")
		if !strings.Contains(out, "deployment.apps/web configured") {
			t.Fatalf("changed apply: %s", out)
		}
		if got := p.mustKubectl(t, "", "get", "deploy", "web", "-o", "jsonpath={.spec.replicas}/{.metadata.generation}"); got != "3/2" {
			t.Errorf("replicas/generation = %s, want 3/2", got)
		}
	})

	t.Run("get -o wide shows the deployment columns", func(t *testing.T) {
		out := p.mustKubectl(t, "", "get", "deploy", "-o", "wide")
		header := strings.Fields(strings.SplitN(out, "\n", 2)[0])
		want := []string{"NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"}
		if strings.Join(header, " ") != strings.Join(want, " ") {
			t.Errorf("header %v, want %v", header, want)
		}
		if !strings.Contains(out, "nginx:1.27") || !strings.Contains(out, "app=web") {
			t.Errorf("row:\n%s", out)
		}
	})

	t.Run("get -o yaml round-trips through create", func(t *testing.T) {
		p.mustKubectl(t, "", "create", "configmap", "settings", "--from-literal=mode=fast")
		out := p.mustKubectl(t, "", "get", "configmap", "settings", "-o", "yaml")
		for _, want := range []string{"kind: ConfigMap", "mode: fast", "uid:", "resourceVersion:", "creationTimestamp:"} {
			if !strings.Contains(out, want) {
				t.Errorf("missing %q in:\n%s", want, out)
			}
		}
	})

	t.Run("patch of each type and label", func(t *testing.T) {
		p.mustKubectl(t, "", "patch", "configmap", "settings", "--type=strategic", "-p", `{"data":{"a":"1"}}`)
		p.mustKubectl(t, "", "patch", "configmap", "settings", "--type=merge", "-p", `{"data":{"b":"2"}}`)
		p.mustKubectl(t, "", "patch", "configmap", "settings", "--type=json", "-p", `[{"op":"add","path":"/data/c","value":"3"}]`)
		p.mustKubectl(t, "", "label", "configmap", "settings", "tier=backend")
		got := p.mustKubectl(t, "", "get", "configmap", "settings", "-o", "jsonpath={.data.a}{.data.b}{.data.c}/{.metadata.labels.tier}")
		if got != "123/backend" {
			t.Errorf("after patches: %q", got)
		}
		if _, err := p.kubectl(t, "", "patch", "configmap", "settings", "--type=json", "-p", `[{"op":"test","path":"/data/a","value":"nope"}]`); err == nil {
			t.Error("a failing JSON patch test operation should be an error")
		}
	})

	t.Run("scale", func(t *testing.T) {
		p.mustKubectl(t, "", "scale", "deploy", "web", "--replicas=5")
		if got := p.mustKubectl(t, "", "get", "deploy", "web", "-o", "jsonpath={.spec.replicas}"); got != "5" {
			t.Errorf("replicas after scale = %s", got)
		}
	})

	t.Run("get -w sees a pod come and go", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, filepath.Join(binaries(t), "kubectl"), "--kubeconfig", p.kubeconfig, "get", "pods", "-w")
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { cancel(); _ = cmd.Wait() }()
		lines := make(chan string, 16)
		go func() {
			s := bufio.NewScanner(stdout)
			for s.Scan() {
				lines <- s.Text()
			}
			close(lines)
		}()
		time.Sleep(500 * time.Millisecond) // let the watch start before the pod exists
		// The pod runs as the default service account, which kube's
		// controller manager would have created.
		p.mustKubectl(t, "", "create", "serviceaccount", "default")
		p.mustKubectl(t, "", "run", "watched", "--image=nginx:1.27")
		for {
			select {
			case line, ok := <-lines:
				if !ok {
					t.Fatal("kubectl get -w ended early")
				}
				if strings.HasPrefix(line, "watched ") && strings.Contains(line, "Pending") {
					p.mustKubectl(t, "", "delete", "pod", "watched")
					return
				}
			case <-ctx.Done():
				t.Fatal("kubectl get -w did not show the pod")
			}
		}
	})

	t.Run("explain reads the OpenAPI documents", func(t *testing.T) {
		out := p.mustKubectl(t, "", "explain", "pod.spec.containers")
		for _, want := range []string{"KIND:       Pod", "FIELD: containers <[]Container>", "List of containers belonging to the pod."} {
			if !strings.Contains(out, want) {
				t.Errorf("missing %q in:\n%s", want, out)
			}
		}
		out = p.mustKubectl(t, "", "explain", "deployments.spec.strategy.type")
		if !strings.Contains(out, "Recreate") {
			t.Errorf("deployment strategy enum missing:\n%s", out)
		}
	})

	t.Run("api-resources", func(t *testing.T) {
		out := p.mustKubectl(t, "", "api-resources")
		for _, want := range []string{"configmaps", "deployments", "leases", "namespaces", "pods", "services"} {
			if !strings.Contains(out, want) {
				t.Errorf("api-resources lacks %s", want)
			}
		}
	})

	t.Run("version reports the commit kapi was built from", func(t *testing.T) {
		out := p.mustKubectl(t, "", "get", "--raw", "/version")
		var v struct {
			GitVersion, GitCommit, GitTreeState, BuildDate string
		}
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		// What the Go toolchain recorded in the binary is the truth:
		// a build in a git checkout records its HEAD, its time and
		// whether the tree had changes (a git worktree records none).
		meta, err := exec.Command("go", "version", "-m", filepath.Join(binaries(t), "kapi")).Output()
		if err != nil {
			t.Fatal(err)
		}
		want := struct{ commit, state, date string }{"", "", "1970-01-01T00:00:00Z"}
		for _, line := range strings.Split(string(meta), "\n") {
			key, value, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "build\t"), "=")
			switch key {
			case "vcs.revision":
				want.commit = value
			case "vcs.time":
				want.date = value
			case "vcs.modified":
				want.state = map[string]string{"true": "dirty", "false": "clean"}[value]
			}
		}
		if v.GitCommit != want.commit || v.GitTreeState != want.state || v.BuildDate != want.date {
			t.Errorf("/version has commit %q state %q date %q; the binary records %q %q %q",
				v.GitCommit, v.GitTreeState, v.BuildDate, want.commit, want.state, want.date)
		}
		if want.commit != "" {
			head, err := exec.Command("git", "-C", repoRoot(t), "rev-parse", "HEAD").Output()
			if err != nil || strings.TrimSpace(string(head)) != want.commit {
				t.Errorf("recorded commit %s, HEAD %s (%v)", want.commit, head, err)
			}
		}
		if !strings.HasPrefix(v.GitVersion, "v1.37.") {
			t.Errorf("gitVersion %q", v.GitVersion)
		}
	})

	t.Run("delete --dry-run=server leaves the object, whatever else the query says", func(t *testing.T) {
		// kubectl sends dryRun in the DeleteOptions body and the request
		// timeout in the query; the query must not replace the body.
		p.mustKubectl(t, "", "create", "configmap", "dry")
		for _, args := range [][]string{
			{"delete", "configmap", "dry", "--dry-run=server"},
			{"delete", "configmap", "dry", "--dry-run=server", "--request-timeout=45s"},
			{"delete", "configmap", "--all", "--dry-run=server", "--request-timeout=45s"},
		} {
			out := p.mustKubectl(t, "", args...)
			if !strings.Contains(out, "(server dry run)") {
				t.Errorf("kubectl %s: %s", strings.Join(args, " "), out)
			}
			if out, err := p.kubectl(t, "", "get", "configmap", "dry", "-o", "name"); err != nil || strings.TrimSpace(out) != "configmap/dry" {
				t.Fatalf("after kubectl %s: %v %s", strings.Join(args, " "), err, out)
			}
		}
		p.mustKubectl(t, "", "delete", "configmap", "dry", "--request-timeout=45s")
	})

	t.Run("delete", func(t *testing.T) {
		p.mustKubectl(t, "", "delete", "deploy", "web")
		p.mustKubectl(t, "", "delete", "configmap", "settings")
		out, err := p.kubectl(t, "", "get", "configmap", "settings")
		if err == nil || !strings.Contains(out, `configmaps "settings" not found`) {
			t.Errorf("after delete: %v %s", err, out)
		}
	})

	t.Run("invalid input is the server's 422", func(t *testing.T) {
		out, err := p.kubectl(t, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Invalid_Name!\n", "create", "-f", "-")
		if err == nil || !strings.Contains(out, `ConfigMap "Invalid_Name!" is invalid: metadata.name: Invalid value`) {
			t.Errorf("invalid create: %v %s", err, out)
		}
	})
}

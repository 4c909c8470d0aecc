package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/required"
)

// explainRecording keeps what `kubectl explain` printed against
// kube-apiserver 1.37.1.
const explainRecording = "testdata/explain-kubectl-oracle.json"

// explainCommands returns the kubectl explain commands of the scenario:
// every resource of kube-apiserver 1.37.1's discovery that kapi serves,
// in each version, with the fields spec and metadata.labels; and the
// short names of the resources served in two groups or versions.
func explainCommands(t *testing.T) [][]string {
	t.Helper()
	files := []string{filepath.Join(required.Reference(t), "discovery/api_v1.json")}
	more, err := filepath.Glob(filepath.Join(required.Reference(t), "discovery/apis/*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for _, file := range append(files, more...) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var list metav1.APIResourceList
		if err := json.Unmarshal(data, &list); err != nil {
			t.Fatal(err)
		}
		if _, notServed := notYetServed[list.GroupVersion]; notServed {
			continue
		}
		for _, r := range list.APIResources {
			if strings.Contains(r.Name, "/") {
				continue
			}
			for _, field := range []string{"", ".spec", ".metadata.labels"} {
				out = append(out, []string{"explain", r.Name + field, "--api-version=" + list.GroupVersion})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return strings.Join(out[i], " ") < strings.Join(out[j], " ") })
	return append(out,
		[]string{"explain", "hpa", "--api-version=autoscaling/v1"},
		[]string{"explain", "hpa.spec.metrics", "--api-version=autoscaling/v2"},
		[]string{"explain", "events", "--api-version=events.k8s.io/v1"},
		[]string{"explain", "events"},
		[]string{"explain", "pods.spec.containers.resources"},
		[]string{"explain", "deploy.spec.strategy.rollingUpdate.maxSurge"},
		[]string{"explain", "jobs.spec.podFailurePolicy.rules.action"},
	)
}

// runExplain runs the commands against the server of kubeconfig, four at
// a time, and returns them with their answers.
func runExplain(t *testing.T, kubeconfig string, commands [][]string) []kubectlStep {
	kubectl := filepath.Join(binaries(t), "kubectl")
	steps := make([]kubectlStep, len(commands))
	work := make(chan int)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				out, err := exec.CommandContext(ctx, kubectl, append([]string{"--kubeconfig", kubeconfig}, commands[i]...)...).CombinedOutput()
				cancel()
				code := 0
				var exit *exec.ExitError
				switch {
				case errors.As(err, &exit):
					code = exit.ExitCode()
				case err != nil:
					t.Errorf("kubectl %s: %v", strings.Join(commands[i], " "), err)
				}
				steps[i] = kubectlStep{Args: commands[i], ExitCode: code, Output: string(out)}
			}
		}()
	}
	for i := range commands {
		work <- i
	}
	close(work)
	wg.Wait()
	return steps
}

// TestKubectlExplain runs `kubectl explain` on every built-in resource kapi
// serves, and on some of their fields, and compares each answer with
// kubectl's against kube-apiserver 1.37.1
// (testdata/explain-kubectl-oracle.json). kubectl explains from the
// /openapi/v3 documents: a difference is one of kapi's OpenAPI.
//
// With KAPI_EXPLAIN_ORACLE set to the kubeconfig of an oracle, the test
// runs the commands there and writes the recording instead.
func TestKubectlExplain(t *testing.T) {
	commands := explainCommands(t)
	if oracle := os.Getenv("KAPI_EXPLAIN_ORACLE"); oracle != "" {
		writeKubectlRecording(t, explainRecording, runExplain(t, oracle, commands))
		return
	}
	recorded := readKubectlRecording(t, explainRecording)
	if len(recorded) != len(commands) {
		t.Fatalf("the scenario runs %d commands, the recording has %d: record it again", len(commands), len(recorded))
	}
	p := startKapiBinary(t, t.TempDir())
	same := compareKubectlSteps(t, recorded, runExplain(t, p.kubeconfig, commands), nil)
	t.Logf("%d of %d explanations are kube-apiserver's", same, len(recorded))
}

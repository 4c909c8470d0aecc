package e2e

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestKubectlCreateIngress: kubectl create ingress with rules, TLS, a
// class and a default backend against the kapi binary makes the Ingress
// kube-apiserver makes from the same command
// (testdata/kube-apiserver/kubectl-create-ingress.json), and kubectl get
// prints the same row.
func TestKubectlCreateIngress(t *testing.T) {
	data, err := os.ReadFile("testdata/kube-apiserver/kubectl-create-ingress.json")
	if err != nil {
		t.Fatal(err)
	}
	var want struct {
		Generation int64
		Spec       map[string]any
		Status     map[string]any
		Row        string
	}
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}

	p := startKapiBinary(t, t.TempDir())
	p.mustKubectl(t, "", "create", "namespace", "shop")
	out := p.mustKubectl(t, "", "create", "ingress", "shop", "-n", "shop", "--class=nginx",
		"--rule=shop.example.com/api*=api:8080,tls=shop-tls", "--rule=shop.example.com/=web:http", "--rule=/health=health:9000",
		"--default-backend=fallback:80", "-o", "json")
	var got struct {
		Metadata struct{ Generation int64 }
		Spec     map[string]any
		Status   map[string]any
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("kubectl create ingress -o json: %v\n%s", err, out)
	}
	if got.Metadata.Generation != want.Generation {
		t.Errorf("generation %d, want %d", got.Metadata.Generation, want.Generation)
	}
	if diff := cmp.Diff(want.Spec, got.Spec); diff != "" {
		t.Errorf("spec differs from kube-apiserver's (-kube-apiserver +kapi):\n%s", diff)
	}
	if diff := cmp.Diff(want.Status, got.Status); diff != "" {
		t.Errorf("status differs from kube-apiserver's (-kube-apiserver +kapi):\n%s", diff)
	}

	row := strings.Fields(p.mustKubectl(t, "", "get", "ingress", "shop", "-n", "shop", "--no-headers"))
	if len(row) == 0 || strings.Join(row[:len(row)-1], " ") != want.Row {
		t.Errorf("kubectl get ingress: %q, want %q and an age", strings.Join(row, " "), want.Row)
	}
	if out, err := p.kubectl(t, "", "create", "ingress", "bad", "-n", "shop", "--rule=shop.example.com/=web:99999"); err == nil ||
		!strings.Contains(out, `spec.rules[0].http.paths[0].backend.service.port.number: Invalid value: 99999: must be between 1 and 65535, inclusive`) {
		t.Errorf("an ingress with an invalid port: %v\n%s", err, out)
	}
}

package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/pkg/testserver"
)

// TestNodeAuthorizer: with --authorization-mode=Node, a kubelet's
// credential (system:node:h-node-n1 in system:nodes, from
// --token-auth-file) reads what the pods bound to its node refer to and
// nothing of the other node's pods, with kube-apiserver's answers
// (testdata/node-authorizer-oracle.json, recorded with the same pods),
// the reason named by its authorizer as kube-apiserver 1.37 names it
// ("...: node: no relationship found ...").
func TestNodeAuthorizer(t *testing.T) {
	var rec struct {
		Cases []struct {
			Path   string          `json:"path"`
			Code   int             `json:"code"`
			Status json.RawMessage `json:"status"`
		} `json:"cases"`
	}
	readTestJSON(t, "testdata/node-authorizer-oracle.json", &rec)
	var objects struct {
		Items []json.RawMessage `json:"items"`
	}
	readTestJSON(t, "../../pkg/authorization/node/testdata/oracle-objects.json", &objects)

	tokens := filepath.Join(t.TempDir(), "tokens.csv")
	if err := os.WriteFile(tokens, []byte("node-token,system:node:h-node-n1,n1,system:nodes\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := testserver.Start(t, testserver.Options{TokenAuthFile: tokens, AuthorizationMode: []string{"Node"}})
	admin := clientset(t, s.ClientConfig)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "h-node"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"h-node-n1", "h-node-n2"} {
		if _, err := admin.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	pods := 0
	for _, raw := range objects.Items {
		var pod corev1.Pod
		if err := json.Unmarshal(raw, &pod); err != nil {
			t.Fatal(err)
		}
		if pod.Kind != "Pod" {
			continue // PVs and volume attachments are not served yet
		}
		pod.Status = corev1.PodStatus{}
		if _, err := admin.CoreV1().Pods(pod.Namespace).Create(ctx, &pod, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating pod %s: %v", pod.Name, err)
		}
		pods++
	}
	if pods != 4 {
		t.Fatalf("created %d pods, the recording has 4", pods)
	}

	nodeConfig := rest.AnonymousClientConfig(s.ClientConfig)
	nodeConfig.BearerToken = "node-token"
	client, err := rest.HTTPClientFor(nodeConfig)
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string) (int, []byte) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+path, nil)
		req.Header.Set("Accept", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, body
	}

	// The graph learns of the pods through an informer: wait until the
	// node sees its own pod.
	for {
		code, body := get("/api/v1/namespaces/h-node/pods/p1")
		if code == http.StatusOK {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the node never got its own pod: %d %s", code, body)
		}
		time.Sleep(50 * time.Millisecond)
	}

	for _, tc := range rec.Cases {
		t.Run(tc.Path, func(t *testing.T) {
			code, body := get(tc.Path)
			if code != tc.Code {
				t.Fatalf("status %d, kube-apiserver answered %d: %s", code, tc.Code, body)
			}
			var want, got metav1.Status
			if err := json.Unmarshal(tc.Status, &want); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatalf("not a Status: %s", body)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Status differs from kube-apiserver's (-want +got):\n%s", diff)
			}
		})
	}
}

func readTestJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

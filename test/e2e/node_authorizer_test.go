package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/pkg/testserver"
)

// TestNodeAuthorizer: with --authorization-mode=Node,RBAC, a kubelet's
// credential (system:node:h-node-n1 in system:nodes, from
// --token-auth-file) reaches what the pods bound to its node refer to, a
// PV bound to a claim of such a pod and the secret the kubelet mounts it
// with, its own volume attachments, resource slices and pod certificate
// requests, and nothing of the other node's; it may write its resource
// slices but not its volume attachments, and delete none of its pod
// certificate requests. Every request, in order, gets kube-apiserver's
// answer (testdata/node-authorizer-oracle.json, recorded by
// hack/oracle/node.sh with the same objects): the status code, the
// Status of a refusal with the reason named by its authorizer ("...:
// node: no relationship found ..."), and the objects an allowed request
// returns, by kind and name. NodeRestriction admission (issue 11) is off
// in both, so a create is the authorizer's answer alone.
func TestNodeAuthorizer(t *testing.T) {
	var rec struct {
		Cases []struct {
			Method      string          `json:"method"`
			Path        string          `json:"path"`
			ContentType string          `json:"contentType"`
			Body        json.RawMessage `json:"body"`
			Code        int             `json:"code"`
			Status      json.RawMessage `json:"status"`
			Kind        string          `json:"kind"`
			Names       []string        `json:"names"`
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
	s := testserver.Start(t, testserver.Options{TokenAuthFile: tokens, AuthorizationMode: []string{"Node", "RBAC"}})
	admin := clientset(t, s.ClientConfig)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "h-node"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The pods' service accounts, which the ServiceAccount admission
	// plugin wants to exist, as on the oracle.
	for _, name := range []string{"sa1", "sa2"} {
		if _, err := admin.CoreV1().ServiceAccounts("h-node").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"h-node-n1", "h-node-n2"} {
		if _, err := admin.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// The objects the oracle held, created by the admin where the
	// kind's collection is.
	collections := map[string]string{
		"Pod":                   "/api/v1/namespaces/%s/pods",
		"PersistentVolume":      "/api/v1/persistentvolumes",
		"VolumeAttachment":      "/apis/storage.k8s.io/v1/volumeattachments",
		"ResourceSlice":         "/apis/resource.k8s.io/v1/resourceslices",
		"PodCertificateRequest": "/apis/certificates.k8s.io/v1/namespaces/%s/podcertificaterequests",
	}
	created := map[string]int{}
	for _, raw := range objects.Items {
		var obj metav1.PartialObjectMetadata
		if err := json.Unmarshal(raw, &obj); err != nil {
			t.Fatal(err)
		}
		path, ok := collections[obj.Kind]
		if !ok {
			t.Fatalf("the recording holds a %s the test does not create", obj.Kind)
		}
		if obj.Namespace != "" {
			path = fmt.Sprintf(path, obj.Namespace)
		}
		if err := admin.RESTClient().Post().AbsPath(path).SetHeader("Content-Type", "application/json").Body([]byte(raw)).Do(ctx).Error(); err != nil {
			t.Fatalf("creating %s %s: %v", obj.Kind, obj.Name, err)
		}
		created[obj.Kind]++
	}
	if want := map[string]int{"Pod": 4, "PersistentVolume": 2, "VolumeAttachment": 2, "ResourceSlice": 3, "PodCertificateRequest": 2}; !maps.Equal(created, want) {
		t.Fatalf("created %v, the recording has %v", created, want)
	}

	nodeConfig := rest.AnonymousClientConfig(s.ClientConfig)
	nodeConfig.BearerToken = "node-token"
	client, err := rest.HTTPClientFor(nodeConfig)
	if err != nil {
		t.Fatal(err)
	}
	do := func(method, path, contentType string, body []byte) (int, []byte) {
		req, _ := http.NewRequestWithContext(ctx, method, s.URL+path, bytes.NewReader(body))
		req.Header.Set("Accept", "application/json")
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, data
	}

	// The graph learns of each kind through its informer: wait until the
	// node reaches one object of each.
	for _, path := range []string{
		"/api/v1/namespaces/h-node/pods/p1",
		"/api/v1/persistentvolumes/h-node-pv1",
		"/apis/storage.k8s.io/v1/volumeattachments/h-node-va1",
		"/apis/resource.k8s.io/v1/resourceslices/h-node-rs1",
		"/apis/certificates.k8s.io/v1/namespaces/h-node/podcertificaterequests/pcr1",
	} {
		for {
			code, body := do(http.MethodGet, path, "", nil)
			if code == http.StatusOK {
				break
			}
			if ctx.Err() != nil {
				t.Fatalf("the node never reached %s: %d %s", path, code, body)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	for _, tc := range rec.Cases {
		// In order: the writes change what later requests see.
		t.Run(tc.Method+" "+tc.Path, func(t *testing.T) {
			code, body := do(tc.Method, tc.Path, tc.ContentType, tc.Body)
			if code != tc.Code {
				t.Fatalf("status %d, kube-apiserver answered %d: %s", code, tc.Code, body)
			}
			if tc.Status == nil {
				var got struct {
					Kind     string            `json:"kind"`
					Metadata metav1.ObjectMeta `json:"metadata"`
					Items    []struct {
						Metadata metav1.ObjectMeta `json:"metadata"`
					} `json:"items"`
				}
				if err := json.Unmarshal(body, &got); err != nil {
					t.Fatalf("not an object: %s", body)
				}
				names := []string{got.Metadata.Name}
				if strings.HasSuffix(got.Kind, "List") {
					names = []string{}
					for _, item := range got.Items {
						names = append(names, item.Metadata.Name)
					}
				}
				if got.Kind != tc.Kind || !slices.Equal(names, tc.Names) {
					t.Errorf("got %s %v, kube-apiserver returned %s %v", got.Kind, names, tc.Kind, tc.Names)
				}
				return
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

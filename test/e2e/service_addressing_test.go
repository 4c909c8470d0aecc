package e2e

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/kubernetes"

	"github.com/kapi-dev/kapi/pkg/testserver"
)

// TestServiceAddressing: with kube-apiserver's default
// --service-cluster-ip-range, kapi creates the default ServiceCIDR and
// records the IPs of Services as IPAddress objects exactly as
// kube-apiserver does (testdata/kube-apiserver/service-addressing.json,
// recorded from the oracle), allocates from a further ServiceCIDR, and
// refuses an IP in no range with kube-apiserver's error.
func TestServiceAddressing(t *testing.T) {
	data, err := os.ReadFile("testdata/kube-apiserver/service-addressing.json")
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	s := testserver.Start(t, testserver.Options{})
	client, err := kubernetes.NewForConfig(s.ClientConfig)
	if err != nil {
		t.Fatal(err)
	}
	rc := client.CoreV1().RESTClient()
	ctx := context.Background()
	request := func(method, path, body string) (map[string]any, int) {
		t.Helper()
		req := rc.Verb(method).AbsPath(path).SetHeader("Content-Type", "application/json")
		if body != "" {
			req = req.Body([]byte(body))
		}
		var code int
		raw, _ := req.Do(ctx).StatusCode(&code).Raw()
		var out map[string]any
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("%s %s: %v: %s", method, path, err, raw)
		}
		return out, code
	}
	compare := func(what string, got map[string]any) {
		t.Helper()
		if diff := cmp.Diff(normaliseObject(want[what]), normaliseObject(got)); diff != "" {
			t.Errorf("%s differs from kube-apiserver's (-kube-apiserver +kapi):\n%s", what, diff)
		}
	}

	// The default ServiceCIDR is made Ready by a controller.
	var sc map[string]any
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		sc, _ = request("GET", "/apis/networking.k8s.io/v1/servicecidrs/kubernetes", "")
		if st, _ := sc["status"].(map[string]any); st["conditions"] != nil || time.Now().After(deadline) {
			break
		}
	}
	compare("serviceCIDR", sc)
	got, _ := request("GET", "/apis/networking.k8s.io/v1/ipaddresses/10.96.0.1", "")
	compare("kubernetesIPAddress", got)

	request("POST", "/api/v1/namespaces", `{"metadata":{"name":"addressing"}}`)
	if _, code := request("POST", "/api/v1/namespaces/addressing/services", `{"metadata":{"name":"web"},"spec":{"clusterIP":"10.96.0.10","ports":[{"name":"80-8080","port":80,"targetPort":8080}]}}`); code != 201 {
		t.Fatalf("creating service web: %d", code)
	}
	got, _ = request("GET", "/apis/networking.k8s.io/v1/ipaddresses/10.96.0.10", "")
	compare("webIPAddress", got)

	request("POST", "/apis/networking.k8s.io/v1/servicecidrs", `{"metadata":{"name":"addressing-extra"},"spec":{"cidrs":["10.200.0.0/24"]}}`)
	if _, code := request("POST", "/api/v1/namespaces/addressing/services", `{"metadata":{"name":"extra"},"spec":{"clusterIP":"10.200.0.10","ports":[{"name":"80-8080","port":80,"targetPort":8080}]}}`); code != 201 {
		t.Fatalf("creating service extra in the second ServiceCIDR: %d", code)
	}
	got, _ = request("GET", "/apis/networking.k8s.io/v1/ipaddresses/10.200.0.10", "")
	compare("extraIPAddress", got)

	got, _ = request("POST", "/api/v1/namespaces/addressing/services", `{"metadata":{"name":"out"},"spec":{"clusterIP":"10.250.0.5","ports":[{"port":80}]}}`)
	compare("outOfRangeStatus", got)

	// A deleted Service gives its IPAddress back.
	request("DELETE", "/api/v1/namespaces/addressing/services/extra", "")
	if _, code := request("GET", "/apis/networking.k8s.io/v1/ipaddresses/10.200.0.10", ""); code != 404 {
		t.Errorf("the IPAddress of a deleted Service: %d, want 404", code)
	}
}

// normaliseObject drops what differs between any two servers: uids,
// resourceVersions and times.
func normaliseObject(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range v {
			switch k {
			case "uid", "resourceVersion", "creationTimestamp", "time", "lastTransitionTime":
				out[k] = "<normalised>"
			default:
				out[k] = normaliseObject(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = normaliseObject(e)
		}
		return out
	}
	return v
}

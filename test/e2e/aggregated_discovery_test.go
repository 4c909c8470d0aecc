package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/client"
)

// remoteGroup is the group the backend of these tests serves.
const remoteGroup = "wardle.aggdisc.example.com"

// newRemoteBackend is a small extension server: HTTPS on 127.0.0.1,
// serving flunders of remoteGroup/v1alpha1 in aggregated and legacy
// discovery and its OpenAPI documents, as sample-apiserver publishes them.
func newRemoteBackend(t *testing.T) (port int) {
	t.Helper()
	gv := remoteGroup + "/v1alpha1"
	mux := http.NewServeMux()
	mux.HandleFunc("/apis", func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.Header.Get("Accept"), "apidiscovery.k8s.io") {
			w.Header().Set("Content-Type", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
			fmt.Fprintf(w, `{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[{"metadata":{"name":%q},"versions":[{"version":"v1alpha1","resources":[{"resource":"flunders","responseKind":{"group":%q,"version":"v1alpha1","kind":"Flunder"},"scope":"Namespaced","singularResource":"flunder","verbs":["get","list"],"shortNames":["fl"]}],"freshness":"Current"}]}]}`, remoteGroup, remoteGroup)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"kind":"APIGroupList","apiVersion":"v1","groups":[{"name":%q,"versions":[{"groupVersion":%q,"version":"v1alpha1"}],"preferredVersion":{"groupVersion":%q,"version":"v1alpha1"}}]}`, remoteGroup, gv, gv)
	})
	mux.HandleFunc("/apis/"+gv, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":%q,"resources":[{"name":"flunders","singularName":"flunder","namespaced":true,"kind":"Flunder","verbs":["get","list"],"shortNames":["fl"]}]}`, gv)
	})
	mux.HandleFunc("/openapi/v2", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Etag", `"flunders-1"`)
		fmt.Fprintf(w, `{"swagger":"2.0","info":{"title":"wardle","version":"v0"},"paths":{"/apis/%s/namespaces/{namespace}/flunders":{"get":{"operationId":"listWardleV1alpha1NamespacedFlunder","responses":{"200":{"description":"OK","schema":{"$ref":"#/definitions/com.example.wardle.v1alpha1.Flunder"}}}}}},"definitions":{"com.example.wardle.v1alpha1.Flunder":{"type":"object","x-kubernetes-group-version-kind":[{"group":%q,"kind":"Flunder","version":"v1alpha1"}]}}}`, gv, remoteGroup)
	})
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })
	s := httptest.NewTLSServer(mux)
	t.Cleanup(s.Close)
	_, p, _ := net.SplitHostPort(s.Listener.Addr().String())
	fmt.Sscan(p, &port)
	return port
}

// registerRemote points an APIService of remoteGroup/v1alpha1 at the
// backend, through an ExternalName Service of localhost.
func registerRemote(t *testing.T, cfg *rest.Config, port int) {
	t.Helper()
	ctx := context.Background()
	cs := clientset(t, cfg)
	if _, err := cs.CoreV1().Services("default").Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "aggdisc-backend"},
		Spec: corev1.ServiceSpec{
			Type: corev1.ServiceTypeExternalName, ExternalName: "localhost",
			Ports: []corev1.ServicePort{{Port: int32(port)}},
		},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	set, err := client.NewSet(cfg, scheme.Scheme)
	if err != nil {
		t.Fatal(err)
	}
	apiServices := client.For[*apiregistrationv1.APIService, *apiregistrationv1.APIServiceList](set, "apiservices", "")
	p := int32(port)
	if _, err := apiServices.Create(ctx, &apiregistrationv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: "v1alpha1." + remoteGroup},
		Spec: apiregistrationv1.APIServiceSpec{
			Group: remoteGroup, Version: "v1alpha1",
			Service:               &apiregistrationv1.ServiceReference{Namespace: "default", Name: "aggdisc-backend", Port: &p},
			InsecureSkipTLSVerify: true,
			GroupPriorityMinimum:  1000, VersionPriority: 15,
		},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = apiServices.Delete(ctx, "v1alpha1."+remoteGroup, metav1.DeleteOptions{}) })
}

// TestRemoteAPIServiceInDiscovery: the group of an APIService served by
// another server is in client-go's aggregated discovery and in kubectl
// api-resources, its resource list is the server's, its paths are in
// /openapi/v2, and it leaves when the APIService is deleted.
func TestRemoteAPIServiceInDiscovery(t *testing.T) {
	s := startKapi(t)
	registerRemote(t, s.ClientConfig, newRemoteBackend(t))

	dc := discovery.NewDiscoveryClientForConfigOrDie(s.ClientConfig)
	remoteResources := func() []metav1.APIResource {
		_, lists, err := dc.ServerGroupsAndResources()
		if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
			t.Fatal(err)
		}
		for _, l := range lists {
			if l.GroupVersion == remoteGroup+"/v1alpha1" {
				return l.APIResources
			}
		}
		return nil
	}
	waitFor(t, "client-go discovers the remote group", func() bool { return len(remoteResources()) > 0 })
	got := remoteResources()
	if len(got) != 1 || got[0].Name != "flunders" || got[0].Kind != "Flunder" || !got[0].Namespaced ||
		!slices.Equal(got[0].ShortNames, []string{"fl"}) || !slices.Equal(got[0].Verbs, []string{"get", "list"}) {
		t.Errorf("remote resources = %+v", got)
	}

	// The group version's resource list is the remote server's.
	list, err := runKubectl(t, s.Kubeconfig, "get", "--raw", "/apis/"+remoteGroup+"/v1alpha1")
	if err != nil || !strings.Contains(list, `"kind":"APIResourceList"`) || !strings.Contains(list, `"name":"flunders"`) {
		t.Errorf("/apis/%s/v1alpha1: %v %s", remoteGroup, err, list)
	}

	out, err := runKubectl(t, s.Kubeconfig, "api-resources", "--api-group="+remoteGroup, "--no-headers")
	if err != nil {
		t.Fatalf("kubectl api-resources: %v\n%s", err, out)
	}
	if fields := strings.Fields(out); !slices.Equal(fields, []string{"flunders", "fl", remoteGroup + "/v1alpha1", "true", "Flunder"}) {
		t.Errorf("kubectl api-resources --api-group=%s:\n%s", remoteGroup, out)
	}

	waitFor(t, "/openapi/v2 has the remote paths", func() bool {
		body, err := clientset(t, s.ClientConfig).RESTClient().Get().AbsPath("/openapi/v2").SetHeader("Accept", "application/json").DoRaw(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var doc spec.Swagger
		if err := json.Unmarshal(body, &doc); err != nil {
			t.Fatal(err)
		}
		_, ok := doc.Definitions["com.example.wardle.v1alpha1.Flunder"]
		return ok
	})

	set, err := client.NewSet(s.ClientConfig, scheme.Scheme)
	if err != nil {
		t.Fatal(err)
	}
	if err := client.For[*apiregistrationv1.APIService, *apiregistrationv1.APIServiceList](set, "apiservices", "").
		Delete(context.Background(), "v1alpha1."+remoteGroup, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the remote group leaves discovery", func() bool {
		groups, err := dc.ServerGroups()
		if err != nil {
			t.Fatal(err)
		}
		return !slices.ContainsFunc(groups.Groups, func(g metav1.APIGroup) bool { return g.Name == remoteGroup })
	})
}

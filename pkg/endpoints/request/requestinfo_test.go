package request

import (
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/sets"
)

func TestNewRequestInfo(t *testing.T) {
	tests := []struct {
		method string
		url    string
		want   RequestInfo
	}{
		// Non-resource requests: the verb is the lower-cased method.
		{"GET", "/", RequestInfo{Path: "/", Verb: "get"}},
		{"GET", "/healthz", RequestInfo{Path: "/healthz", Verb: "get"}},
		{"GET", "/healthz/etcd", RequestInfo{Path: "/healthz/etcd", Verb: "get"}},
		{"POST", "/healthz", RequestInfo{Path: "/healthz", Verb: "post"}},
		{"HEAD", "/version", RequestInfo{Path: "/version", Verb: "head"}},
		{"GET", "/openapi/v2", RequestInfo{Path: "/openapi/v2", Verb: "get"}},
		{"GET", "/foo/v1/bar", RequestInfo{Path: "/foo/v1/bar", Verb: "get"}},
		{"GET", "/api", RequestInfo{Path: "/api", Verb: "get"}},
		{"GET", "/api/v1", RequestInfo{Path: "/api/v1", Verb: "get"}},
		{"GET", "/apis", RequestInfo{Path: "/apis", Verb: "get"}},
		{"GET", "/apis/apps", RequestInfo{Path: "/apis/apps", Verb: "get"}},
		// Group discovery keeps its prefix, as in kube-apiserver.
		{"GET", "/apis/apps/v1", RequestInfo{Path: "/apis/apps/v1", Verb: "get", APIPrefix: "apis"}},

		// The namespaces resource itself.
		{"GET", "/api/v1/namespaces", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/namespaces", Verb: "list",
			APIPrefix: "api", APIVersion: "v1", Resource: "namespaces",
			Parts: []string{"namespaces"},
		}},
		{"GET", "/api/v1/namespaces/", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/namespaces/", Verb: "list",
			APIPrefix: "api", APIVersion: "v1", Resource: "namespaces",
			Parts: []string{"namespaces"},
		}},
		{"POST", "/api/v1/namespaces", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/namespaces", Verb: "create",
			APIPrefix: "api", APIVersion: "v1", Resource: "namespaces",
			Parts: []string{"namespaces"},
		}},
		{"GET", "/api/v1/namespaces/other", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/namespaces/other", Verb: "get",
			APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "namespaces", Name: "other",
			Parts: []string{"namespaces", "other"},
		}},
		{"DELETE", "/api/v1/namespaces/other", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/namespaces/other", Verb: "delete",
			APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "namespaces", Name: "other",
			Parts: []string{"namespaces", "other"},
		}},
		{"PUT", "/api/v1/namespaces/other/status", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/namespaces/other/status", Verb: "update",
			APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "namespaces", Name: "other", Subresource: "status",
			Parts: []string{"namespaces", "other", "status"},
		}},
		{"PUT", "/api/v1/namespaces/other/finalize", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/namespaces/other/finalize", Verb: "update",
			APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "namespaces", Name: "other", Subresource: "finalize",
			Parts: []string{"namespaces", "other", "finalize"},
		}},

		// Namespaced resources, one verb per method.
		{"GET", "/api/v1/namespaces/other/pods", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/namespaces/other/pods", Verb: "list",
			APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods",
			Parts: []string{"pods"},
		}},
		{"HEAD", "/api/v1/namespaces/other/pods", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/namespaces/other/pods", Verb: "list",
			APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods",
			Parts: []string{"pods"},
		}},
		{"GET", "/api/v1/namespaces/other/pods/foo", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/namespaces/other/pods/foo", Verb: "get",
			APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods", Name: "foo",
			Parts: []string{"pods", "foo"},
		}},
		{"GET", "/api/v1/namespaces/other/pods/foo?watch=true", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/namespaces/other/pods/foo", Verb: "get",
			APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods", Name: "foo",
			Parts: []string{"pods", "foo"},
		}},
		{"POST", "/api/v1/namespaces/other/pods", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/namespaces/other/pods", Verb: "create",
			APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods",
			Parts: []string{"pods"},
		}},
		{"PUT", "/api/v1/namespaces/other/pods/foo", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/namespaces/other/pods/foo", Verb: "update",
			APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods", Name: "foo",
			Parts: []string{"pods", "foo"},
		}},
		{"PATCH", "/api/v1/namespaces/other/pods/foo", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/namespaces/other/pods/foo", Verb: "patch",
			APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods", Name: "foo",
			Parts: []string{"pods", "foo"},
		}},
		{"DELETE", "/api/v1/namespaces/other/pods/foo", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/namespaces/other/pods/foo", Verb: "delete",
			APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods", Name: "foo",
			Parts: []string{"pods", "foo"},
		}},
		{"DELETE", "/api/v1/namespaces/other/pods", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/namespaces/other/pods", Verb: "deletecollection",
			APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods",
			Parts: []string{"pods"},
		}},
		{"OPTIONS", "/api/v1/namespaces/other/pods", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/namespaces/other/pods", Verb: "",
			APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods",
			Parts: []string{"pods"},
		}},

		// Subresources.
		{"GET", "/api/v1/namespaces/other/pods/foo/log", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/namespaces/other/pods/foo/log", Verb: "get",
			APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods", Name: "foo", Subresource: "log",
			Parts: []string{"pods", "foo", "log"},
		}},
		{"PUT", "/api/v1/namespaces/other/pods/foo/status", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/namespaces/other/pods/foo/status", Verb: "update",
			APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods", Name: "foo", Subresource: "status",
			Parts: []string{"pods", "foo", "status"},
		}},
		{"GET", "/api/v1/namespaces/other/pods/foo/proxy/some/path", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/namespaces/other/pods/foo/proxy/some/path", Verb: "get",
			APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods", Name: "foo", Subresource: "proxy",
			Parts: []string{"pods", "foo", "proxy", "some", "path"},
		}},
		{"PUT", "/apis/apps/v1/namespaces/other/deployments/foo/scale", RequestInfo{
			IsResourceRequest: true, Path: "/apis/apps/v1/namespaces/other/deployments/foo/scale", Verb: "update",
			APIPrefix: "apis", APIGroup: "apps", APIVersion: "v1", Namespace: "other", Resource: "deployments", Name: "foo", Subresource: "scale",
			Parts: []string{"deployments", "foo", "scale"},
		}},

		// Cluster-scoped resources and lists across namespaces.
		{"GET", "/api/v1/pods", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/pods", Verb: "list",
			APIPrefix: "api", APIVersion: "v1", Resource: "pods",
			Parts: []string{"pods"},
		}},
		{"GET", "/api/v1/pods/", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/pods/", Verb: "list",
			APIPrefix: "api", APIVersion: "v1", Resource: "pods",
			Parts: []string{"pods"},
		}},
		{"GET", "/api/v1/nodes/node-1", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/nodes/node-1", Verb: "get",
			APIPrefix: "api", APIVersion: "v1", Resource: "nodes", Name: "node-1",
			Parts: []string{"nodes", "node-1"},
		}},
		{"GET", "/apis/apps/v1/deployments", RequestInfo{
			IsResourceRequest: true, Path: "/apis/apps/v1/deployments", Verb: "list",
			APIPrefix: "apis", APIGroup: "apps", APIVersion: "v1", Resource: "deployments",
			Parts: []string{"deployments"},
		}},
		{"POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", RequestInfo{
			IsResourceRequest: true, Path: "/apis/rbac.authorization.k8s.io/v1/clusterroles", Verb: "create",
			APIPrefix: "apis", APIGroup: "rbac.authorization.k8s.io", APIVersion: "v1", Resource: "clusterroles",
			Parts: []string{"clusterroles"},
		}},

		// Watch through the query: any value but 0 or false, even an empty one.
		{"GET", "/api/v1/namespaces/other/pods?watch=true", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/namespaces/other/pods", Verb: "watch",
			APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods",
			Parts: []string{"pods"},
		}},
		{"GET", "/api/v1/pods?watch=1", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/pods", Verb: "watch",
			APIPrefix: "api", APIVersion: "v1", Resource: "pods",
			Parts: []string{"pods"},
		}},
		{"GET", "/api/v1/pods?watch=", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/pods", Verb: "watch",
			APIPrefix: "api", APIVersion: "v1", Resource: "pods",
			Parts: []string{"pods"},
		}},
		{"GET", "/api/v1/pods?watch=false", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/pods", Verb: "list",
			APIPrefix: "api", APIVersion: "v1", Resource: "pods",
			Parts: []string{"pods"},
		}},
		{"GET", "/api/v1/pods?watch=FALSE", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/pods", Verb: "list",
			APIPrefix: "api", APIVersion: "v1", Resource: "pods",
			Parts: []string{"pods"},
		}},
		{"GET", "/api/v1/pods?watch=0", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/pods", Verb: "list",
			APIPrefix: "api", APIVersion: "v1", Resource: "pods",
			Parts: []string{"pods"},
		}},

		// Watch through the legacy /watch/ path prefix.
		{"GET", "/api/v1/watch/pods", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/watch/pods", Verb: "watch",
			APIPrefix: "api", APIVersion: "v1", Resource: "pods",
			Parts: []string{"pods"},
		}},
		{"GET", "/api/v1/watch/namespaces/other/pods", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/watch/namespaces/other/pods", Verb: "watch",
			APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods",
			Parts: []string{"pods"},
		}},
		{"GET", "/api/v1/watch/namespaces/other/pods/foo", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/watch/namespaces/other/pods/foo", Verb: "watch",
			APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods", Name: "foo",
			Parts: []string{"pods", "foo"},
		}},
		{"GET", "/api/v1/watch/namespaces/other", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/watch/namespaces/other", Verb: "watch",
			APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "namespaces", Name: "other",
			Parts: []string{"namespaces", "other"},
		}},
		{"GET", "/apis/apps/v1/watch/namespaces/other/deployments", RequestInfo{
			IsResourceRequest: true, Path: "/apis/apps/v1/watch/namespaces/other/deployments", Verb: "watch",
			APIPrefix: "apis", APIGroup: "apps", APIVersion: "v1", Namespace: "other", Resource: "deployments",
			Parts: []string{"deployments"},
		}},

		// The legacy /proxy/ prefix: everything after the name is the proxied path.
		{"GET", "/api/v1/proxy/namespaces/other/pods/foo/some/path", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/proxy/namespaces/other/pods/foo/some/path", Verb: "proxy",
			APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods", Name: "foo",
			Parts: []string{"pods", "foo", "some", "path"},
		}},
		{"POST", "/api/v1/proxy/nodes/node-1/stats", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/proxy/nodes/node-1/stats", Verb: "proxy",
			APIPrefix: "api", APIVersion: "v1", Resource: "nodes", Name: "node-1",
			Parts: []string{"nodes", "node-1", "stats"},
		}},

		// A fieldSelector pinning metadata.name names the object of a list or watch.
		{"GET", "/api/v1/namespaces/other/pods?fieldSelector=metadata.name%3Dfoo", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/namespaces/other/pods", Verb: "list",
			APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods", Name: "foo",
			Parts: []string{"pods"}, FieldSelector: "metadata.name=foo",
		}},
		{"GET", "/api/v1/namespaces/other/pods?watch=1&fieldSelector=metadata.name%3D%3Dfoo", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/namespaces/other/pods", Verb: "watch",
			APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods", Name: "foo",
			Parts: []string{"pods"}, FieldSelector: "metadata.name==foo",
		}},
		{"GET", "/api/v1/nodes?fieldSelector=spec.unschedulable%3Dfalse,metadata.name%3Dnode-1", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/nodes", Verb: "list",
			APIPrefix: "api", APIVersion: "v1", Resource: "nodes", Name: "node-1",
			Parts: []string{"nodes"}, FieldSelector: "spec.unschedulable=false,metadata.name=node-1",
		}},
		{"GET", "/api/v1/namespaces/other/pods?fieldSelector=metadata.name!%3Dfoo", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/namespaces/other/pods", Verb: "list",
			APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods",
			Parts: []string{"pods"}, FieldSelector: "metadata.name!=foo",
		}},
		// A name that cannot be a path segment is not a name.
		{"GET", "/api/v1/namespaces/other/pods?fieldSelector=metadata.name%3D..", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/namespaces/other/pods", Verb: "list",
			APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods",
			Parts: []string{"pods"}, FieldSelector: "metadata.name=..",
		}},
		// A query that does not decode as ListOptions gives no name, but still a watch.
		{"GET", "/api/v1/namespaces/other/pods?watch=true&limit=many&fieldSelector=metadata.name%3Dfoo", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/namespaces/other/pods", Verb: "watch",
			APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods",
			Parts: []string{"pods"}, FieldSelector: "metadata.name=foo",
		}},
		{"GET", "/api/v1/namespaces/other/pods?labelSelector=a+in+(&fieldSelector=metadata.name%3Dfoo", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/namespaces/other/pods", Verb: "list",
			APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods",
			Parts: []string{"pods"}, FieldSelector: "metadata.name=foo", LabelSelector: "a in (",
		}},
		// deletecollection keeps its selectors but takes no name from them.
		{"DELETE", "/api/v1/namespaces/other/pods?fieldSelector=metadata.name%3Dfoo&labelSelector=app%3Dweb", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/namespaces/other/pods", Verb: "deletecollection",
			APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods",
			Parts: []string{"pods"}, FieldSelector: "metadata.name=foo", LabelSelector: "app=web",
		}},
		// Selectors are recorded only for collection verbs...
		{"GET", "/api/v1/namespaces/other/pods/foo?labelSelector=app%3Dweb", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/namespaces/other/pods/foo", Verb: "get",
			APIPrefix: "api", APIVersion: "v1", Namespace: "other", Resource: "pods", Name: "foo",
			Parts: []string{"pods", "foo"},
		}},
		// ...and not for the legacy /watch/ paths.
		{"GET", "/api/v1/watch/pods?labelSelector=app%3Dweb", RequestInfo{
			IsResourceRequest: true, Path: "/api/v1/watch/pods", Verb: "watch",
			APIPrefix: "api", APIVersion: "v1", Resource: "pods",
			Parts: []string{"pods"},
		}},
	}

	factory := NewRequestInfoFactory()
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.url, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, tc.url, nil)
			got, err := factory.NewRequestInfo(req)
			if err != nil {
				t.Fatalf("NewRequestInfo: %v", err)
			}
			if diff := cmp.Diff(&tc.want, got); diff != "" {
				t.Errorf("RequestInfo mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewRequestInfoErrors(t *testing.T) {
	// A path verb with nothing after it names no resource.
	for _, url := range []string{"/api/v1/watch", "/api/v1/proxy/", "/apis/apps/v1/watch"} {
		t.Run(url, func(t *testing.T) {
			_, err := NewRequestInfoFactory().NewRequestInfo(httptest.NewRequest("GET", url, nil))
			if err == nil {
				t.Fatal("expected an error")
			}
		})
	}
}

func TestNewRequestInfoCustomPrefixes(t *testing.T) {
	factory := &RequestInfoFactory{
		APIPrefixes:          sets.New("api", "apis", "legacy"),
		GrouplessAPIPrefixes: sets.New("api", "legacy"),
	}
	got, err := factory.NewRequestInfo(httptest.NewRequest("GET", "/legacy/v1/namespaces/ns/things/a", nil))
	if err != nil {
		t.Fatal(err)
	}
	want := &RequestInfo{
		IsResourceRequest: true, Path: "/legacy/v1/namespaces/ns/things/a", Verb: "get",
		APIPrefix: "legacy", APIVersion: "v1", Namespace: "ns", Resource: "things", Name: "a",
		Parts: []string{"things", "a"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("RequestInfo mismatch (-want +got):\n%s", diff)
	}
}

func TestIsLongRunning(t *testing.T) {
	tests := []struct {
		method, url string
		want        bool
	}{
		{"GET", "/api/v1/pods?watch=true", true},
		{"GET", "/api/v1/watch/namespaces/ns/pods", true},
		{"GET", "/api/v1/proxy/namespaces/ns/pods/foo/x", true},
		{"POST", "/api/v1/namespaces/ns/pods/foo/exec", true},
		{"GET", "/api/v1/namespaces/ns/pods/foo/attach", true},
		{"POST", "/api/v1/namespaces/ns/pods/foo/portforward", true},
		{"GET", "/api/v1/namespaces/ns/pods/foo/log", true},
		{"GET", "/api/v1/namespaces/ns/services/foo/proxy/x", true},
		{"GET", "/api/v1/nodes/node-1/proxy/metrics", true},
		{"GET", "/debug/pprof/profile", true},

		{"GET", "/api/v1/pods", false},
		{"GET", "/api/v1/namespaces/ns/pods/foo", false},
		{"PUT", "/api/v1/namespaces/ns/pods/foo/status", false},
		{"POST", "/api/v1/namespaces/ns/pods/foo/eviction", false},
		{"GET", "/healthz", false},
		{"GET", "/debug/pprof", false},
		// A resource named like a long-running subresource is not one.
		{"GET", "/apis/example.com/v1/exec", false},
	}
	factory := NewRequestInfoFactory()
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.url, func(t *testing.T) {
			info, err := factory.NewRequestInfo(httptest.NewRequest(tc.method, tc.url, nil))
			if err != nil {
				t.Fatal(err)
			}
			if got := IsLongRunning(info); got != tc.want {
				t.Errorf("IsLongRunning(%+v) = %v, want %v", info, got, tc.want)
			}
		})
	}
}

// Ensure the factory satisfies the resolver interface the filters use.
var _ RequestInfoResolver = &RequestInfoFactory{}

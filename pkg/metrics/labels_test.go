package metrics

import (
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/pkg/endpoints/request"
)

func TestRequestLabelsFor(t *testing.T) {
	core := func(verb, resource, subresource, scope string) RequestLabels {
		return RequestLabels{Verb: verb, Version: "v1", Resource: resource, Subresource: subresource, Scope: scope, Component: "apiserver"}
	}
	nonResource := func(verb, path string) RequestLabels {
		return RequestLabels{Verb: verb, Subresource: path, Component: "apiserver"}
	}
	withDryRun := func(l RequestLabels, dryRun string) RequestLabels {
		l.DryRun = dryRun
		return l
	}

	tests := []struct {
		method, url string
		contentType string
		want        RequestLabels
	}{
		// Reads: GET of an object, LIST of a collection, WATCH either way.
		{"GET", "/api/v1/namespaces/ns/pods/foo", "", core("GET", "pods", "", "resource")},
		{"HEAD", "/api/v1/namespaces/ns/pods/foo", "", core("GET", "pods", "", "resource")},
		{"GET", "/api/v1/namespaces/ns/pods", "", core("LIST", "pods", "", "namespace")},
		{"GET", "/api/v1/pods", "", core("LIST", "pods", "", "cluster")},
		{"GET", "/api/v1/nodes/n1", "", core("GET", "nodes", "", "resource")},
		// A list narrowed to one name by fieldSelector is still a list.
		{"GET", "/api/v1/namespaces/ns/pods?fieldSelector=metadata.name%3Dfoo", "", core("LIST", "pods", "", "namespace")},
		{"GET", "/api/v1/namespaces/ns/pods?watch=true", "", core("WATCH", "pods", "", "namespace")},
		{"GET", "/api/v1/pods?watch=1", "", core("WATCH", "pods", "", "cluster")},
		{"GET", "/api/v1/watch/namespaces/ns/pods", "", core("WATCH", "pods", "", "namespace")},
		{"GET", "/api/v1/watch/namespaces/ns/pods/foo", "", core("WATCH", "pods", "", "resource")},
		// The namespaces resource itself.
		{"GET", "/api/v1/namespaces", "", core("LIST", "namespaces", "", "cluster")},
		{"GET", "/api/v1/namespaces/ns", "", core("GET", "namespaces", "", "resource")},
		{"PUT", "/api/v1/namespaces/ns/finalize", "", core("PUT", "namespaces", "finalize", "resource")},

		// Writes are reported by method; creates are resource-scoped.
		{"POST", "/api/v1/namespaces/ns/configmaps", "", core("POST", "configmaps", "", "resource")},
		{"POST", "/api/v1/namespaces", "", core("POST", "namespaces", "", "resource")},
		{"PUT", "/api/v1/namespaces/ns/pods/foo/status", "", core("PUT", "pods", "status", "resource")},
		{"PATCH", "/api/v1/namespaces/ns/pods/foo", "application/merge-patch+json", core("PATCH", "pods", "", "resource")},
		{"PATCH", "/api/v1/namespaces/ns/pods/foo", "application/apply-patch+yaml", core("APPLY", "pods", "", "resource")},
		{"DELETE", "/api/v1/namespaces/ns/pods/foo", "", core("DELETE", "pods", "", "resource")},
		{"DELETE", "/api/v1/namespaces/ns/pods", "", core("DELETE", "pods", "", "namespace")},
		{"PUT", "/apis/apps/v1/namespaces/ns/deployments/d/scale", "", RequestLabels{
			Verb: "PUT", Group: "apps", Version: "v1", Resource: "deployments", Subresource: "scale", Scope: "resource", Component: "apiserver",
		}},

		// Streaming subresources are CONNECT whatever the method.
		{"POST", "/api/v1/namespaces/ns/pods/foo/exec", "", core("CONNECT", "pods", "exec", "resource")},
		{"GET", "/api/v1/namespaces/ns/pods/foo/attach", "", core("CONNECT", "pods", "attach", "resource")},
		{"GET", "/api/v1/namespaces/ns/pods/foo/log", "", core("CONNECT", "pods", "log", "resource")},
		{"POST", "/api/v1/namespaces/ns/pods/foo/portforward", "", core("CONNECT", "pods", "portforward", "resource")},
		{"DELETE", "/api/v1/namespaces/ns/services/s/proxy/x", "", core("CONNECT", "services", "proxy", "resource")},

		// Dry run.
		{"POST", "/api/v1/namespaces/ns/configmaps?dryRun=All", "", withDryRun(core("POST", "configmaps", "", "resource"), "All")},
		{"POST", "/api/v1/namespaces/ns/configmaps?dryRun=All&dryRun=All", "", withDryRun(core("POST", "configmaps", "", "resource"), "All")},
		{"POST", "/api/v1/namespaces/ns/configmaps?dryRun=Some", "", withDryRun(core("POST", "configmaps", "", "resource"), "invalid")},
		{"POST", "/api/v1/namespaces/ns/configmaps?dryRun=", "", withDryRun(core("POST", "configmaps", "", "resource"), "invalid")},

		// Methods kube-apiserver does not report.
		{"OPTIONS", "/api/v1/pods", "", core("other", "pods", "", "cluster")},
		{"BREW", "/api/v1/namespaces/ns/pods/foo", "", core("other", "pods", "", "resource")},

		// Non-resource requests carry their path as subresource.
		{"GET", "/healthz", "", nonResource("GET", "/healthz")},
		{"HEAD", "/version", "", nonResource("GET", "/version")},
		{"GET", "/apis/apps/v1", "", nonResource("GET", "/apis/apps/v1")},
		{"POST", "/apis", "", nonResource("POST", "/apis")},
		{"BREW", "/healthz", "", nonResource("other", "/healthz")},
	}
	resolver := request.NewRequestInfoFactory()
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.url+" "+tc.contentType, func(t *testing.T) {
			r := httptest.NewRequest(tc.method, tc.url, nil)
			if tc.contentType != "" {
				r.Header.Set("Content-Type", tc.contentType)
			}
			info, err := resolver.NewRequestInfo(r)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, RequestLabelsFor(r, info)); diff != "" {
				t.Errorf("labels (-want +got):\n%s", diff)
			}
		})
	}
}

package filters

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/pkg/endpoints/request"
)

func TestWithRequestInfoPutsTheInfoInTheContext(t *testing.T) {
	var got *request.RequestInfo
	h := WithRequestInfo(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ = request.RequestInfoFrom(r.Context())
	}), request.NewRequestInfoFactory())

	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("DELETE", "/apis/apps/v1/namespaces/ns/deployments/d", nil))

	if got == nil {
		t.Fatal("no RequestInfo in the handler's context")
	}
	if got.Verb != "delete" || got.APIGroup != "apps" || got.Namespace != "ns" || got.Resource != "deployments" || got.Name != "d" {
		t.Errorf("unexpected RequestInfo %+v", got)
	}
}

func TestWithRequestInfoRejectsUnparsablePaths(t *testing.T) {
	called := false
	h := WithRequestInfo(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { called = true }), request.NewRequestInfoFactory())

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/v1/watch?timeoutSeconds=1", nil))

	if called {
		t.Error("the handler was called")
	}
	if rec.Code != http.StatusInternalServerError {
		t.Fatalf("status %d, want 500", rec.Code)
	}
	// kube-apiserver 1.37.1's answer to GET /api/v1/watch?timeoutSeconds=1
	// (test/compat/testdata/paths).
	want := "Internal Server Error: \"/api/v1/watch?timeoutSeconds=1\": failed to create RequestInfo: unable to determine kind and namespace from url, /api/v1/watch?timeoutSeconds=1\n"
	if got := rec.Body.String(); got != want || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/plain") {
		t.Errorf("answer %q (%s), want %q as text/plain", got, rec.Header().Get("Content-Type"), want)
	}
}

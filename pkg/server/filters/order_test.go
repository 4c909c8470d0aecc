package filters

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/endpoints/warning"
	"github.com/kapi-dev/kapi/pkg/metrics"
)

// documentedChain is the chain the server is built with (Chain), around
// api, so that these tests check the order it really has.
func documentedChain(api http.Handler, authn authenticator.Request, authz authorizer.Authorizer, reg *metrics.Registry) http.Handler {
	logger, _ := newTestLogger()
	return Chain(ChainConfig{
		Authenticator: authn, Authorizer: authz,
		MaxRequestsInFlight: 1, MaxMutatingRequestsInFlight: 1,
		RequestTimeout: longTimeout, Metrics: reg, Logger: logger,
	})(api)
}

// tokenAuthenticator knows one token per user; requests without a token
// are anonymous, as with kube-apiserver's default --anonymous-auth.
var tokenAuthenticator = authenticator.RequestFunc(func(r *http.Request) (*authenticator.Response, bool, error) {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	switch {
	case !ok:
		return &authenticator.Response{User: &user.DefaultInfo{Name: user.Anonymous, Groups: []string{user.AllUnauthenticated}}}, true, nil
	case token == "admin-token":
		return &authenticator.Response{User: &user.DefaultInfo{Name: "admin", Groups: []string{user.SystemPrivilegedGrp, user.AllAuthenticated}}}, true, nil
	case token == "alice-token":
		return &authenticator.Response{User: &user.DefaultInfo{Name: "alice", Groups: []string{user.AllAuthenticated}}}, true, nil
	}
	return nil, false, errInvalidToken
})

var errInvalidToken = errors.New("invalid bearer token")

// adminsOnly allows system:masters.
var adminsOnly = authorizer.AuthorizerFunc(func(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	for _, g := range a.GetUser().GetGroups() {
		if g == user.SystemPrivilegedGrp {
			return authorizer.DecisionAllow, "", nil
		}
	}
	return authorizer.DecisionNoOpinion, "", nil
})

func TestDocumentedChainMatchesKubeAPIServer(t *testing.T) {
	tests := []struct {
		file  string
		token string
	}{
		{"invalid-bearer-token-401.txt", "invalid-token"},
		{"no-credentials-anonymous.txt", ""},
		{"forbidden-alice-list-pods.txt", "alice-token"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			ref := readReferenceStatus(t, tc.file)
			srv := httptest.NewServer(documentedChain(okHandler, tokenAuthenticator, adminsOnly, metrics.NewRegistry()))
			defer srv.Close()

			req, _ := http.NewRequest(ref.method, srv.URL+ref.path, nil)
			if tc.token != "" {
				req.Header.Set("Authorization", "Bearer "+tc.token)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()

			if int32(resp.StatusCode) != ref.status.Code {
				t.Fatalf("status %d, want %d", resp.StatusCode, ref.status.Code)
			}
			if got := resp.Header.Get("Cache-Control"); got != "no-cache, private" {
				t.Errorf("Cache-Control %q", got)
			}
			if got := resp.Header.Get("Content-Type"); got != "application/json" {
				t.Errorf("Content-Type %q", got)
			}
			if diff := cmp.Diff(ref.status, decodeStatus(t, body)); diff != "" {
				t.Errorf("Status differs from kube-apiserver's (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDocumentedChainServesAdmins(t *testing.T) {
	reg := metrics.NewRegistry()
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		warning.AddWarning(r.Context(), "deprecated")
		u, _ := request.UserFrom(r.Context())
		_, _ = io.WriteString(w, u.GetName())
	})
	srv := httptest.NewServer(documentedChain(api, tokenAuthenticator, adminsOnly, reg))
	defer srv.Close()

	req, _ := http.NewRequest("GET", srv.URL+"/api/v1/namespaces/ns/pods/p", nil)
	req.Header.Set("Authorization", "Bearer admin-token")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(body) != "admin" {
		t.Fatalf("got %d %q", resp.StatusCode, body)
	}
	if got := resp.Header.Values("Warning"); len(got) != 1 || got[0] != `299 - "deprecated"` {
		t.Errorf("Warning headers %q", got)
	}
	labels := map[string]string{"verb": "GET", "resource": "pods", "scope": "resource", "code": "200"}
	if got := metricValue(t, reg, "apiserver_request_total", labels); got != 1 {
		t.Errorf("apiserver_request_total%v = %v, want 1", labels, got)
	}
}

func TestDocumentedChainTimesOut(t *testing.T) {
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
		warning.AddWarning(r.Context(), "after the deadline")
	})
	srv := httptest.NewServer(documentedChain(api, tokenAuthenticator, adminsOnly, metrics.NewRegistry()))
	defer srv.Close()

	req, _ := http.NewRequest("GET", srv.URL+"/api/v1/pods?timeout=1ms", nil)
	req.Header.Set("Authorization", "Bearer admin-token")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusGatewayTimeout {
		t.Fatalf("status %d, want 504", resp.StatusCode)
	}
	if st := decodeStatus(t, body); st.Reason != "Timeout" {
		t.Errorf("unexpected Status %+v", st)
	}
	if got := resp.Header.Get("Cache-Control"); got != "no-cache, private" {
		t.Errorf("Cache-Control %q", got)
	}
}

package filters

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
)

// rejectAll fails every request as a bad bearer token would.
var rejectAll = authenticator.RequestFunc(func(*http.Request) (*authenticator.Response, bool, error) {
	return nil, false, errors.New("invalid bearer token")
})

func authenticateAs(name string, groups []string, audiences ...string) authenticator.Request {
	return authenticator.RequestFunc(func(*http.Request) (*authenticator.Response, bool, error) {
		return &authenticator.Response{User: &user.DefaultInfo{Name: name, Groups: groups}, Audiences: audiences}, true, nil
	})
}

var noCredentials = authenticator.RequestFunc(func(*http.Request) (*authenticator.Response, bool, error) {
	return nil, false, nil
})

// clearXRemote stands for the front-proxy headers --requestheader-* names.
func clearXRemote(h http.Header) {
	for name := range h {
		if strings.HasPrefix(name, "X-Remote-") {
			delete(h, name)
		}
	}
}

func TestAuthenticationSuccess(t *testing.T) {
	var seen *http.Request
	h := WithAuthentication(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = r
	}), authenticateAs("alice", []string{"system:authenticated"}), nil, clearXRemote, nil, nil)

	r := newRequest(t, "GET", "/api/v1/namespaces", nil)
	r.Header.Set("Authorization", "Bearer secret")
	r.Header.Set("X-Remote-User", "mallory")
	r.Header.Set("X-Remote-Group", "system:masters")
	r.Header.Set("X-Remote-Extra-Scopes", "everything")
	r.Header.Set("Accept", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)

	if seen == nil {
		t.Fatal("the handler was not called")
	}
	u, ok := request.UserFrom(seen.Context())
	if !ok || u.GetName() != "alice" {
		t.Errorf("user in context: %v, want alice", u)
	}
	for _, h := range []string{"Authorization", "X-Remote-User", "X-Remote-Group", "X-Remote-Extra-Scopes"} {
		if v := seen.Header.Get(h); v != "" {
			t.Errorf("%s: %q reached the handler", h, v)
		}
	}
	if seen.Header.Get("Accept") != "application/json" {
		t.Error("an unrelated header was removed")
	}
	if rec.Header().Get("Connection") != "" {
		t.Error("HTTP/1 connection marked for closing")
	}
}

// TestUnauthorizedMatchesKubeAPIServer compares the 401 body with the one
// kube-apiserver sent for an invalid bearer token.
func TestUnauthorizedMatchesKubeAPIServer(t *testing.T) {
	tests := []struct {
		name string
		auth authenticator.Request
	}{
		{"invalid credentials", rejectAll},
		{"no credentials and no anonymous authenticator", noCredentials},
		{"credential for another audience", authenticateAs("alice", nil, "other-server")},
	}
	want := readReferenceStatus(t, "invalid-bearer-token-401.txt")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			logger, _ := newTestLogger()
			called := false
			h := WithAuthentication(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { called = true }),
				tc.auth, []string{"https://kubernetes.default.svc"}, nil, nil, logger)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, newRequest(t, "GET", "/api/v1/namespaces", nil))

			if called {
				t.Error("the handler was called")
			}
			if rec.Code != http.StatusUnauthorized {
				t.Fatalf("status %d, want 401", rec.Code)
			}
			if diff := cmp.Diff(want.status, decodeStatus(t, rec.Body.Bytes())); diff != "" {
				t.Errorf("Status differs from kube-apiserver's (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAuthenticationErrorsAreLogged(t *testing.T) {
	logger, logs := newTestLogger()
	h := WithAuthentication(okHandler, rejectAll, nil, nil, nil, logger)
	h.ServeHTTP(httptest.NewRecorder(), newRequest(t, "GET", "/api/v1/namespaces", nil))
	if !strings.Contains(logs.String(), "invalid bearer token") {
		t.Errorf("log lacks the error:\n%s", logs)
	}
}

func TestAudiences(t *testing.T) {
	api := []string{"https://kubernetes.default.svc", "kapi"}
	tests := []struct {
		name         string
		apiAudiences []string
		credential   []string
		want         int
	}{
		{"server accepts any audience", nil, []string{"x"}, http.StatusOK},
		{"credential without audiences", api, nil, http.StatusOK},
		{"an audience in common", api, []string{"x", "kapi"}, http.StatusOK},
		{"no audience in common", api, []string{"x"}, http.StatusUnauthorized},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			logger, _ := newTestLogger()
			h := WithAuthentication(okHandler, authenticateAs("alice", nil, tc.credential...), tc.apiAudiences, nil, nil, logger)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, newRequest(t, "GET", "/api/v1/namespaces", nil))
			if rec.Code != tc.want {
				t.Errorf("status %d, want %d", rec.Code, tc.want)
			}
		})
	}
}

// HTTP/2 connections of unauthenticated clients serve one request.
func TestHTTP2ConnectionsOfUnauthenticatedClientsAreClosed(t *testing.T) {
	tests := []struct {
		name          string
		auth          authenticator.Request
		protoMajor    int
		wantConnClose bool
	}{
		{"HTTP/2 anonymous", authenticateAs(user.Anonymous, []string{user.AllUnauthenticated}), 2, true},
		{"HTTP/2 unauthenticated group", authenticateAs("someone", []string{user.AllUnauthenticated}), 2, true},
		{"HTTP/2 failure", rejectAll, 2, true},
		{"HTTP/2 authenticated", authenticateAs("alice", []string{user.AllAuthenticated}), 2, false},
		{"HTTP/1 anonymous", authenticateAs(user.Anonymous, []string{user.AllUnauthenticated}), 1, false},
		{"HTTP/1 failure", rejectAll, 1, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			logger, _ := newTestLogger()
			h := WithAuthentication(okHandler, tc.auth, nil, nil, nil, logger)
			r := newRequest(t, "GET", "/version", nil)
			r.ProtoMajor = tc.protoMajor
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			if got := rec.Header().Get("Connection") == "close"; got != tc.wantConnClose {
				t.Errorf("Connection: close set = %v, want %v", got, tc.wantConnClose)
			}
		})
	}
}

func TestWithAuthenticationRequiresAnAuthenticator(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for a nil authenticator")
		}
	}()
	WithAuthentication(okHandler, nil, nil, nil, nil, nil)
}

package filters

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
	"github.com/kapi-dev/kapi/pkg/endpoints/auditcontext"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
)

// check is one question the filter asked the authorizer, written
// "verb group/resource[/subresource] namespace/name" with the requestor's
// extra keys when it has any.
func checkString(a authorizer.Attributes) string {
	res := a.GetResource()
	if a.GetSubresource() != "" {
		res += "/" + a.GetSubresource()
	}
	s := fmt.Sprintf("%s %s/%s %s/%s", a.GetVerb(), a.GetAPIGroup(), res, a.GetNamespace(), a.GetName())
	if extra := a.GetUser().GetExtra(); len(extra) > 0 {
		s += fmt.Sprintf(" extra=%v", extra)
	}
	return s
}

// recordingAuthorizer allows what allow says and records every question.
type recordingAuthorizer struct {
	allow  func(check string) (authorizer.Decision, string, error)
	checks []string
}

func (r *recordingAuthorizer) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	c := checkString(a)
	r.checks = append(r.checks, c)
	return r.allow(c)
}

func allowPrefixes(prefixes ...string) func(string) (authorizer.Decision, string, error) {
	return func(c string) (authorizer.Decision, string, error) {
		for _, p := range prefixes {
			if strings.HasPrefix(c, p) {
				return authorizer.DecisionAllow, "", nil
			}
		}
		return authorizer.DecisionNoOpinion, "", nil
	}
}

func TestImpersonationHeadersAndChecks(t *testing.T) {
	alice := &user.DefaultInfo{Name: "alice", Groups: []string{user.AllAuthenticated}}
	daemon := &user.DefaultInfo{Name: "system:serviceaccount:kube-system:agent", Groups: []string{"system:serviceaccounts"},
		Extra: map[string][]string{nodeNameExtraKey: {"n1"}, "authentication.kubernetes.io/pod-name": {"agent-x"}}}
	tests := []struct {
		name      string
		requestor *user.DefaultInfo
		headers   [][2]string
		allow     func(string) (authorizer.Decision, string, error)
		wantUser  *user.DefaultInfo // nil: the handler is not reached
		wantCode  int
		wantMsg   string
		// wantChecks, when set, are all the questions asked, in order.
		wantChecks []string
	}{
		{
			name: "no impersonation asks nothing", requestor: alice,
			allow:      allowPrefixes(),
			wantUser:   alice,
			wantChecks: []string{},
		},
		{
			name: "legacy: user, uid, groups and extra are each asked, in that order", requestor: alice,
			headers: [][2]string{{"Impersonate-User", "bob"}, {"Impersonate-Group", "g1"}, {"Impersonate-Group", "g2"},
				{"Impersonate-Uid", "u1"}, {"Impersonate-Extra-Scopes", "a"}, {"Impersonate-Extra-Scopes", "b"}, {"Impersonate-Extra-Acme.io%2FTeam", "x"}},
			allow:    allowPrefixes("impersonate "),
			wantUser: &user.DefaultInfo{Name: "bob", UID: "u1", Groups: []string{"g1", "g2", user.AllAuthenticated}, Extra: map[string][]string{"scopes": {"a", "b"}, "acme.io/team": {"x"}}},
			wantChecks: []string{
				"impersonate-on:user-info:list /pods /",
				"impersonate /users /bob",
				"impersonate authentication.k8s.io/uids /u1",
				"impersonate /groups /g1",
				"impersonate /groups /g2",
				"impersonate authentication.k8s.io/userextras/acme.io/team /x",
				"impersonate authentication.k8s.io/userextras/scopes /a",
				"impersonate authentication.k8s.io/userextras/scopes /b",
			},
		},
		{
			name: "user-info: four groups are first asked for all at once", requestor: alice,
			headers:  [][2]string{{"Impersonate-User", "bob"}, {"Impersonate-Group", "g1"}, {"Impersonate-Group", "g2"}, {"Impersonate-Group", "g3"}, {"Impersonate-Group", "g4"}},
			allow:    allowPrefixes("impersonate-on:user-info:list", "impersonate:user-info authentication.k8s.io/users /bob", "impersonate:user-info authentication.k8s.io/groups /*"),
			wantUser: &user.DefaultInfo{Name: "bob", Groups: []string{"g1", "g2", "g3", "g4", user.AllAuthenticated}},
			wantChecks: []string{
				"impersonate-on:user-info:list /pods /",
				"impersonate:user-info authentication.k8s.io/users /bob",
				"impersonate:user-info authentication.k8s.io/groups /*",
			},
		},
		{
			name: "user-info: many extra values are first asked for all at once, then one by one", requestor: alice,
			headers:  [][2]string{{"Impersonate-User", "bob"}, {"Impersonate-Extra-Acme.io%2fa", "1"}, {"Impersonate-Extra-Acme.io%2fa", "2"}, {"Impersonate-Extra-Acme.io%2fb", "3"}, {"Impersonate-Extra-Acme.io%2fb", "4"}},
			allow:    allowPrefixes("impersonate-on:user-info:list", "impersonate:user-info authentication.k8s.io/users /bob", "impersonate:user-info authentication.k8s.io/userextras/acme.io/"),
			wantUser: &user.DefaultInfo{Name: "bob", Groups: []string{user.AllAuthenticated}, Extra: map[string][]string{"acme.io/a": {"1", "2"}, "acme.io/b": {"3", "4"}}},
			wantChecks: []string{
				"impersonate-on:user-info:list /pods /",
				"impersonate:user-info authentication.k8s.io/users /bob",
				"impersonate:user-info authentication.k8s.io/userextras/* /*",
				"impersonate:user-info authentication.k8s.io/userextras/acme.io/a /1",
				"impersonate:user-info authentication.k8s.io/userextras/acme.io/a /2",
				"impersonate:user-info authentication.k8s.io/userextras/acme.io/b /3",
				"impersonate:user-info authentication.k8s.io/userextras/acme.io/b /4",
			},
		},
		{
			name: "associated-node: a service account acts as its own node, whatever the node's name", requestor: daemon,
			headers:  [][2]string{{"Impersonate-User", "system:node:n1"}},
			allow:    allowPrefixes("impersonate-on:associated-node:list", "impersonate:associated-node"),
			wantUser: &user.DefaultInfo{Name: "system:node:n1", Groups: []string{nodesGroup, user.AllAuthenticated}},
			wantChecks: []string{
				"impersonate-on:associated-node:list /pods / extra=map[authentication.kubernetes.io/associated-node-keys:[authentication.kubernetes.io/node-name authentication.kubernetes.io/pod-name]]",
				"impersonate:associated-node authentication.k8s.io/nodes /* extra=map[authentication.kubernetes.io/associated-node-keys:[authentication.kubernetes.io/node-name authentication.kubernetes.io/pod-name]]",
			},
		},
		{
			name: "associated-node does not apply to another node: arbitrary-node is asked", requestor: daemon,
			headers:  [][2]string{{"Impersonate-User", "system:node:n2"}},
			allow:    allowPrefixes("impersonate-on:arbitrary-node:list", "impersonate:arbitrary-node authentication.k8s.io/nodes /n2"),
			wantUser: &user.DefaultInfo{Name: "system:node:n2", Groups: []string{nodesGroup, user.AllAuthenticated}},
		},
		{
			name: "serviceaccount mode: the account's groups", requestor: alice,
			headers:  [][2]string{{"Impersonate-User", "system:serviceaccount:ns:sa"}},
			allow:    allowPrefixes("impersonate-on:serviceaccount:list", "impersonate:serviceaccount authentication.k8s.io/serviceaccounts ns/sa"),
			wantUser: &user.DefaultInfo{Name: "system:serviceaccount:ns:sa", Groups: []string{"system:serviceaccounts", "system:serviceaccounts:ns", user.AllAuthenticated}},
		},
		{
			name: "anonymous gets system:unauthenticated once", requestor: alice,
			headers:  [][2]string{{"Impersonate-User", user.Anonymous}, {"Impersonate-Group", user.AllUnauthenticated}},
			allow:    allowPrefixes("impersonate "),
			wantUser: &user.DefaultInfo{Name: user.Anonymous, Groups: []string{user.AllUnauthenticated}},
		},
		{
			name: "a denial's reason ends the message", requestor: alice,
			headers: [][2]string{{"Impersonate-User", "system:serviceaccount:ns:sa"}, {"Impersonate-Group", "g"}},
			allow: func(string) (authorizer.Decision, string, error) {
				return authorizer.DecisionDeny, "not on weekends", nil
			},
			wantCode: http.StatusForbidden,
			wantMsg:  `serviceaccounts "sa" is forbidden: User "alice" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ns": not on weekends`,
		},
		{
			name: "an authorizer's error is a 403 that says it", requestor: alice,
			headers: [][2]string{{"Impersonate-User", "system:serviceaccount:ns:sa"}, {"Impersonate-Uid", "1"}},
			allow: func(string) (authorizer.Decision, string, error) {
				return authorizer.DecisionNoOpinion, "webhook down", errors.New("connection refused")
			},
			wantCode: http.StatusForbidden,
			wantMsg:  `serviceaccounts "sa" is forbidden: User "alice" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ns": connection refused: webhook down`,
		},
		{
			name: "a node cannot be given groups in a node mode, so legacy answers", requestor: alice,
			headers:  [][2]string{{"Impersonate-User", "system:node:n1"}, {"Impersonate-Group", "g"}},
			allow:    allowPrefixes("impersonate "),
			wantUser: &user.DefaultInfo{Name: "system:node:n1", Groups: []string{"g", user.AllAuthenticated}},
		},
		{
			name: "an empty extra key is refused by user-info, and legacy answers", requestor: alice,
			headers:  [][2]string{{"Impersonate-User", "bob"}, {"Impersonate-Extra-", "v"}},
			allow:    allowPrefixes("impersonate", "impersonate-on"),
			wantUser: &user.DefaultInfo{Name: "bob", Groups: []string{user.AllAuthenticated}, Extra: map[string][]string{"": {"v"}}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			authz := &recordingAuthorizer{allow: tc.allow, checks: []string{}}
			var got user.Info
			handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got, _ = request.UserFrom(r.Context())
				for name := range r.Header {
					if strings.HasPrefix(name, "Impersonate-") {
						t.Errorf("header %s reached the handler", name)
					}
				}
			})
			r := newRequest(t, http.MethodGet, "/api/v1/pods", nil)
			r = r.WithContext(request.WithUser(r.Context(), tc.requestor))
			for _, h := range tc.headers {
				r.Header.Add(h[0], h[1])
			}
			w := httptest.NewRecorder()
			WithImpersonation(handler, authz, nil).ServeHTTP(w, r)

			if tc.wantUser != nil {
				if w.Code != http.StatusOK {
					t.Fatalf("status %d: %s", w.Code, w.Body)
				}
				if diff := cmp.Diff(tc.wantUser, got); diff != "" {
					t.Errorf("user (-want +got):\n%s", diff)
				}
			} else {
				if got != nil {
					t.Errorf("handler reached as %v", got)
				}
				if w.Code != tc.wantCode {
					t.Fatalf("status %d, want %d: %s", w.Code, tc.wantCode, w.Body)
				}
				if st := decodeStatus(t, w.Body.Bytes()); st.Message != tc.wantMsg {
					t.Errorf("message\n got %s\nwant %s", st.Message, tc.wantMsg)
				}
			}
			if tc.wantChecks != nil {
				if diff := cmp.Diff(tc.wantChecks, authz.checks); diff != "" {
					t.Errorf("authorizer asked (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestImpersonationRemembersTheModeThatWorked: once a requestor succeeded
// through legacy impersonation, its next failure is legacy's 403, not the
// first constrained mode's (kube-apiserver behaves so; the recording shows
// it for alice).
func TestImpersonationRemembersTheModeThatWorked(t *testing.T) {
	alice := &user.DefaultInfo{Name: "alice", Groups: []string{user.AllAuthenticated}}
	authz := &recordingAuthorizer{allow: allowPrefixes("impersonate /users /bob")}
	h := WithImpersonation(okHandler, authz, nil)
	do := func(as string) *httptest.ResponseRecorder {
		r := newRequest(t, http.MethodGet, "/api/v1/pods", nil)
		r = r.WithContext(request.WithUser(r.Context(), alice))
		r.Header.Set("Impersonate-User", as)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	before := decodeStatus(t, do("carol").Body.Bytes()).Message
	if want := `pods is forbidden: User "alice" cannot impersonate-on:user-info:list resource "pods" in API group "" at the cluster scope`; before != want {
		t.Errorf("before any success:\n got %s\nwant %s", before, want)
	}
	if w := do("bob"); w.Code != http.StatusOK {
		t.Fatalf("impersonating bob: %d %s", w.Code, w.Body)
	}
	after := decodeStatus(t, do("carol").Body.Bytes()).Message
	if want := `users "carol" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope`; after != want {
		t.Errorf("after legacy succeeded:\n got %s\nwant %s", after, want)
	}
}

// TestImpersonationIsAudited: the audit event of an impersonated request
// names the user it acts as (impersonatedUser), beside the authenticated
// user the audit filter records.
func TestImpersonationIsAudited(t *testing.T) {
	admin := &user.DefaultInfo{Name: "admin", Groups: []string{user.AllAuthenticated}}
	authz := &recordingAuthorizer{allow: allowPrefixes("impersonate")}
	ac := auditcontext.New("id")
	ac.Init(auditcontext.LevelMetadata, false)
	r := newRequest(t, http.MethodGet, "/api/v1/pods", nil)
	r = r.WithContext(auditcontext.With(request.WithUser(r.Context(), admin), ac))
	r.Header.Set("Impersonate-User", "bob")
	w := httptest.NewRecorder()
	WithImpersonation(okHandler, authz, nil).ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	got := ac.Recorded().Impersonated
	if got == nil || got.GetName() != "bob" {
		t.Fatalf("impersonated user recorded for audit = %v, want bob", got)
	}
}

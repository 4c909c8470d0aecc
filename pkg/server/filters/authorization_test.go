package filters

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

// decide returns an authorizer that always answers the same.
func decide(d authorizer.Decision, reason string, err error) authorizer.Authorizer {
	return authorizer.AuthorizerFunc(func(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
		return d, reason, err
	})
}

var denyAll = decide(authorizer.DecisionNoOpinion, "", nil)

// TestForbiddenMatchesKubeAPIServer replays requests kube-apiserver
// refused and compares the Status bodies.
func TestForbiddenMatchesKubeAPIServer(t *testing.T) {
	tests := []struct {
		file string
		user string
	}{
		{"forbidden-alice-create-configmap.txt", "alice"},
		{"forbidden-alice-get-pod.txt", "alice"},
		{"forbidden-alice-list-nodes-cluster-scoped.txt", "alice"},
		{"forbidden-alice-list-pods.txt", "alice"},
		{"forbidden-serviceaccount-token.txt", "system:serviceaccount:defaulting:sa1"},
		{"no-credentials-anonymous.txt", "system:anonymous"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			ref := readReferenceStatus(t, tc.file)
			h := WithAuthorization(okHandler, denyAll, nil, nil)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, asUser(newRequest(t, ref.method, ref.path, nil), tc.user))

			if rec.Code != http.StatusForbidden {
				t.Fatalf("status %d, want 403", rec.Code)
			}
			if got := rec.Header().Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("X-Content-Type-Options %q, want nosniff", got)
			}
			if diff := cmp.Diff(ref.status, decodeStatus(t, rec.Body.Bytes())); diff != "" {
				t.Errorf("Status differs from kube-apiserver's (-want +got):\n%s", diff)
			}
		})
	}
}

func TestForbiddenMessages(t *testing.T) {
	tests := []struct {
		name        string
		method, url string
		reason      string
		wantMessage string
		wantDetails *metav1.StatusDetails
	}{
		{
			name: "subresource", method: "GET", url: "/api/v1/namespaces/ns/pods/p/log",
			wantMessage: `pods "p" is forbidden: User "bob" cannot get resource "pods/log" in API group "" in the namespace "ns"`,
			wantDetails: &metav1.StatusDetails{Name: "p", Kind: "pods"},
		},
		{
			name: "named group", method: "PATCH", url: "/apis/apps/v1/namespaces/ns/deployments/d/scale",
			wantMessage: `deployments.apps "d" is forbidden: User "bob" cannot patch resource "deployments/scale" in API group "apps" in the namespace "ns"`,
			wantDetails: &metav1.StatusDetails{Name: "d", Group: "apps", Kind: "deployments"},
		},
		{
			name: "cluster-scoped object", method: "DELETE", url: "/apis/rbac.authorization.k8s.io/v1/clusterroles/admin",
			wantMessage: `clusterroles.rbac.authorization.k8s.io "admin" is forbidden: User "bob" cannot delete resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope`,
			wantDetails: &metav1.StatusDetails{Name: "admin", Group: "rbac.authorization.k8s.io", Kind: "clusterroles"},
		},
		{
			name: "the namespace itself", method: "PUT", url: "/api/v1/namespaces/ns/finalize",
			wantMessage: `namespaces "ns" is forbidden: User "bob" cannot update resource "namespaces/finalize" in API group "" in the namespace "ns"`,
			wantDetails: &metav1.StatusDetails{Name: "ns", Kind: "namespaces"},
		},
		{
			name: "watch", method: "GET", url: "/api/v1/namespaces/ns/secrets?watch=1",
			wantMessage: `secrets is forbidden: User "bob" cannot watch resource "secrets" in API group "" in the namespace "ns"`,
			wantDetails: &metav1.StatusDetails{Kind: "secrets"},
		},
		{
			name: "deletecollection", method: "DELETE", url: "/api/v1/namespaces/ns/configmaps",
			wantMessage: `configmaps is forbidden: User "bob" cannot deletecollection resource "configmaps" in API group "" in the namespace "ns"`,
			wantDetails: &metav1.StatusDetails{Kind: "configmaps"},
		},
		{
			name: "non-resource path", method: "GET", url: "/foo",
			wantMessage: `forbidden: User "bob" cannot get path "/foo"`,
			wantDetails: &metav1.StatusDetails{},
		},
		{
			name: "the authorizer's reason is appended", method: "GET", url: "/api/v1/nodes/n1",
			reason:      `node "n2" cannot get node "n1"`,
			wantMessage: `nodes "n1" is forbidden: User "bob" cannot get resource "nodes" in API group "" at the cluster scope: node "n2" cannot get node "n1"`,
			wantDetails: &metav1.StatusDetails{Name: "n1", Kind: "nodes"},
		},
		{
			name: "markup in the path is escaped", method: "GET", url: "/<script>&",
			wantMessage: `forbidden: User "bob" cannot get path "/&lt;script&gt;&amp;"`,
			wantDetails: &metav1.StatusDetails{},
		},
		{
			name: "a reason with a percent sign is not a format", method: "GET", url: "/healthz",
			reason:      "100% denied",
			wantMessage: `forbidden: User "bob" cannot get path "/healthz": 100% denied`,
			wantDetails: &metav1.StatusDetails{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := WithAuthorization(okHandler, decide(authorizer.DecisionDeny, tc.reason, nil), nil, nil)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, asUser(newRequest(t, tc.method, tc.url, nil), "bob"))

			want := metav1.Status{
				TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
				Status:   metav1.StatusFailure, Reason: metav1.StatusReasonForbidden, Code: 403,
				Message: tc.wantMessage, Details: tc.wantDetails,
			}
			if diff := cmp.Diff(want, decodeStatus(t, rec.Body.Bytes())); diff != "" {
				t.Errorf("Status (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAuthorizationDecisions(t *testing.T) {
	broken := errors.New("webhook unreachable")
	tests := []struct {
		name       string
		authorizer authorizer.Authorizer
		wantCode   int
	}{
		{"allow", decide(authorizer.DecisionAllow, "", nil), http.StatusOK},
		{"allow despite an error", decide(authorizer.DecisionAllow, "", broken), http.StatusOK},
		{"deny", decide(authorizer.DecisionDeny, "", nil), http.StatusForbidden},
		{"no opinion", decide(authorizer.DecisionNoOpinion, "", nil), http.StatusForbidden},
		{"error", decide(authorizer.DecisionNoOpinion, "", broken), http.StatusInternalServerError},
		{"deny with an error", decide(authorizer.DecisionDeny, "", broken), http.StatusInternalServerError},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			logger, _ := newTestLogger()
			rec := httptest.NewRecorder()
			WithAuthorization(okHandler, tc.authorizer, nil, logger).ServeHTTP(rec, asUser(newRequest(t, "GET", "/api/v1/pods", nil), "bob"))
			if rec.Code != tc.wantCode {
				t.Errorf("status %d, want %d", rec.Code, tc.wantCode)
			}
		})
	}
}

func TestAuthorizerSeesTheRequestAttributes(t *testing.T) {
	var got authorizer.Attributes
	a := authorizer.AuthorizerFunc(func(_ context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
		got = attrs
		return authorizer.DecisionAllow, "", nil
	})
	r := asUser(newRequest(t, "PUT", "/apis/apps/v1/namespaces/ns/deployments/d/status", nil), "bob", "devs")
	WithAuthorization(okHandler, a, nil, nil).ServeHTTP(httptest.NewRecorder(), r)

	if got == nil {
		t.Fatal("the authorizer was not called")
	}
	if got.GetUser().GetName() != "bob" || got.GetUser().GetGroups()[0] != "devs" {
		t.Errorf("user %+v", got.GetUser())
	}
	want := authorizer.AttributesRecord{
		User: got.GetUser(), Verb: "update", Namespace: "ns", APIGroup: "apps", APIVersion: "v1",
		Resource: "deployments", Subresource: "status", Name: "d", ResourceRequest: true,
		Path: "/apis/apps/v1/namespaces/ns/deployments/d/status",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("attributes (-want +got):\n%s", diff)
	}
	if got.IsReadOnly() {
		t.Error("an update is read-only")
	}
}

func TestAuthorizationWithoutRequestInfoIsA500(t *testing.T) {
	rec := httptest.NewRecorder()
	WithAuthorization(okHandler, denyAll, nil, nil).ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	if rec.Code != http.StatusInternalServerError {
		t.Errorf("status %d, want 500", rec.Code)
	}
}

func TestSelectorsOfListsReachTheAuthorizer(t *testing.T) {
	var got authorizer.Attributes
	a := authorizer.AuthorizerFunc(func(_ context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
		got = attrs
		return authorizer.DecisionAllow, "", nil
	})
	for _, tc := range []struct {
		method, path     string
		fields, labels   string
		fieldErr, labErr bool
	}{
		{"GET", "/api/v1/namespaces/ns/pods?fieldSelector=spec.nodeName%3Dn1&labelSelector=app%3Dweb,!gone", "spec.nodeName=n1", "app=web, !gone", false, false},
		{"GET", "/api/v1/pods?watch=true&labelSelector=a%20in%20(x,y)", "", "a in (x,y)", false, false},
		{"DELETE", "/api/v1/namespaces/ns/pods?fieldSelector=metadata.name%3Dx", "metadata.name=x", "", false, false},
		{"GET", "/api/v1/namespaces/ns/pods?labelSelector=a%3D%3D%3Db&fieldSelector=x", "", "", true, true},
		// A get is not narrowed by a selector.
		{"GET", "/api/v1/namespaces/ns/pods/p?labelSelector=a%3Db", "", "", false, false},
		{"GET", "/api/v1/namespaces/ns/pods?labelSelector=", "", "", false, false},
	} {
		r := asUser(newRequest(t, tc.method, tc.path, nil), "bob")
		WithAuthorization(okHandler, a, nil, nil).ServeHTTP(httptest.NewRecorder(), r)
		fs, ferr := got.GetFieldSelector()
		ls, lerr := got.GetLabelSelector()
		if fieldString(fs) != tc.fields || labels.Requirements(ls).String() != tc.labels || (ferr != nil) != tc.fieldErr || (lerr != nil) != tc.labErr {
			t.Errorf("%s %s: fields %q (%v), labels %q (%v)", tc.method, tc.path, fieldString(fs), ferr, labels.Requirements(ls), lerr)
		}
	}
}

func fieldString(rs fields.Requirements) string {
	var parts []string
	for _, r := range rs {
		parts = append(parts, r.Field+string(r.Operator)+r.Value)
	}
	return strings.Join(parts, ",")
}

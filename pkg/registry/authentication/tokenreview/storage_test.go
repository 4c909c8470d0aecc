package tokenreview

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
)

// fakeAuthn accepts "sa" for the audiences it is asked about (as the
// service-account authenticator does, when they include "api" or "a1"),
// "static" audience-agnostically, and fails everything else.
var fakeAuthn = authenticator.RequestFunc(func(req *http.Request) (*authenticator.Response, bool, error) {
	token := strings.TrimPrefix(req.Header.Get("Authorization"), "Bearer ")
	switch token {
	case "sa":
		auds, _ := authenticator.AudiencesFrom(req.Context())
		var ok []string
		for _, a := range auds {
			if a == "api" || a == "a1" {
				ok = append(ok, a)
			}
		}
		if len(ok) == 0 {
			return nil, false, errors.New("token audiences is invalid")
		}
		return &authenticator.Response{User: &user.DefaultInfo{Name: "system:serviceaccount:ns:sa", UID: "u",
			Groups: []string{"system:serviceaccounts"}, Extra: map[string][]string{"k": {"v"}}}, Audiences: ok}, true, nil
	case "static":
		return &authenticator.Response{User: &user.DefaultInfo{Name: "alice"}}, true, nil
	}
	return nil, false, errors.New("invalid bearer token")
})

func review(t *testing.T, token string, auds ...string) authenticationv1.TokenReviewStatus {
	t.Helper()
	r := &REST{authn: fakeAuthn, apiAudiences: []string{"api"}}
	out, err := r.Create(context.Background(), &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: token, Audiences: auds}}, nil, &metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return out.(*authenticationv1.TokenReview).Status
}

// TestTokenReview: the server's authenticator decides; the review's
// audiences (or the API's) are the ones asked about; a refusal is a status,
// not an error.
func TestTokenReview(t *testing.T) {
	for _, tc := range []struct {
		name  string
		token string
		auds  []string
		want  authenticationv1.TokenReviewStatus
	}{
		{name: "API audiences", token: "sa", want: authenticationv1.TokenReviewStatus{Authenticated: true, Audiences: []string{"api"},
			User: authenticationv1.UserInfo{Username: "system:serviceaccount:ns:sa", UID: "u", Groups: []string{"system:serviceaccounts"}, Extra: map[string]authenticationv1.ExtraValue{"k": {"v"}}}}},
		{name: "requested audiences", token: "sa", auds: []string{"a1", "a2"}, want: authenticationv1.TokenReviewStatus{Authenticated: true, Audiences: []string{"a1"},
			User: authenticationv1.UserInfo{Username: "system:serviceaccount:ns:sa", UID: "u", Groups: []string{"system:serviceaccounts"}, Extra: map[string]authenticationv1.ExtraValue{"k": {"v"}}}}},
		{name: "wrong audience", token: "sa", auds: []string{"x"}, want: authenticationv1.TokenReviewStatus{Error: "token audiences is invalid"}},
		{name: "audience-agnostic token, API audiences", token: "static", want: authenticationv1.TokenReviewStatus{Authenticated: true, Audiences: []string{"api"},
			User: authenticationv1.UserInfo{Username: "alice"}}},
		{name: "audience-agnostic token, other audience", token: "static", auds: []string{"x"},
			want: authenticationv1.TokenReviewStatus{Error: `token audiences ["api"] is invalid for the target audiences ["x"]`}},
		{name: "invalid", token: "nope", want: authenticationv1.TokenReviewStatus{Error: "invalid bearer token"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, review(t, tc.token, tc.auds...)); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTokenReviewBadRequests: kube-apiserver's 400s.
func TestTokenReviewBadRequests(t *testing.T) {
	r := &REST{authn: fakeAuthn}
	_, err := r.Create(context.Background(), &authenticationv1.TokenReview{}, nil, &metav1.CreateOptions{})
	if !apierrors.IsBadRequest(err) || err.Error() != "token is required for TokenReview in authentication" {
		t.Errorf("empty token: %v", err)
	}
	_, err = r.Create(request.WithNamespace(context.Background(), "ns"), &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: "sa"}}, nil, &metav1.CreateOptions{})
	if !apierrors.IsBadRequest(err) || err.Error() != "namespace is not allowed on this type: ns" {
		t.Errorf("namespaced: %v", err)
	}
}

package selfsubjectreview

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
)

// TestSelfSubjectReviewIsTheRequester: the status is the request's user,
// with a creation timestamp, as kube-apiserver answers kubectl auth whoami.
func TestSelfSubjectReviewIsTheRequester(t *testing.T) {
	u := &user.DefaultInfo{Name: "system:serviceaccount:ns:sa", UID: "u", Groups: []string{"system:serviceaccounts", "system:authenticated"},
		Extra: map[string][]string{"authentication.kubernetes.io/credential-id": {"JTI=x"}}}
	out, err := (&REST{}).Create(request.WithUser(context.Background(), u), &authenticationv1.SelfSubjectReview{}, nil, &metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := out.(*authenticationv1.SelfSubjectReview)
	want := authenticationv1.UserInfo{Username: u.Name, UID: u.UID, Groups: u.Groups,
		Extra: map[string]authenticationv1.ExtraValue{"authentication.kubernetes.io/credential-id": {"JTI=x"}}}
	if diff := cmp.Diff(want, r.Status.UserInfo); diff != "" {
		t.Errorf("user (-want +got):\n%s", diff)
	}
	if r.CreationTimestamp.IsZero() {
		t.Error("no creation timestamp")
	}
}

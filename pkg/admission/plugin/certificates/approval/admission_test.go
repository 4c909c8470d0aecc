package approval

import (
	"context"
	"testing"

	certificatesv1 "k8s.io/api/certificates/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

// The approval subresource needs "approve" on the old object's signer;
// other writes are not the plugin's.
func TestApproval(t *testing.T) {
	allowApproveA := authorizer.AuthorizerFunc(func(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
		if a.GetVerb() == "approve" && a.GetName() == "example.com/a" {
			return authorizer.DecisionAllow, "", nil
		}
		return authorizer.DecisionNoOpinion, "", nil
	})
	csr := func(signer string) *certificatesv1.CertificateSigningRequest {
		return &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: "req"}, Spec: certificatesv1.CertificateSigningRequestSpec{SignerName: signer}}
	}
	tests := []struct {
		name        string
		subresource string
		old, new    *certificatesv1.CertificateSigningRequest
		want        string
	}{
		{name: "allowed signer", subresource: "approval", old: csr("example.com/a"), new: csr("example.com/a")},
		{name: "the old object's signer counts", subresource: "approval", old: csr("example.com/b"), new: csr("example.com/a"),
			want: `certificatesigningrequests.certificates.k8s.io "req" is forbidden: user not permitted to approve requests with signerName "example.com/b"`},
		{name: "status is not approval", subresource: "status", old: csr("example.com/b"), new: csr("example.com/b")},
		{name: "the main resource", old: csr("example.com/b"), new: csr("example.com/b")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := &admission.Attributes{
				Name: "req", Resource: certificatesv1.SchemeGroupVersion.WithResource("certificatesigningrequests"), Subresource: tc.subresource,
				Operation: admission.Update, Object: tc.new, OldObject: tc.old, User: &user.DefaultInfo{Name: "alice"},
			}
			err := New(allowApproveA).Validate(context.Background(), a)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || err.Error() != tc.want || !apierrors.IsForbidden(err)) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}

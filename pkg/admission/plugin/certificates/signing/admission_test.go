package signing

import (
	"context"
	"testing"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

// A status write that changes the certificate or the conditions needs
// "sign" on the signer; one that changes neither does not.
func TestSigning(t *testing.T) {
	denyAll := authorizer.AuthorizerFunc(func(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
		return authorizer.DecisionNoOpinion, "", nil
	})
	base := &certificatesv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{Name: "req"},
		Spec:       certificatesv1.CertificateSigningRequestSpec{SignerName: "example.com/s"},
		Status: certificatesv1.CertificateSigningRequestStatus{Conditions: []certificatesv1.CertificateSigningRequestCondition{
			{Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue},
		}},
	}
	const refused = `certificatesigningrequests.certificates.k8s.io "req" is forbidden: user not permitted to sign requests with signerName "example.com/s"`
	tests := []struct {
		name   string
		change func(*certificatesv1.CertificateSigningRequest)
		want   string
	}{
		{name: "labels only", change: func(c *certificatesv1.CertificateSigningRequest) { c.Labels = map[string]string{"a": "b"} }},
		{name: "certificate", change: func(c *certificatesv1.CertificateSigningRequest) { c.Status.Certificate = []byte("x") }, want: refused},
		{name: "empty certificate is a change", change: func(c *certificatesv1.CertificateSigningRequest) { c.Status.Certificate = []byte{} }, want: refused},
		{name: "conditions", change: func(c *certificatesv1.CertificateSigningRequest) {
			c.Status.Conditions = append(c.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{Type: certificatesv1.CertificateFailed})
		}, want: refused},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			csr := base.DeepCopy()
			tc.change(csr)
			a := &admission.Attributes{
				Name: "req", Resource: certificatesv1.SchemeGroupVersion.WithResource("certificatesigningrequests"), Subresource: "status",
				Operation: admission.Update, Object: csr, OldObject: base, User: &user.DefaultInfo{Name: "alice"},
			}
			err := New(denyAll).Validate(context.Background(), a)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || err.Error() != tc.want || !apierrors.IsForbidden(err)) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}

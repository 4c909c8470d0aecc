package subjectrestriction

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"testing"

	certificatesv1 "k8s.io/api/certificates/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/admission"
)

func csrPEM(t *testing.T, orgs ...string) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "u", Organization: orgs}}, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
}

// Only the kube-apiserver-client signer is restricted, and only the
// system:masters organization.
func TestSubjectRestriction(t *testing.T) {
	const masters = `certificatesigningrequests.certificates.k8s.io "req" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed`
	tests := []struct {
		name    string
		signer  string
		request []byte
		want    string
	}{
		{name: "masters", signer: certificatesv1.KubeAPIServerClientSignerName, request: csrPEM(t, "devs", "system:masters"), want: masters},
		{name: "other groups", signer: certificatesv1.KubeAPIServerClientSignerName, request: csrPEM(t, "devs")},
		{name: "other signer", signer: "example.com/x", request: csrPEM(t, "system:masters")},
		{name: "not a request", signer: certificatesv1.KubeAPIServerClientSignerName, request: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte("x")}),
			want: `certificatesigningrequests.certificates.k8s.io "req" is forbidden: failed to parse CSR: PEM block type must be CERTIFICATE REQUEST`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			csr := &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: "req"},
				Spec: certificatesv1.CertificateSigningRequestSpec{SignerName: tc.signer, Request: tc.request}}
			a := &admission.Attributes{Resource: certificatesv1.SchemeGroupVersion.WithResource("certificatesigningrequests"), Operation: admission.Create, Object: csr}
			err := New().Validate(context.Background(), a)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || err.Error() != tc.want || !apierrors.IsForbidden(err)) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}

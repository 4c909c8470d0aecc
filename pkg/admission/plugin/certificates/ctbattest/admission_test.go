package ctbattest

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

// A bundle for a signer needs "attest" on it, unless the update changes
// only the garbage collector's fields, or the gate is off.
func TestAttest(t *testing.T) {
	denyAll := authorizer.AuthorizerFunc(func(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
		return authorizer.DecisionNoOpinion, "", nil
	})
	bundle := func(signer string) *certificatesv1.ClusterTrustBundle {
		return &certificatesv1.ClusterTrustBundle{ObjectMeta: metav1.ObjectMeta{Name: "b"}, Spec: certificatesv1.ClusterTrustBundleSpec{SignerName: signer, TrustBundle: "pem"}}
	}
	withOwner := bundle("example.com/s")
	withOwner.OwnerReferences = []metav1.OwnerReference{{Name: "o"}}
	withOwner.Finalizers = []string{"f"}
	withLabel := bundle("example.com/s")
	withLabel.Labels = map[string]string{"a": "b"}
	const refused = `clustertrustbundles.certificates.k8s.io "b" is forbidden: user not permitted to attest for signerName "example.com/s"`
	tests := []struct {
		name     string
		gate     bool
		op       admission.Operation
		old, new *certificatesv1.ClusterTrustBundle
		want     string
	}{
		{name: "create with signer", gate: true, op: admission.Create, new: bundle("example.com/s"), want: refused},
		{name: "create without signer", gate: true, op: admission.Create, new: bundle("")},
		{name: "gate off", op: admission.Create, new: bundle("example.com/s")},
		{name: "owner references and finalizers only", gate: true, op: admission.Update, old: bundle("example.com/s"), new: withOwner},
		{name: "a label", gate: true, op: admission.Update, old: bundle("example.com/s"), new: withLabel, want: refused},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := &admission.Attributes{Name: "b", Resource: certificatesv1.SchemeGroupVersion.WithResource("clustertrustbundles"),
				Operation: tc.op, Object: tc.new, User: &user.DefaultInfo{Name: "alice"}}
			if tc.old != nil {
				a.OldObject = tc.old
			}
			err := New(denyAll, tc.gate).Validate(context.Background(), a)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || err.Error() != tc.want || !apierrors.IsForbidden(err)) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}

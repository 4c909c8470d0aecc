package coordination_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/coordination"
	"github.com/kapi-dev/kapi/pkg/apis/internal/reference"
)

func validLease() *coordinationv1.Lease {
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: "lease1", Namespace: "kube-node-lease", ResourceVersion: "1"},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity:       ptr("node-1"),
			LeaseDurationSeconds: ptr(int32(40)),
		},
	}
}

func TestValidateLease(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*coordinationv1.Lease)
		want   []string
	}{
		{name: "valid", modify: func(*coordinationv1.Lease) {}},
		{
			name:   "no spec at all",
			modify: func(l *coordinationv1.Lease) { l.Spec = coordinationv1.LeaseSpec{} },
		},
		{
			name:   "name must be a DNS subdomain",
			modify: func(l *coordinationv1.Lease) { l.Name = "Lease" },
			want:   []string{`metadata.name: Invalid value: "Lease": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
		},
		{
			name:   "namespace is required",
			modify: func(l *coordinationv1.Lease) { l.Namespace = "" },
			want:   []string{"metadata.namespace: Required value"},
		},
		{
			// Leases use apimachinery's metadata rules, which do not
			// require a domain on finalizers.
			name:   "unqualified finalizers are allowed",
			modify: func(l *coordinationv1.Lease) { l.Finalizers = []string{"mine"} },
		},
		{
			name:   "duration must be positive",
			modify: func(l *coordinationv1.Lease) { l.Spec.LeaseDurationSeconds = ptr(int32(0)) },
			want:   []string{"spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0"},
		},
		{
			name:   "transitions cannot be negative",
			modify: func(l *coordinationv1.Lease) { l.Spec.LeaseTransitions = ptr(int32(-1)) },
			want:   []string{"spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0"},
		},
		{
			name: "a known strategy",
			modify: func(l *coordinationv1.Lease) {
				l.Spec.Strategy = ptr(coordinationv1.OldestEmulationVersion)
				l.Spec.PreferredHolder = ptr("node-2")
			},
		},
		{
			name: "a domain-prefixed strategy",
			modify: func(l *coordinationv1.Lease) {
				l.Spec.Strategy = ptr(coordinationv1.CoordinatedLeaseStrategy("example.com/fastest"))
			},
		},
		{
			name: "an unknown strategy",
			modify: func(l *coordinationv1.Lease) {
				l.Spec.Strategy = ptr(coordinationv1.CoordinatedLeaseStrategy("Fastest"))
			},
			want: []string{`spec.strategy.strategy: Unsupported value: "Fastest": supported values: "OldestEmulationVersion"`},
		},
		{
			name:   "a preferred holder needs a strategy",
			modify: func(l *coordinationv1.Lease) { l.Spec.PreferredHolder = ptr("node-2") },
			want:   []string{"spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lease := validLease()
			tc.modify(lease)
			assertErrors(t, coordination.ValidateLease(lease), tc.want)
		})
	}
}

func TestValidateLeaseUpdate(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*coordinationv1.Lease)
		want   []string
	}{
		{name: "renewal", modify: func(l *coordinationv1.Lease) { l.Spec.RenewTime = &metav1.MicroTime{} }},
		{name: "new holder", modify: func(l *coordinationv1.Lease) { l.Spec.HolderIdentity = ptr("node-2") }},
		{
			name:   "the name is immutable",
			modify: func(l *coordinationv1.Lease) { l.Name = "other" },
			want:   []string{`metadata.name: Invalid value: "other": field is immutable`},
		},
		{
			name:   "the spec is still validated",
			modify: func(l *coordinationv1.Lease) { l.Spec.LeaseDurationSeconds = ptr(int32(-5)) },
			want:   []string{"spec.leaseDurationSeconds: Invalid value: -5: must be greater than 0"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			oldLease := validLease()
			newLease := oldLease.DeepCopy()
			tc.modify(newLease)
			assertErrors(t, coordination.ValidateLeaseUpdate(newLease, oldLease), tc.want)
		})
	}
}

func assertErrors(t *testing.T, errs field.ErrorList, want []string) {
	t.Helper()
	var got []string
	for _, err := range errs {
		got = append(got, err.Error())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors differ (-want +got):\n%s", diff)
	}
}

func ptr[T any](v T) *T { return &v }

// TestReferenceLeaseIsValid checks that the lease kube-apiserver created
// passes our validation, new and as an unchanged update.
func TestReferenceLeaseIsValid(t *testing.T) {
	_, output, err := reference.Defaulting("lease")
	if err != nil {
		t.Fatal(err)
	}
	lease := &coordinationv1.Lease{}
	if err := json.Unmarshal(output, lease); err != nil {
		t.Fatal(err)
	}
	assertErrors(t, coordination.ValidateLease(lease), nil)
	assertErrors(t, coordination.ValidateLeaseUpdate(lease, lease), nil)
}

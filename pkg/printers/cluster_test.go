package printers

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// TestClusterKinds renders one object of each kind of the rbac, policy,
// scheduling, admissionregistration and certificates groups, and
// resource quotas.
func TestClusterKinds(t *testing.T) {
	subjects := []rbacv1.Subject{
		{Kind: rbacv1.ServiceAccountKind, Namespace: "ns", Name: "builder"},
		{Kind: rbacv1.UserKind, Name: "alice"},
		{Kind: rbacv1.UserKind, Name: "bob"},
		{Kind: rbacv1.GroupKind, Name: "devs"},
		{Kind: "Robot", Name: "r2"},
	}
	tests := []struct {
		name        string
		obj         runtime.Object
		wantColumns []string
		wantCells   []any
	}{{
		name:        "role binding",
		obj:         &rbacv1.RoleBinding{ObjectMeta: objectMeta("edit"), RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "edit"}, Subjects: subjects},
		wantColumns: []string{"Name", "Role", "Age", "Users*", "Groups*", "ServiceAccounts*"},
		wantCells:   []any{"edit", "ClusterRole/edit", "3h", "alice, bob", "devs", "ns/builder"},
	}, {
		name:        "cluster role binding without subjects",
		obj:         &rbacv1.ClusterRoleBinding{ObjectMeta: objectMeta("admin"), RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "cluster-admin"}},
		wantColumns: []string{"Name", "Role", "Age", "Users*", "Groups*", "ServiceAccounts*"},
		wantCells:   []any{"admin", "ClusterRole/cluster-admin", "3h", "", "", ""},
	}, {
		name:        "pod disruption budget by minimum",
		obj:         &policyv1.PodDisruptionBudget{ObjectMeta: objectMeta("web"), Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr(intstr.FromString("50%"))}, Status: policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: 2}},
		wantColumns: []string{"Name", "Min Available", "Max Unavailable", "Allowed Disruptions", "Age"},
		wantCells:   []any{"web", "50%", "N/A", int64(2), "3h"},
	}, {
		name:        "pod disruption budget by maximum",
		obj:         &policyv1.PodDisruptionBudget{ObjectMeta: objectMeta("db"), Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: ptr(intstr.FromInt32(1))}},
		wantColumns: []string{"Name", "Min Available", "Max Unavailable", "Allowed Disruptions", "Age"},
		wantCells:   []any{"db", "N/A", "1", int64(0), "3h"},
	}, {
		name:        "priority class",
		obj:         &schedulingv1.PriorityClass{ObjectMeta: objectMeta("high"), Value: 1000, GlobalDefault: true, PreemptionPolicy: ptr(corev1.PreemptNever)},
		wantColumns: []string{"Name", "Value", "Global-Default", "Age", "PreemptionPolicy"},
		wantCells:   []any{"high", int64(1000), true, "3h", "Never"},
	}, {
		name:        "priority class without a preemption policy",
		obj:         &schedulingv1.PriorityClass{ObjectMeta: objectMeta("low"), Value: -5},
		wantColumns: []string{"Name", "Value", "Global-Default", "Age", "PreemptionPolicy"},
		wantCells:   []any{"low", int64(-5), false, "3h", ""},
	}, {
		name: "resource quota",
		obj: &corev1.ResourceQuota{
			ObjectMeta: objectMeta("quota"),
			Status: corev1.ResourceQuotaStatus{
				Hard: corev1.ResourceList{"pods": resource.MustParse("10"), "requests.cpu": resource.MustParse("4"), "limits.memory": resource.MustParse("8Gi"), "limits.cpu": resource.MustParse("8")},
				Used: corev1.ResourceList{"pods": resource.MustParse("3"), "limits.cpu": resource.MustParse("500m")},
			},
		},
		wantColumns: []string{"Name", "Request", "Limit", "Age"},
		wantCells:   []any{"quota", "pods: 3/10, requests.cpu: 0/4", "limits.cpu: 500m/8, limits.memory: 0/8Gi", "3h"},
	}, {
		name:        "resource quota not yet computed",
		obj:         &corev1.ResourceQuota{ObjectMeta: objectMeta("new"), Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"pods": resource.MustParse("10")}}},
		wantColumns: []string{"Name", "Request", "Limit", "Age"},
		wantCells:   []any{"new", "", "", "3h"},
	}, {
		name:        "mutating webhook configuration",
		obj:         &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: objectMeta("inject"), Webhooks: make([]admissionregistrationv1.MutatingWebhook, 2)},
		wantColumns: []string{"Name", "Webhooks", "Age"},
		wantCells:   []any{"inject", int64(2), "3h"},
	}, {
		name:        "validating webhook configuration",
		obj:         &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: objectMeta("check")},
		wantColumns: []string{"Name", "Webhooks", "Age"},
		wantCells:   []any{"check", int64(0), "3h"},
	}, {
		name:        "certificate signing request pending",
		obj:         &certificatesv1.CertificateSigningRequest{ObjectMeta: objectMeta("csr-1"), Spec: certificatesv1.CertificateSigningRequestSpec{Username: "alice"}},
		wantColumns: []string{"Name", "Age", "SignerName", "Requestor", "RequestedDuration", "Condition"},
		wantCells:   []any{"csr-1", "3h", "<none>", "alice", "<none>", "Pending"},
	}, {
		name: "certificate signing request approved and issued",
		obj: &certificatesv1.CertificateSigningRequest{
			ObjectMeta: objectMeta("csr-2"),
			Spec:       certificatesv1.CertificateSigningRequestSpec{SignerName: "kubernetes.io/kube-apiserver-client", Username: "bob", ExpirationSeconds: ptr(int32(86400))},
			Status: certificatesv1.CertificateSigningRequestStatus{
				Conditions:  []certificatesv1.CertificateSigningRequestCondition{{Type: certificatesv1.CertificateApproved}},
				Certificate: []byte("PEM"),
			},
		},
		wantColumns: []string{"Name", "Age", "SignerName", "Requestor", "RequestedDuration", "Condition"},
		wantCells:   []any{"csr-2", "3h", "kubernetes.io/kube-apiserver-client", "bob", "24h", "Approved,Issued"},
	}, {
		name: "certificate signing request denied wins over approved",
		obj: &certificatesv1.CertificateSigningRequest{
			ObjectMeta: objectMeta("csr-3"),
			Status: certificatesv1.CertificateSigningRequestStatus{Conditions: []certificatesv1.CertificateSigningRequestCondition{
				{Type: certificatesv1.CertificateApproved}, {Type: certificatesv1.CertificateDenied}, {Type: certificatesv1.CertificateFailed},
			}},
		},
		wantColumns: []string{"Name", "Age", "SignerName", "Requestor", "RequestedDuration", "Condition"},
		wantCells:   []any{"csr-3", "3h", "<none>", "", "<none>", "Denied,Failed"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			table := convert(t, tt.obj)
			if diff := cmp.Diff(tt.wantColumns, columnNames(table)); diff != "" {
				t.Errorf("columns (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantCells, table.Rows[0].Cells); diff != "" {
				t.Errorf("cells (-want +got):\n%s", diff)
			}
		})
	}
}

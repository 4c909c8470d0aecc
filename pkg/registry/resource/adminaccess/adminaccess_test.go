package adminaccess

import (
	"context"
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// namespaces has "ops", labelled for admin access, and "apps", not; any
// other namespace cannot be read.
type namespaces struct{ reads int }

func (n *namespaces) Get(_ context.Context, name string) (*corev1.Namespace, error) {
	n.reads++
	switch name {
	case "ops":
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{Label: "true"}}}, nil
	case "apps":
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, nil
	}
	return nil, errors.New("unavailable")
}

func requests(admin ...bool) []resourcev1.DeviceRequest {
	var out []resourcev1.DeviceRequest
	for _, a := range admin {
		out = append(out, resourcev1.DeviceRequest{Exactly: &resourcev1.ExactDeviceRequest{AdminAccess: ptr.To(a)}})
	}
	return out
}

func results(admin ...bool) []resourcev1.DeviceRequestAllocationResult {
	var out []resourcev1.DeviceRequestAllocationResult
	for _, a := range admin {
		out = append(out, resourcev1.DeviceRequestAllocationResult{AdminAccess: ptr.To(a)})
	}
	return out
}

func TestRequests(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		namespace string
		requests  []resourcev1.DeviceRequest
		want      field.ErrorList
		reads     int
	}{
		{"no admin access asks nothing of the namespace", "apps", requests(false, false), nil, 0},
		{"a labelled namespace allows it", "ops", requests(false, true), nil, 1},
		{"another refuses it, naming the first such request", "apps", requests(false, true, true),
			field.ErrorList{field.Forbidden(field.NewPath("spec", "devices", "requests").Index(1).Child("adminAccess"), "admin access to devices requires the `resource.kubernetes.io/admin-access: true` label on the containing namespace")}, 1},
		{"a namespace that cannot be read refuses it", "gone", requests(true),
			field.ErrorList{field.InternalError(field.NewPath("spec", "devices", "requests").Index(0).Child("adminAccess"), errors.New("could not retrieve namespace to verify admin access: unavailable"))}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns := &namespaces{}
			got := Requests(ctx, ns, tc.namespace, tc.requests)
			if got.ToAggregate() == nil != (tc.want == nil) || (got != nil && got.ToAggregate().Error() != tc.want.ToAggregate().Error()) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			if ns.reads != tc.reads {
				t.Errorf("read the namespace %d times, want %d", ns.reads, tc.reads)
			}
		})
	}
}

// An allocation that granted admin access is not checked again: it cannot
// change, and the label may have been removed from the namespace since.
func TestResultsGrantedBeforeAreNotCheckedAgain(t *testing.T) {
	ctx := context.Background()
	ns := &namespaces{}
	if errs := Results(ctx, ns, "apps", results(true), results(true)); len(errs) != 0 || ns.reads != 0 {
		t.Errorf("errors %v after %d reads", errs, ns.reads)
	}
	errs := Results(ctx, ns, "apps", results(false, true), nil)
	want := "status.allocation.devices.results[1].adminAccess: Forbidden: admin access to devices requires the `resource.kubernetes.io/admin-access: true` label on the containing namespace"
	if errs.ToAggregate() == nil || errs.ToAggregate().Error() != want {
		t.Errorf("got %v, want %s", errs, want)
	}
}

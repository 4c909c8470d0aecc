// Package adminaccess decides whether a ResourceClaim may have admin
// access to devices: access to devices in use by others, for monitoring
// or maintenance. As in kube-apiserver, only claims in a namespace an
// administrator labelled resource.kubernetes.io/admin-access=true may ask
// for it (spec) or be granted it (status), so that being allowed to create
// claims in a namespace does not grant it.
package adminaccess

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Label marks a namespace whose claims may have admin access.
const Label = "resource.kubernetes.io/admin-access"

// Namespaces reads the namespace a claim is written in.
type Namespaces interface {
	Get(ctx context.Context, name string) (*corev1.Namespace, error)
}

// Requests checks the requests of a claim (or of a claim template) in
// namespace: if one asks for admin access, the namespace must carry the
// label. The error names the first such request, at kube-apiserver's
// path, which is that of its internal type (no "exactly", and for a
// template no "spec.spec").
func Requests(ctx context.Context, namespaces Namespaces, namespace string, requests []resourcev1.DeviceRequest) field.ErrorList {
	for i, r := range requests {
		if r.Exactly != nil && r.Exactly.AdminAccess != nil && *r.Exactly.AdminAccess {
			return check(ctx, namespaces, namespace, field.NewPath("spec", "devices", "requests").Index(i).Child("adminAccess"))
		}
	}
	return nil
}

// Results checks the allocation a /status write gives a claim: if one of
// its results grants admin access, the namespace must carry the label. An
// allocation that granted it before is not checked again: it cannot
// change, and the namespace's label may have been removed since.
func Results(ctx context.Context, namespaces Namespaces, namespace string, results, old []resourcev1.DeviceRequestAllocationResult) field.ErrorList {
	if firstAdmin(old) >= 0 {
		return nil
	}
	i := firstAdmin(results)
	if i < 0 {
		return nil
	}
	return check(ctx, namespaces, namespace, field.NewPath("status", "allocation", "devices", "results").Index(i).Child("adminAccess"))
}

func firstAdmin(results []resourcev1.DeviceRequestAllocationResult) int {
	for i, r := range results {
		if r.AdminAccess != nil && *r.AdminAccess {
			return i
		}
	}
	return -1
}

func check(ctx context.Context, namespaces Namespaces, namespace string, path *field.Path) field.ErrorList {
	if namespaces == nil {
		// A storage built without a way to read namespaces (in a test)
		// cannot tell: it refuses, as when the read fails.
		return field.ErrorList{field.InternalError(path, errors.New("could not retrieve namespace to verify admin access: no namespace reader"))}
	}
	ns, err := namespaces.Get(ctx, namespace)
	if err != nil {
		return field.ErrorList{field.InternalError(path, fmt.Errorf("could not retrieve namespace to verify admin access: %w", err))}
	}
	if ns.Labels[Label] != "true" {
		return field.ErrorList{field.Forbidden(path, fmt.Sprintf("admin access to devices requires the `%s: true` label on the containing namespace", Label))}
	}
	return nil
}

// AllocationResults returns the results of a claim's allocation, if any.
func AllocationResults(c *resourcev1.ResourceClaim) []resourcev1.DeviceRequestAllocationResult {
	if c.Status.Allocation == nil {
		return nil
	}
	return c.Status.Allocation.Devices.Results
}

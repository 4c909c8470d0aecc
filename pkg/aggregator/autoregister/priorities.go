package autoregister

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// versionPriorities are kube-apiserver 1.37's version priorities of the
// built-in group versions kapi serves, the order of the versions within
// their group. A built-in group version without one gets no APIService,
// as in kube-apiserver.
var versionPriorities = map[schema.GroupVersion]int32{
	{Group: "", Version: "v1"}:                             1,
	{Group: "admissionregistration.k8s.io", Version: "v1"}: 15,
	{Group: "apiextensions.k8s.io", Version: "v1"}:         15,
	{Group: "apps", Version: "v1"}:                         15,
	{Group: "authentication.k8s.io", Version: "v1"}:        15,
	{Group: "authorization.k8s.io", Version: "v1"}:         15,
	{Group: "autoscaling", Version: "v1"}:                  15,
	{Group: "autoscaling", Version: "v2"}:                  30,
	{Group: "batch", Version: "v1"}:                        15,
	{Group: "certificates.k8s.io", Version: "v1"}:          15,
	{Group: "coordination.k8s.io", Version: "v1"}:          15,
	{Group: "discovery.k8s.io", Version: "v1"}:             15,
	{Group: "events.k8s.io", Version: "v1"}:                15,
	{Group: "flowcontrol.apiserver.k8s.io", Version: "v1"}: 21,
	{Group: "networking.k8s.io", Version: "v1"}:            15,
	{Group: "node.k8s.io", Version: "v1"}:                  15,
	{Group: "policy", Version: "v1"}:                       15,
	{Group: "rbac.authorization.k8s.io", Version: "v1"}:    15,
	{Group: "resource.k8s.io", Version: "v1"}:              21,
	{Group: "scheduling.k8s.io", Version: "v1"}:            15,
	{Group: "storage.k8s.io", Version: "v1"}:               15,
	{Group: "storagemigration.k8s.io", Version: "v1"}:      15,
}

// The priorities of a CRD's group versions: below every built-in group,
// and versions ordered by their names as any others of equal priority.
const (
	crdGroupPriorityMinimum = 1000
	crdVersionPriority      = 100
)

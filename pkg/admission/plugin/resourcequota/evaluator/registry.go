package evaluator

import (
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/clock"
)

// Registry gives each resource its evaluator.
type Registry struct {
	special map[schema.GroupResource]Evaluator
}

// Options are the features that change what objects use.
type Options struct {
	// Clock is the time of pods' deletion grace periods (nil: the real
	// clock).
	Clock clock.PassiveClock
	// PodLevelResources is the PodLevelResources feature.
	PodLevelResources bool
	// DeviceClasses and ClaimOwners let resource claims be charged as
	// extended resources (nil: they are not).
	DeviceClasses DeviceClasses
	ClaimOwners   ClaimOwners
}

// NewRegistry returns kube-apiserver's evaluators.
func NewRegistry(opts Options) *Registry {
	c := opts.Clock
	if c == nil {
		c = clock.RealClock{}
	}
	pods := NewPods(c, opts.PodLevelResources)
	r := &Registry{special: map[schema.GroupResource]Evaluator{
		corev1.Resource("pods"):                   pods,
		corev1.Resource("services"):               Services{},
		corev1.Resource("persistentvolumeclaims"): PersistentVolumeClaims{},
		resourcev1.Resource("resourceclaims"):     ResourceClaims{Classes: opts.DeviceClasses, Owners: opts.ClaimOwners, Pods: pods},
		corev1.Resource("configmaps"):             NewCount(corev1.Resource("configmaps"), corev1.ResourceConfigMaps),
		corev1.Resource("resourcequotas"):         NewCount(corev1.Resource("resourcequotas"), corev1.ResourceQuotas),
		corev1.Resource("replicationcontrollers"): NewCount(corev1.Resource("replicationcontrollers"), corev1.ResourceReplicationControllers),
		corev1.Resource("secrets"):                NewCount(corev1.Resource("secrets"), corev1.ResourceSecrets),
	}}
	return r
}

// For is gr's evaluator: its own, or one that counts its objects.
func (r *Registry) For(gr schema.GroupResource) Evaluator {
	if e, ok := r.special[gr]; ok {
		return e
	}
	return NewCount(gr)
}

// ignored are the resources quota never sees: reviews, which are not
// stored, and events, which were never counted.
var ignored = map[schema.GroupResource]bool{
	{Group: "", Resource: "bindings"}:                                      true,
	{Group: "", Resource: "componentstatuses"}:                             true,
	{Group: "authentication.k8s.io", Resource: "tokenreviews"}:             true,
	{Group: "authentication.k8s.io", Resource: "selfsubjectreviews"}:       true,
	{Group: "authorization.k8s.io", Resource: "subjectaccessreviews"}:      true,
	{Group: "authorization.k8s.io", Resource: "selfsubjectaccessreviews"}:  true,
	{Group: "authorization.k8s.io", Resource: "localsubjectaccessreviews"}: true,
	{Group: "authorization.k8s.io", Resource: "selfsubjectrulesreviews"}:   true,
	{Group: "", Resource: "events"}:                                        true,
	{Group: "events.k8s.io", Resource: "events"}:                           true,
}

// Ignored says whether quota ignores writes of gr.
func Ignored(gr schema.GroupResource) bool { return ignored[gr] }

// Package pod is the REST storage of core/v1 pods and of their /status
// and /binding subresources.
package pod

import (
	"context"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/endpoints/warning"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct {
	generic.SpecStrategy[*corev1.Pod]
}

// Strategy is the behaviour of pods: metadata.generation counts changes
// of the spec, and the status is the kubelet's, written through /status.
var Strategy = strategy{generic.SpecStrategy[*corev1.Pod]{
	DefaultStrategy:    generic.DefaultStrategy{Namespaced: true},
	APIVersions:        []string{"v1"},
	Spec:               generic.FieldPart(func(pod *corev1.Pod) *corev1.PodSpec { return &pod.Spec }),
	Status:             generic.FieldPart(func(pod *corev1.Pod) *corev1.PodStatus { return &pod.Status }),
	CountGenerations:   true,
	ValidateFunc:       core.ValidatePod,
	ValidateUpdateFunc: core.ValidatePodUpdate,
}}

// PrepareForCreate starts the pod pending, gated if it has scheduling
// gates, merges its matchLabelKeys into its selectors and turns its
// AppArmor annotations into fields, warning of them there (before the
// annotations and the fields agree), as kube-apiserver does.
func (strategy) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	pod := obj.(*corev1.Pod)
	pod.Generation = 1
	pod.Status = corev1.PodStatus{Phase: corev1.PodPending, QOSClass: qosClass(pod)}
	gateScheduling(pod, metav1.Now())
	mergeLabelKeys(pod)
	for _, w := range core.ApplyAppArmorAnnotations(pod) {
		warning.AddWarning(ctx, w)
	}
}

// WarningsOnCreate are kube-apiserver's warnings on a new pod. An update
// gives none: kube-apiserver skips them on what is mostly a kubelet's
// path.
func (strategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	return core.PodWarnings(obj.(*corev1.Pod))
}

// CheckGracefulDelete gives a pod its termination grace period, unless
// nothing runs it (it is not scheduled, or it has finished): then it goes
// at once, as in kube-apiserver.
func (strategy) CheckGracefulDelete(_ context.Context, obj runtime.Object, opts *rest.GracefulDeleteOptions) bool {
	pod := obj.(*corev1.Pod)
	period := int64(corev1.DefaultTerminationGracePeriodSeconds)
	if opts.GracePeriodSeconds != nil {
		period = *opts.GracePeriodSeconds
	} else if pod.Spec.TerminationGracePeriodSeconds != nil {
		period = *pod.Spec.TerminationGracePeriodSeconds
	}
	if pod.Spec.NodeName == "" || pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		period = 0
	}
	if period < 0 {
		period = 1
	}
	opts.GracePeriodSeconds = &period
	return true
}

// StatusStrategy lets /status change the status and nothing else: it
// keeps the spec, the deletion timestamp and the owner references (old
// kubelets wrote them wrong).
var StatusStrategy = generic.StatusStrategy[*corev1.Pod]{
	SpecStrategy: Strategy.SpecStrategy,
	KeepMetadata: func(meta, stored metav1.Object) {
		meta.SetDeletionTimestamp(stored.GetDeletionTimestamp())
		meta.SetOwnerReferences(stored.GetOwnerReferences())
	},
	ResetPaths:               [][]string{{"metadata", "deletionTimestamp"}, {"metadata", "ownerReferences"}},
	ValidateStatusUpdateFunc: core.ValidatePodStatusUpdate,
}

// qosClass is the pod's quality of service: BestEffort without any
// request or limit, Guaranteed when every container's CPU and memory
// requests equal its limits, Burstable otherwise.
func qosClass(pod *corev1.Pod) corev1.PodQOSClass {
	containers := append(append([]corev1.Container(nil), pod.Spec.InitContainers...), pod.Spec.Containers...)
	any, guaranteed := false, true
	for _, c := range containers {
		if len(c.Resources.Requests) > 0 || len(c.Resources.Limits) > 0 {
			any = true
		}
		for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			limit, hasLimit := c.Resources.Limits[name]
			req, hasReq := c.Resources.Requests[name]
			if !hasLimit || (hasReq && req.Cmp(limit) != 0) {
				guaranteed = false
			}
		}
	}
	switch {
	case !any:
		return corev1.PodQOSBestEffort
	case guaranteed:
		return corev1.PodQOSGuaranteed
	}
	return corev1.PodQOSBurstable
}

// selectableFields are the fields pods can be selected by.
func selectableFields(obj runtime.Object) fields.Set {
	pod := obj.(*corev1.Pod)
	ips := make([]string, 0, len(pod.Status.PodIPs))
	for _, ip := range pod.Status.PodIPs {
		ips = append(ips, ip.IP)
	}
	return fields.Set{
		"spec.nodeName":            pod.Spec.NodeName,
		"spec.restartPolicy":       string(pod.Spec.RestartPolicy),
		"spec.schedulerName":       pod.Spec.SchedulerName,
		"spec.serviceAccountName":  pod.Spec.ServiceAccountName,
		"spec.hostNetwork":         strconv.FormatBool(pod.Spec.HostNetwork),
		"status.phase":             string(pod.Status.Phase),
		"status.podIP":             pod.Status.PodIP,
		"status.podIPs":            strings.Join(ips, ","),
		"status.nominatedNodeName": pod.Status.NominatedNodeName,
	}
}

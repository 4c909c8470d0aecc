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
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/endpoints/warning"
	"github.com/kapi-dev/kapi/pkg/features"
	"github.com/kapi-dev/kapi/pkg/registry/gated"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct {
	generic.SpecStrategy[*corev1.Pod]
}

// Strategy is the behaviour of pods: metadata.generation counts changes
// of the spec, and the status is the kubelet's, written through /status.
// The fields of disabled feature gates are dropped from every write.
var Strategy = newStrategy(features.Gates{})

// newStrategy is Strategy for gates, which decide the gated fields that
// are kept.
func newStrategy(gates features.Gates) strategy {
	return strategy{generic.SpecStrategy[*corev1.Pod]{
		DefaultStrategy:    generic.DefaultStrategy{Namespaced: true},
		APIVersions:        []string{"v1"},
		Spec:               generic.FieldPart(func(pod *corev1.Pod) *corev1.PodSpec { return &pod.Spec }),
		Status:             generic.FieldPart(func(pod *corev1.Pod) *corev1.PodStatus { return &pod.Status }),
		CountGenerations:   true,
		DropDisabled:       func(pod, old *corev1.Pod) { gated.Pod(gates, pod, old) },
		ValidateFunc:       core.ValidatePod,
		ValidateUpdateFunc: core.ValidatePodUpdate,
	}}
}

// PrepareForCreate starts the pod pending, drops the fields of disabled
// feature gates, gates it if it has scheduling gates, merges its
// matchLabelKeys into its selectors and turns its AppArmor annotations
// into fields, warning of them there (before the annotations and the
// fields agree), and completes its pod-level resources, which decide its
// QoS class, as kube-apiserver does.
func (s strategy) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	pod := obj.(*corev1.Pod)
	pod.Generation = 1
	pod.Status = corev1.PodStatus{Phase: corev1.PodPending}
	s.DropDisabled(pod, nil)
	gateScheduling(pod, metav1.Now())
	mergeLabelKeys(pod)
	for _, w := range core.ApplyAppArmorAnnotations(pod) {
		warning.AddWarning(ctx, w)
	}
	core.DefaultPodLevelResources(pod)
	pod.Status.QOSClass = core.PodQOSClass(pod)
	// Admission (the ServiceAccount plugin, a webhook) may have set
	// serviceAccountName after defaulting: its deprecated alias mirrors
	// it, as kube-apiserver's conversion to v1 makes it on every write.
	pod.Spec.DeprecatedServiceAccount = pod.Spec.ServiceAccountName
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

// newStatusStrategy lets /status change the status and nothing else: it
// keeps the spec, the deletion timestamp and the owner references (old
// kubelets wrote them wrong).
func newStatusStrategy(st strategy) statusStrategy {
	return statusStrategy{generic.StatusStrategy[*corev1.Pod]{
		SpecStrategy: st.SpecStrategy,
		KeepMetadata: func(meta, stored metav1.Object) {
			meta.SetDeletionTimestamp(stored.GetDeletionTimestamp())
			meta.SetOwnerReferences(stored.GetOwnerReferences())
		},
		ResetPaths:               [][]string{{"metadata", "deletionTimestamp"}, {"metadata", "ownerReferences"}},
		ValidateStatusUpdateFunc: core.ValidatePodStatusUpdate,
	}}
}

type statusStrategy struct {
	generic.StatusStrategy[*corev1.Pod]
}

// PrepareForUpdate keeps all but the status, whose fields of disabled
// feature gates are dropped unless the old status has them. A status
// without a QoS class keeps the old one (old kubelets dropped it), and
// observed generations the writer left out, of the status and of each
// condition (matched by type, in order), keep the old values.
func (s statusStrategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	s.StatusStrategy.PrepareForUpdate(ctx, obj, old)
	pod, oldPod := obj.(*corev1.Pod), old.(*corev1.Pod)
	s.DropDisabled(pod, oldPod)
	if pod.Status.QOSClass == "" {
		pod.Status.QOSClass = oldPod.Status.QOSClass
	}
	if pod.Status.ObservedGeneration == 0 {
		pod.Status.ObservedGeneration = oldPod.Status.ObservedGeneration
	}
	oldGenerations := map[corev1.PodConditionType][]int64{}
	for _, c := range oldPod.Status.Conditions {
		oldGenerations[c.Type] = append(oldGenerations[c.Type], c.ObservedGeneration)
	}
	for i, c := range pod.Status.Conditions {
		var oldGeneration int64
		if gens := oldGenerations[c.Type]; len(gens) > 0 {
			oldGeneration, oldGenerations[c.Type] = gens[0], gens[1:]
		}
		if c.ObservedGeneration == 0 {
			pod.Status.Conditions[i].ObservedGeneration = oldGeneration
		}
	}
}

// WarningsOnUpdate warns of pod and host IPs not written the standard
// way, as kube-apiserver does.
func (statusStrategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	pod := obj.(*corev1.Pod)
	var warnings []string
	for i, ip := range pod.Status.PodIPs {
		warnings = append(warnings, validation.GetWarningsForIP(field.NewPath("status", "podIPs").Index(i).Child("ip"), ip.IP)...)
	}
	for i, ip := range pod.Status.HostIPs {
		warnings = append(warnings, validation.GetWarningsForIP(field.NewPath("status", "hostIPs").Index(i).Child("ip"), ip.IP)...)
	}
	return warnings
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

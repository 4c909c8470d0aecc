package pod

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kapi-dev/kapi/pkg/apis/core"
)

// ephemeralContainersStrategy is pods/ephemeralcontainers: a write
// changes spec.ephemeralContainers and nothing else (less the fields of
// disabled gates).
type ephemeralContainersStrategy struct{ strategy }

// GetResetFields: the subresource writes the ephemeral containers only;
// kapi's field manager knows sets, not kube-apiserver's filter of
// everything else, so nothing is reset for it.
func (ephemeralContainersStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return nil
}

func (s ephemeralContainersStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	pod, oldPod := obj.(*corev1.Pod), old.(*corev1.Pod)
	ephemeral := pod.Spec.EphemeralContainers
	pod.Spec = *oldPod.Spec.DeepCopy()
	pod.Spec.EphemeralContainers = ephemeral
	pod.Status = oldPod.Status
	metav1.ResetObjectMetaForStatus(&pod.ObjectMeta, &oldPod.ObjectMeta)
	s.DropDisabled(pod, oldPod)
	bumpGeneration(pod, oldPod)
}

func (ephemeralContainersStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return core.ValidatePodEphemeralContainersUpdate(obj.(*corev1.Pod), old.(*corev1.Pod))
}

func (ephemeralContainersStrategy) WarningsOnUpdate(context.Context, runtime.Object, runtime.Object) []string {
	return nil
}

// resizeStrategy is pods/resize: a write changes the resources and
// resize policies of containers (and pod-level resources) only.
type resizeStrategy struct{ strategy }

// GetResetFields: as for ephemeral containers, kube-apiserver's filter
// (only the resources and resize policies are the writer's) is not
// expressible as a set; nothing is reset.
func (resizeStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return nil
}

// PrepareForUpdate keeps the old pod but for the containers' resources
// and resize policies and the pod-level resources. A write that adds,
// removes or renames containers is left as it is, for validation to
// refuse.
func (s resizeStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	pod, oldPod := obj.(*corev1.Pod), old.(*corev1.Pod)
	if len(pod.Spec.Containers) == len(oldPod.Spec.Containers) && len(pod.Spec.InitContainers) == len(oldPod.Spec.InitContainers) {
		resources := pod.Spec.Resources
		containers := resizedContainers(pod.Spec.Containers, oldPod.Spec.Containers)
		initContainers := resizedContainers(pod.Spec.InitContainers, oldPod.Spec.InitContainers)
		pod.Spec = *oldPod.Spec.DeepCopy()
		pod.Spec.Resources = resources
		pod.Spec.Containers = containers
		pod.Spec.InitContainers = initContainers
		pod.Status = oldPod.Status
		metav1.ResetObjectMetaForStatus(&pod.ObjectMeta, &oldPod.ObjectMeta)
	}
	if pod.Spec.Resources == nil && oldPod.Spec.Resources != nil {
		// A client that does not know pod-level resources keeps them.
		pod.Spec.Resources = oldPod.Spec.Resources.DeepCopy()
	}
	s.DropDisabled(pod, oldPod)
	bumpGeneration(pod, oldPod)
}

// resizedContainers are the old containers with the new resources and
// resize policies, or the new ones when a name changed.
func resizedContainers(updated, old []corev1.Container) []corev1.Container {
	if len(updated) == 0 {
		return updated
	}
	out := make([]corev1.Container, len(old))
	for i := range old {
		if old[i].Name != updated[i].Name {
			return updated
		}
		out[i] = *old[i].DeepCopy()
		out[i].Resources = updated[i].Resources
		out[i].ResizePolicy = updated[i].ResizePolicy
	}
	return out
}

func (resizeStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return core.ValidatePodResize(obj.(*corev1.Pod), old.(*corev1.Pod))
}

func (resizeStrategy) WarningsOnUpdate(context.Context, runtime.Object, runtime.Object) []string {
	return nil
}

// bumpGeneration counts a change of the spec.
func bumpGeneration(pod, oldPod *corev1.Pod) {
	pod.Generation = oldPod.Generation
	if !apiequality.Semantic.DeepEqual(pod.Spec, oldPod.Spec) {
		pod.Generation++
	}
}

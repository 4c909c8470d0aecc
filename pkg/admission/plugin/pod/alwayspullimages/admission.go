// Package alwayspullimages is the AlwaysPullImages admission plugin (off
// by default): every container of a pod pulls its image at each start,
// so that a pod can only run an image its pull secrets give access to,
// not one another pod left on the node. An update that brings no new
// image is left alone.
package alwayspullimages

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/admission"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "AlwaysPullImages"

// Plugin is the plugin, mutating and validating creates and updates of
// pods.
type Plugin struct{ admission.Handler }

// New returns the plugin.
func New() *Plugin { return &Plugin{Handler: admission.NewHandler(admission.Create, admission.Update)} }

// Admit sets every container's imagePullPolicy to Always.
func (p *Plugin) Admit(_ context.Context, a *admission.Attributes) error {
	pod, err := podOf(a)
	if pod == nil || err != nil {
		return err
	}
	visitContainers(pod, func(c *corev1.Container, _ *field.Path) { c.ImagePullPolicy = corev1.PullAlways })
	return nil
}

// Validate refuses a container whose policy is not Always (set so by a
// later plugin or webhook).
func (p *Plugin) Validate(_ context.Context, a *admission.Attributes) error {
	pod, err := podOf(a)
	if pod == nil || err != nil {
		return err
	}
	var errs []error
	visitContainers(pod, func(c *corev1.Container, path *field.Path) {
		if c.ImagePullPolicy != corev1.PullAlways {
			errs = append(errs, admission.NewForbidden(a, field.NotSupported(path.Child("imagePullPolicy"), c.ImagePullPolicy, []string{string(corev1.PullAlways)})))
		}
	})
	return utilerrors.NewAggregate(errs)
}

// podOf is the pod the write is about, nil if the plugin leaves it alone.
func podOf(a *admission.Attributes) (*corev1.Pod, error) {
	if a.Subresource != "" || a.Resource.Group != "" || a.Resource.Resource != "pods" {
		return nil, nil
	}
	pod, ok := a.Object.(*corev1.Pod)
	if !ok {
		return nil, apierrors.NewBadRequest("Resource was marked with kind Pod but was unable to be converted")
	}
	if a.Operation == admission.Update {
		old, ok := a.OldObject.(*corev1.Pod)
		if ok && !hasNewImage(old, pod) {
			return nil, nil
		}
	}
	return pod, nil
}

func hasNewImage(old, pod *corev1.Pod) bool {
	images := map[string]bool{}
	visitContainers(old, func(c *corev1.Container, _ *field.Path) { images[c.Image] = true })
	found := false
	visitContainers(pod, func(c *corev1.Container, _ *field.Path) { found = found || !images[c.Image] })
	return found
}

// visitContainers visits the init, regular and ephemeral containers, with
// their paths.
func visitContainers(pod *corev1.Pod, visit func(*corev1.Container, *field.Path)) {
	spec := field.NewPath("spec")
	for i := range pod.Spec.InitContainers {
		visit(&pod.Spec.InitContainers[i], spec.Child("initContainers").Index(i))
	}
	for i := range pod.Spec.Containers {
		visit(&pod.Spec.Containers[i], spec.Child("containers").Index(i))
	}
	for i := range pod.Spec.EphemeralContainers {
		visit((*corev1.Container)(&pod.Spec.EphemeralContainers[i].EphemeralContainerCommon), spec.Child("ephemeralContainers").Index(i))
	}
}

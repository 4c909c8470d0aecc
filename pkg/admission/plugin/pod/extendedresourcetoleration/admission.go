// Package extendedresourcetoleration is the ExtendedResourceToleration
// admission plugin (off by default): a pod that requests an extended
// resource (example.com/gpu) tolerates the NoSchedule taint of that name,
// which cluster operators put on the nodes that have it, so that only
// pods needing it land there.
package extendedresourcetoleration

import (
	"context"
	"reflect"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kapi-dev/kapi/pkg/admission"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "ExtendedResourceToleration"

// Plugin is the plugin, mutating creates and updates of pods.
type Plugin struct{ admission.Handler }

// New returns the plugin.
func New() *Plugin { return &Plugin{Handler: admission.NewHandler(admission.Create, admission.Update)} }

// Admit adds a toleration of each extended resource the pod's containers
// or init containers request, in the order of their names.
func (p *Plugin) Admit(_ context.Context, a *admission.Attributes) error {
	if a.Subresource != "" || a.Resource.Group != "" || a.Resource.Resource != "pods" {
		return nil
	}
	pod, ok := a.Object.(*corev1.Pod)
	if !ok {
		return apierrors.NewBadRequest("Resource was marked with kind Pod but was unable to be converted")
	}
	names := map[string]bool{}
	for _, cs := range [][]corev1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for _, c := range cs {
			for name := range c.Resources.Requests {
				if IsExtendedResourceName(name) {
					names[string(name)] = true
				}
			}
		}
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	for _, n := range sorted {
		addOrUpdate(pod, corev1.Toleration{Key: n, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
	}
	return nil
}

// IsExtendedResourceName says whether name is an extended resource: a
// name with a domain outside kubernetes.io, not a quota's requests.
// name, that is still a valid quota name once prefixed with requests.
func IsExtendedResourceName(name corev1.ResourceName) bool {
	s := string(name)
	if !strings.Contains(s, "/") || strings.Contains(s, corev1.ResourceDefaultNamespacePrefix) || strings.HasPrefix(s, corev1.DefaultResourceRequestsPrefix) {
		return false
	}
	return len(validation.IsQualifiedName(corev1.DefaultResourceRequestsPrefix+s)) == 0
}

// addOrUpdate puts t in the pod's tolerations, in place of one of the
// same key, operator, value and effect.
func addOrUpdate(pod *corev1.Pod, t corev1.Toleration) {
	var out []corev1.Toleration
	updated := false
	for _, cur := range pod.Spec.Tolerations {
		if cur.Key == t.Key && cur.Effect == t.Effect && cur.Operator == t.Operator && cur.Value == t.Value {
			if reflect.DeepEqual(cur, t) {
				return
			}
			out = append(out, t)
			updated = true
			continue
		}
		out = append(out, cur)
	}
	if !updated {
		out = append(out, t)
	}
	pod.Spec.Tolerations = out
}

// Package runtimeclass is the RuntimeClass admission plugin: a pod that
// names a RuntimeClass gets the class's pod overhead and scheduling (node
// selector and tolerations), and is refused when the class does not
// exist or the pod states an overhead or node selector that contradicts
// it.
package runtimeclass

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	nodelisters "k8s.io/client-go/listers/node/v1"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/internal/tolerations"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "RuntimeClass"

// Getter reads a RuntimeClass from the server.
type Getter interface {
	Get(ctx context.Context, name string) (*nodev1.RuntimeClass, error)
}

// GetterFunc adapts a function to Getter.
type GetterFunc func(ctx context.Context, name string) (*nodev1.RuntimeClass, error)

func (f GetterFunc) Get(ctx context.Context, name string) (*nodev1.RuntimeClass, error) {
	return f(ctx, name)
}

// Config is what the plugin needs.
type Config struct {
	// Lister reads RuntimeClasses from an informer's cache; Live reads
	// one the cache does not have (yet) from the server.
	Lister nodelisters.RuntimeClassLister
	Live   Getter
}

// Plugin is the plugin, mutating and validating creates of pods.
type Plugin struct {
	admission.Handler
	lister nodelisters.RuntimeClassLister
	live   Getter
}

// New returns the plugin.
func New(cfg Config) *Plugin {
	return &Plugin{Handler: admission.NewHandler(admission.Create), lister: cfg.Lister, live: cfg.Live}
}

// Admit sets the pod's overhead and merges the class's scheduling in.
func (p *Plugin) Admit(ctx context.Context, a *admission.Attributes) error {
	pod, rc, err := p.prepare(ctx, a)
	if pod == nil || err != nil {
		return err
	}
	if rc == nil {
		return nil
	}
	if rc.Overhead != nil {
		if len(pod.Spec.Overhead) > 0 && !apiequality.Semantic.DeepEqual(rc.Overhead.PodFixed, pod.Spec.Overhead) {
			return admission.NewForbidden(a, fmt.Errorf("pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"))
		}
		pod.Spec.Overhead = rc.Overhead.PodFixed.DeepCopy()
	}
	if rc.Scheduling != nil {
		selector := pod.Spec.NodeSelector
		if selector == nil {
			selector = copyMap(rc.Scheduling.NodeSelector)
		} else {
			for k, v := range rc.Scheduling.NodeSelector {
				if podValue, ok := selector[k]; ok && podValue != v {
					return admission.NewForbidden(a, fmt.Errorf("conflict: runtimeClass.scheduling.nodeSelector[%s] = %s; pod.spec.nodeSelector[%s] = %s", k, v, k, podValue))
				}
				selector[k] = v
			}
		}
		pod.Spec.NodeSelector = selector
		pod.Spec.Tolerations = tolerations.Merge(pod.Spec.Tolerations, rc.Scheduling.Tolerations)
	}
	return nil
}

// Validate refuses an overhead the class does not define.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	pod, rc, err := p.prepare(ctx, a)
	if pod == nil || err != nil {
		return err
	}
	if rc != nil && rc.Overhead != nil {
		if !apiequality.Semantic.DeepEqual(rc.Overhead.PodFixed, pod.Spec.Overhead) {
			return admission.NewForbidden(a, fmt.Errorf("pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"))
		}
	} else if pod.Spec.Overhead != nil {
		return admission.NewForbidden(a, fmt.Errorf("pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead"))
	}
	return nil
}

// prepare is the write's pod (nil if the write is not a pod's) and the
// RuntimeClass it names (nil if none).
func (p *Plugin) prepare(ctx context.Context, a *admission.Attributes) (*corev1.Pod, *nodev1.RuntimeClass, error) {
	if a.Subresource != "" || a.Resource.Group != "" || a.Resource.Resource != "pods" {
		return nil, nil, nil
	}
	pod, ok := a.Object.(*corev1.Pod)
	if !ok {
		return nil, nil, apierrors.NewBadRequest("Resource was marked with kind Pod but was unable to be converted")
	}
	if pod.Spec.RuntimeClassName == nil {
		return pod, nil, nil
	}
	name := *pod.Spec.RuntimeClassName
	rc, err := p.lister.Get(name)
	if apierrors.IsNotFound(err) && p.live != nil {
		rc, err = p.live.Get(ctx, name)
		if apierrors.IsNotFound(err) {
			return pod, nil, admission.NewForbidden(a, fmt.Errorf("pod rejected: RuntimeClass %q not found", name))
		}
	}
	if err != nil {
		return pod, nil, err
	}
	return pod, rc, nil
}

func copyMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	c := make(map[string]string, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

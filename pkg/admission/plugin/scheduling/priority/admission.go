// Package priority is the Priority admission plugin: a pod's
// priorityClassName becomes its priority and preemption policy, from the
// PriorityClass it names or, when it names none, from the class marked
// globalDefault (priority 0 and PreemptLowerPriority when there is none);
// and at most one PriorityClass is the global default.
package priority

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	schedulinglisters "k8s.io/client-go/listers/scheduling/v1"

	"github.com/kapi-dev/kapi/pkg/admission"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "Priority"

// Config is what the plugin needs.
type Config struct {
	// Lister reads PriorityClasses from an informer's cache.
	Lister schedulinglisters.PriorityClassLister
}

// Plugin is the plugin: it mutates pods and validates PriorityClasses.
type Plugin struct {
	admission.Handler
	lister schedulinglisters.PriorityClassLister
}

// New returns the plugin.
func New(cfg Config) *Plugin {
	return &Plugin{Handler: admission.NewHandler(admission.Create, admission.Update, admission.Delete), lister: cfg.Lister}
}

// Admit resolves a created pod's priority, and keeps an updated pod's.
func (p *Plugin) Admit(_ context.Context, a *admission.Attributes) error {
	if a.Subresource != "" || a.Resource.Group != "" || a.Resource.Resource != "pods" {
		return nil
	}
	pod, ok := a.Object.(*corev1.Pod)
	if !ok {
		return nil
	}
	switch a.Operation {
	case admission.Update:
		// The priority was set on create and may not change: an update
		// that leaves it out keeps it.
		old, ok := a.OldObject.(*corev1.Pod)
		if !ok {
			return nil
		}
		if pod.Spec.Priority == nil && old.Spec.Priority != nil {
			pod.Spec.Priority = old.Spec.Priority
		}
		if pod.Spec.PreemptionPolicy == nil && old.Spec.PreemptionPolicy != nil {
			pod.Spec.PreemptionPolicy = old.Spec.PreemptionPolicy
		}
		return nil
	case admission.Create:
	default:
		return nil
	}

	var priority int32
	var policy *corev1.PreemptionPolicy
	if pod.Spec.PriorityClassName == "" {
		pc, err := p.globalDefault()
		if err != nil {
			return fmt.Errorf("failed to get default priority class: %v", err)
		}
		lower := corev1.PreemptLowerPriority
		policy = &lower
		if pc != nil {
			pod.Spec.PriorityClassName = pc.Name
			priority = pc.Value
			if pc.PreemptionPolicy != nil {
				policy = pc.PreemptionPolicy
			}
		}
	} else {
		pc, err := p.lister.Get(pod.Spec.PriorityClassName)
		switch {
		case apierrors.IsNotFound(err):
			return admission.NewForbidden(a, fmt.Errorf("no PriorityClass with name %v was found", pod.Spec.PriorityClassName))
		case err != nil:
			return fmt.Errorf("failed to get PriorityClass with name %s: %v", pod.Spec.PriorityClassName, err)
		}
		priority, policy = pc.Value, pc.PreemptionPolicy
	}
	if pod.Spec.Priority != nil && *pod.Spec.Priority != priority {
		return admission.NewForbidden(a, fmt.Errorf("the integer value of priority (%d) must not be provided in pod spec; priority admission controller computed %d from the given PriorityClass name", *pod.Spec.Priority, priority))
	}
	pod.Spec.Priority = &priority
	if policy != nil {
		if pod.Spec.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy != *policy {
			return admission.NewForbidden(a, fmt.Errorf("the string value of PreemptionPolicy (%s) must not be provided in pod spec; priority admission controller computed %s from the given PriorityClass name", *pod.Spec.PreemptionPolicy, *policy))
		}
		v := *policy
		pod.Spec.PreemptionPolicy = &v
	}
	return nil
}

// Validate refuses a second global default PriorityClass.
func (p *Plugin) Validate(_ context.Context, a *admission.Attributes) error {
	if a.Subresource != "" || a.Resource.Group != schedulingv1.GroupName || a.Resource.Resource != "priorityclasses" {
		return nil
	}
	if a.Operation != admission.Create && a.Operation != admission.Update {
		return nil
	}
	pc, ok := a.Object.(*schedulingv1.PriorityClass)
	if !ok {
		return apierrors.NewBadRequest("resource was marked with kind PriorityClass but was unable to be converted")
	}
	if !pc.GlobalDefault {
		return nil
	}
	def, err := p.globalDefault()
	if err != nil {
		return fmt.Errorf("failed to get default priority class: %v", err)
	}
	if def != nil && (a.Operation == admission.Create || def.Name != pc.Name) {
		return admission.NewForbidden(a, fmt.Errorf("PriorityClass %v is already marked as default. Only one default can exist", def.Name))
	}
	return nil
}

// globalDefault is the PriorityClass marked globalDefault (of several, the
// highest), nil if none is.
func (p *Plugin) globalDefault() (*schedulingv1.PriorityClass, error) {
	list, err := p.lister.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	var def *schedulingv1.PriorityClass
	for _, pc := range list {
		if pc.GlobalDefault && (def == nil || def.Value < pc.Value) {
			def = pc
		}
	}
	return def, nil
}

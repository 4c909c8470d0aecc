// Package defaultingressclass is the DefaultIngressClass admission
// plugin: an Ingress created without a class (no spec.ingressClassName
// and no kubernetes.io/ingress.class annotation) gets the cluster's
// default IngressClass, the one annotated
// ingressclass.kubernetes.io/is-default-class=true. With several
// defaults, the newest wins, ties broken by name; with none the Ingress is
// left as it is.
package defaultingressclass

import (
	"context"
	"fmt"

	networkingv1 "k8s.io/api/networking/v1"
	networkingv1beta1 "k8s.io/api/networking/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/internal/defaultclass"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "DefaultIngressClass"

// IngressClassLister lists IngressClasses from a cache (client-go's
// IngressClassLister is one).
type IngressClassLister interface {
	List(selector labels.Selector) ([]*networkingv1.IngressClass, error)
}

// Plugin is the admission plugin; it mutates.
type Plugin struct {
	admission.Handler
	lister IngressClassLister
}

// New returns the plugin, reading IngressClasses from lister.
func New(lister IngressClassLister) *Plugin {
	return &Plugin{Handler: admission.NewHandler(admission.Create), lister: lister}
}

// Admit sets the default class of an Ingress created without one.
func (p *Plugin) Admit(_ context.Context, a *admission.Attributes) error {
	if a.Resource.GroupResource() != networkingv1.Resource("ingresses") || a.Subresource != "" {
		return nil
	}
	ing, ok := a.Object.(*networkingv1.Ingress)
	if !ok {
		return apierrors.NewInternalError(fmt.Errorf("Expected Ingress resource, got: %v", a.Kind))
	}
	if ing.Spec.IngressClassName != nil {
		return nil
	}
	if _, ok := ing.Annotations[networkingv1beta1.AnnotationIngressClass]; ok {
		return nil
	}
	def, err := defaultClass(p.lister)
	if err != nil {
		return admission.NewForbidden(a, err)
	}
	if def != nil {
		name := def.Name
		ing.Spec.IngressClassName = &name
	}
	return nil
}

// defaultClass is the newest IngressClass marked default, the first by
// name among equally new ones; nil if none is.
func defaultClass(lister IngressClassLister) (*networkingv1.IngressClass, error) {
	all, err := lister.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	if c, ok := defaultclass.Newest(all, isDefault); ok {
		return c, nil
	}
	return nil, nil
}

func isDefault(c *networkingv1.IngressClass) bool {
	return c.Annotations[networkingv1.AnnotationIsDefaultIngressClass] == "true"
}

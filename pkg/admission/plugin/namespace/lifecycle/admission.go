// Package lifecycle is the NamespaceLifecycle admission plugin: nothing is
// created in a namespace that does not exist or is being deleted, and the
// system namespaces cannot be deleted.
package lifecycle

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "NamespaceLifecycle"

// NamespaceGetter reads a namespace.
type NamespaceGetter interface {
	Get(ctx context.Context, name string, opts *metav1.GetOptions) (runtime.Object, error)
}

// Lifecycle is the plugin.
type Lifecycle struct {
	namespaces NamespaceGetter
	immortal   map[string]bool
}

// New returns the plugin; immortal namespaces may never be deleted.
func New(namespaces NamespaceGetter, immortal ...string) *Lifecycle {
	l := &Lifecycle{namespaces: namespaces, immortal: map[string]bool{}}
	for _, n := range immortal {
		l.immortal[n] = true
	}
	return l
}

// Admit changes nothing.
func (l *Lifecycle) Admit(context.Context, *admission.Attributes) error { return nil }

// Validate rejects writes into missing or terminating namespaces and the
// deletion of immortal ones.
func (l *Lifecycle) Validate(ctx context.Context, a *admission.Attributes) error {
	isNamespace := a.Resource.Group == "" && a.Resource.Resource == "namespaces"
	if isNamespace {
		if a.Operation == admission.Delete && a.Subresource == "" && l.immortal[a.Name] {
			return apierrors.NewForbidden(a.Resource.GroupResource(), a.Name, fmt.Errorf("this namespace may not be deleted"))
		}
		return nil
	}
	if a.Namespace == "" || a.Operation != admission.Create {
		return nil
	}
	// Read the namespace as the server, not as the requester: admission
	// must not depend on whether the user may read namespaces.
	obj, err := l.namespaces.Get(request.WithNamespace(ctx, ""), a.Namespace, &metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return apierrors.NewNotFound(corev1.Resource("namespaces"), a.Namespace)
	}
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	ns := obj.(*corev1.Namespace)
	if ns.Status.Phase == corev1.NamespaceTerminating || ns.DeletionTimestamp != nil {
		// Creating events in a terminating namespace stays allowed, so
		// that its deletion can be reported.
		if a.Resource.Resource == "events" {
			return nil
		}
		err := apierrors.NewForbidden(a.Resource.GroupResource(), a.Name,
			fmt.Errorf("unable to create new content in namespace %s because it is being terminated", a.Namespace))
		err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{
			Type:    corev1.NamespaceTerminatingCause,
			Message: fmt.Sprintf("namespace %s is being terminated", a.Namespace),
			Field:   "metadata.namespace",
		})
		return err
	}
	return nil
}

// Package matching is how admission webhooks and policies decide which
// writes they see, as kube-apiserver decides it for both: rules of
// operations, groups, versions, resources (with subresources) and scope,
// matchPolicy Equivalent through the equivalent resources, the
// namespaceSelector on the labels of the write's namespace, and the
// objectSelector on the labels of the object or the old object.
package matching

import (
	"context"
	"strings"

	v1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/internal/namespaces"
)

var namespacesResource = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

// RuleMatches says whether the rule names the write's operation, and
// resource's group, version and name (with the write's subresource), and
// its scope. resource is the write's, or an equivalent one.
func RuleMatches(r v1.RuleWithOperations, a *admission.Attributes, resource schema.GroupVersionResource) bool {
	return scopeMatches(r.Scope, a, resource) &&
		operationMatches(r.Operations, a.Operation) &&
		exactOrWildcard(r.APIGroups, resource.Group) &&
		exactOrWildcard(r.APIVersions, resource.Version) &&
		resourceMatches(r.Resources, resource.Resource, a.Subresource)
}

func scopeMatches(scope *v1.ScopeType, a *admission.Attributes, resource schema.GroupVersionResource) bool {
	if scope == nil || *scope == v1.AllScopes {
		return true
	}
	// A namespace is cluster-scoped, though its writes carry its name as
	// their namespace.
	isNamespace := resource == namespacesResource
	switch *scope {
	case v1.NamespacedScope:
		return !isNamespace && a.Namespace != ""
	case v1.ClusterScope:
		return isNamespace || a.Namespace == ""
	}
	return false
}

func operationMatches(ops []v1.OperationType, op admission.Operation) bool {
	for _, o := range ops {
		if o == v1.OperationAll || string(o) == string(op) {
			return true
		}
	}
	return false
}

func exactOrWildcard(items []string, requested string) bool {
	for _, item := range items {
		if item == "*" || item == requested {
			return true
		}
	}
	return false
}

// resourceMatches: "pods" is the resource itself, "pods/status" a
// subresource, "*" every resource (not subresources), "*/*" everything,
// "pods/*" pods and its subresources, "*/status" every status.
func resourceMatches(resources []string, resource, subresource string) bool {
	for _, r := range resources {
		res, sub, _ := strings.Cut(r, "/")
		if (res == "*" || res == resource) && (sub == "*" || sub == subresource) {
			return true
		}
	}
	return false
}

// ObjectMatches says whether sel matches the labels of obj or of old (an
// empty selector matches everything).
func ObjectMatches(sel labels.Selector, obj, old runtime.Object) bool {
	return sel.Empty() || objectMatches(sel, obj) || objectMatches(sel, old)
}

func objectMatches(sel labels.Selector, obj runtime.Object) bool {
	if obj == nil {
		return false
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return false
	}
	return sel.Matches(labels.Set(m.GetLabels()))
}

// NamespaceMatches evaluates the namespaceSelector on the labels of the
// write's namespace: those of the namespace object itself for a create
// or update of a namespace, else the namespace's as ns reads them.
// Cluster-scoped writes always match. A namespace that does not exist is
// a NotFound error; others are internal errors.
func NamespaceMatches(ctx context.Context, ns namespaces.Getter, sel labels.Selector, a *admission.Attributes) (bool, error) {
	isNamespace := a.Resource.Group == "" && a.Resource.Resource == "namespaces"
	name := a.Namespace
	if isNamespace && name == "" {
		name = a.Name
	}
	if name == "" && !isNamespace {
		return true, nil
	}
	if sel.Empty() {
		return true, nil
	}
	if isNamespace && a.Subresource == "" && (a.Operation == admission.Create || a.Operation == admission.Update) {
		acc, err := meta.Accessor(a.Object)
		if err != nil {
			return false, apierrors.NewInternalError(err)
		}
		return sel.Matches(labels.Set(acc.GetLabels())), nil
	}
	namespace, err := ns.Get(ctx, name)
	if apierrors.IsNotFound(err) {
		return false, err
	}
	if err != nil {
		return false, apierrors.NewInternalError(err)
	}
	return sel.Matches(labels.Set(namespace.Labels)), nil
}

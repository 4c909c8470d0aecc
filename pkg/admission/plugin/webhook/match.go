package webhook

import (
	"context"
	"fmt"
	"strings"

	v1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/admission"
)

// Invocation is a webhook to call for a write, and the resource and kind
// it is called with: those of the write, or with matchPolicy Equivalent
// those of an equivalent resource its rules name.
type Invocation struct {
	Hook        *Hook
	Resource    schema.GroupVersionResource
	Subresource string
	Kind        schema.GroupVersionKind
}

// NamespaceLister reads namespaces from the informer's cache.
type NamespaceLister interface {
	Get(name string) (*corev1.Namespace, error)
}

// NamespaceGetter reads a namespace from the server, for one the cache
// does not have yet.
type NamespaceGetter interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.Namespace, error)
}

// Matcher decides which webhooks a write calls.
type Matcher struct {
	Namespaces     NamespaceLister
	LiveNamespaces NamespaceGetter
	// Equivalents finds the resources of matchPolicy Equivalent; nil
	// matches the write's own resource only.
	Equivalents admission.EquivalentResources
}

var namespacesResource = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

// Exempt says whether a write is of the resources no webhook sees: the
// webhook and policy configurations, so that a broken webhook cannot
// lock itself in.
func Exempt(a *admission.Attributes) bool {
	if a.Kind.Group != "admissionregistration.k8s.io" {
		return false
	}
	switch a.Kind.Kind {
	case "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration",
		"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding",
		"MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding":
		return true
	}
	return false
}

// Match returns the invocation of h for the write a, or nil if h does not
// apply. obj and old are the objects the objectSelector looks at (a
// mutating webhook sees the object as earlier webhooks left it). A
// selector that cannot be evaluated fails the write, but only if a rule
// matches.
func (m *Matcher) Match(ctx context.Context, h *Hook, a *admission.Attributes, obj, old runtime.Object) (*Invocation, error) {
	nsSel, objSel, err := h.selectors()
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	nsMatches, nsErr := m.matchNamespace(ctx, nsSel, a)
	if !nsMatches && nsErr == nil {
		return nil, nil
	}
	if !objSel.Empty() && !matchObject(objSel, obj) && !matchObject(objSel, old) {
		return nil, nil
	}
	inv := m.matchRules(h, a)
	if inv == nil {
		return nil, nil
	}
	if nsErr != nil {
		return nil, nsErr
	}
	if inv.Kind.Empty() {
		return nil, apierrors.NewInternalError(fmt.Errorf("unable to convert to %v: unknown kind", inv.Resource))
	}
	return inv, nil
}

func (m *Matcher) matchRules(h *Hook, a *admission.Attributes) *Invocation {
	for _, r := range h.Rules {
		if ruleMatches(r, a, a.Resource) {
			return &Invocation{Hook: h, Resource: a.Resource, Subresource: a.Subresource, Kind: a.Kind}
		}
	}
	if h.MatchPolicy == nil || *h.MatchPolicy != v1.Equivalent || m.Equivalents == nil {
		return nil
	}
	equivalents := m.Equivalents.EquivalentResourcesFor(a.Resource, a.Subresource)
	// The earlier rules win, as in kube-apiserver.
	for _, r := range h.Rules {
		for _, eq := range equivalents {
			if eq == a.Resource {
				continue
			}
			if ruleMatches(r, a, eq) {
				return &Invocation{Hook: h, Resource: eq, Subresource: a.Subresource, Kind: m.Equivalents.KindFor(eq, a.Subresource)}
			}
		}
	}
	return nil
}

// ruleMatches: the rule names the write's operation, and resource's
// group, version and name (with the write's subresource), and its scope.
func ruleMatches(r v1.RuleWithOperations, a *admission.Attributes, resource schema.GroupVersionResource) bool {
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

func matchObject(sel labels.Selector, obj runtime.Object) bool {
	if obj == nil {
		return false
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return false
	}
	return sel.Matches(labels.Set(m.GetLabels()))
}

// matchNamespace evaluates the namespaceSelector on the labels of the
// write's namespace: those of the namespace object itself for a create or
// update of a namespace, else the namespace's as the cache (or, for one
// it does not have yet, the server) knows them. Cluster-scoped writes
// always match.
func (m *Matcher) matchNamespace(ctx context.Context, sel labels.Selector, a *admission.Attributes) (bool, error) {
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
	ns, err := m.Namespaces.Get(name)
	if apierrors.IsNotFound(err) && m.LiveNamespaces != nil {
		ns, err = m.LiveNamespaces.Get(ctx, name, metav1.GetOptions{})
	}
	if apierrors.IsNotFound(err) {
		return false, err
	}
	if err != nil {
		return false, apierrors.NewInternalError(err)
	}
	return sel.Matches(labels.Set(ns.Labels)), nil
}

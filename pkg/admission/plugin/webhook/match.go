package webhook

import (
	"context"
	"fmt"

	v1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/internal/matching"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/internal/namespaces"
	nsgetter "github.com/kapi-dev/kapi/pkg/admission/plugin/internal/namespaces"
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

// Matcher decides which webhooks a write calls.
type Matcher struct {
	// Namespaces is the informer's cache, LiveNamespaces the server, for
	// a namespace the cache does not have yet.
	Namespaces     namespaces.Cache
	LiveNamespaces namespaces.Live
	// Equivalents finds the resources of matchPolicy Equivalent; nil
	// matches the write's own resource only.
	Equivalents admission.EquivalentResources
}

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
	if !matching.ObjectMatches(objSel, obj, old) {
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

func ruleMatches(r v1.RuleWithOperations, a *admission.Attributes, resource schema.GroupVersionResource) bool {
	return matching.RuleMatches(r, a, resource)
}

// matchNamespace evaluates the namespaceSelector on the labels of the
// write's namespace (see matching.NamespaceMatches), read from the cache,
// or for one it does not have yet, from the server.
func (m *Matcher) matchNamespace(ctx context.Context, sel labels.Selector, a *admission.Attributes) (bool, error) {
	getter := nsgetter.Getter{Cache: m.Namespaces}
	if m.LiveNamespaces != nil {
		getter.Live = m.LiveNamespaces
	}
	return matching.NamespaceMatches(ctx, getter, sel, a)
}

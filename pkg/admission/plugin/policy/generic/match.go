package generic

import (
	"context"
	"fmt"

	v1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/internal/matching"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/internal/namespaces"
)

// Matcher decides which policies and bindings apply to a write.
type Matcher struct {
	Namespaces namespaces.Getter
	// Equivalents finds the resources of matchPolicy Equivalent; nil
	// matches the write's own resource only.
	Equivalents admission.EquivalentResources
}

// NewMatcher is a matcher reading namespaces from cache, and from live
// for one the cache does not have yet; equivalents may be nil.
func NewMatcher(cache namespaces.Cache, live namespaces.Live, equivalents admission.EquivalentResources) *Matcher {
	return &Matcher{Namespaces: namespaces.Getter{Cache: cache, Live: live}, Equivalents: equivalents}
}

// Exempt says whether a write is of the resources no policy sees: the
// policies and their bindings, so that a broken policy cannot lock
// itself in, and the reviews of authentication and authorization
// (admission.Excluded). Webhook configurations are not exempt.
func Exempt(a *admission.Attributes) bool {
	return policyResources[a.Resource.GroupResource()] || admission.Excluded(a.Resource.GroupResource())
}

var policyResources = map[schema.GroupResource]bool{
	{Group: v1.GroupName, Resource: "validatingadmissionpolicies"}:       true,
	{Group: v1.GroupName, Resource: "validatingadmissionpolicybindings"}: true,
	{Group: v1.GroupName, Resource: "mutatingadmissionpolicies"}:         true,
	{Group: v1.GroupName, Resource: "mutatingadmissionpolicybindings"}:   true,
}

// PolicyMatches says whether the policy's matchConstraints take the
// write, and the resource and kind it is evaluated as: the write's, or
// with matchPolicy Equivalent an equivalent one its rules name. An error
// is a configuration error (the failure policy decides).
func (m *Matcher) PolicyMatches(ctx context.Context, a *admission.Attributes, p PolicyAccessor) (bool, schema.GroupVersionResource, schema.GroupVersionKind, error) {
	c := p.GetMatchConstraints()
	if c == nil {
		return false, schema.GroupVersionResource{}, schema.GroupVersionKind{}, fmt.Errorf("policy contained no match constraints, a required field")
	}
	return m.matches(ctx, a, c)
}

// BindingMatches says whether the binding's matchResources (if any) take
// the write.
func (m *Matcher) BindingMatches(ctx context.Context, a *admission.Attributes, b BindingAccessor) (bool, error) {
	c := b.GetMatchResources()
	if c == nil {
		return true, nil
	}
	ok, _, _, err := m.matches(ctx, a, c)
	return ok, err
}

const errNilSelector = "a nil %s selector was passed, please ensure selectors are initialized properly"

func (m *Matcher) matches(ctx context.Context, a *admission.Attributes, c *v1.MatchResources) (bool, schema.GroupVersionResource, schema.GroupVersionKind, error) {
	none := func(err error) (bool, schema.GroupVersionResource, schema.GroupVersionKind, error) {
		return false, schema.GroupVersionResource{}, schema.GroupVersionKind{}, err
	}
	if c.NamespaceSelector == nil {
		return none(fmt.Errorf(errNilSelector, "namespace"))
	}
	if c.ObjectSelector == nil {
		return none(fmt.Errorf(errNilSelector, "object"))
	}
	nsSel, err := metav1.LabelSelectorAsSelector(c.NamespaceSelector)
	if err != nil {
		return none(err)
	}
	objSel, err := metav1.LabelSelectorAsSelector(c.ObjectSelector)
	if err != nil {
		return none(err)
	}
	nsMatches, nsErr := matching.NamespaceMatches(ctx, m.Namespaces, nsSel, a)
	if !nsMatches && nsErr == nil {
		return none(nil)
	}
	if !matching.ObjectMatches(objSel, a.Object, a.OldObject) {
		return none(nil)
	}
	if excluded, _, _, err := m.rulesMatch(c.ExcludeResourceRules, c.MatchPolicy, a); excluded || err != nil {
		return none(err)
	}
	resource, kind := a.Resource, a.Kind
	if len(c.ResourceRules) > 0 {
		var ok bool
		ok, resource, kind, err = m.rulesMatch(c.ResourceRules, c.MatchPolicy, a)
		if err != nil || !ok {
			return none(err)
		}
	}
	if nsErr != nil {
		return none(nsErr)
	}
	return true, resource, kind, nil
}

// rulesMatch is kube-apiserver's matching of named rules: the write's
// own resource first, then with matchPolicy Equivalent the equivalent
// resources, rule by rule; a rule with resourceNames takes only writes of
// those names.
func (m *Matcher) rulesMatch(rules []v1.NamedRuleWithOperations, policy *v1.MatchPolicyType, a *admission.Attributes) (bool, schema.GroupVersionResource, schema.GroupVersionKind, error) {
	for _, r := range rules {
		if matching.RuleMatches(r.RuleWithOperations, a, a.Resource) && nameMatches(r.ResourceNames, a.Name) {
			return true, a.Resource, a.Kind, nil
		}
	}
	if policy == nil || *policy == v1.Exact || m.Equivalents == nil {
		return false, schema.GroupVersionResource{}, schema.GroupVersionKind{}, nil
	}
	equivalents := m.Equivalents.EquivalentResourcesFor(a.Resource, a.Subresource)
	for _, r := range rules {
		for _, eq := range equivalents {
			if eq == a.Resource || !matching.RuleMatches(r.RuleWithOperations, a, eq) {
				continue
			}
			kind := m.Equivalents.KindFor(eq, a.Subresource)
			if kind.Empty() {
				return false, schema.GroupVersionResource{}, schema.GroupVersionKind{}, fmt.Errorf("unable to convert to %v: unknown kind", eq)
			}
			if nameMatches(r.ResourceNames, a.Name) {
				return true, eq, kind, nil
			}
		}
	}
	return false, schema.GroupVersionResource{}, schema.GroupVersionKind{}, nil
}

func nameMatches(names []string, name string) bool {
	if len(names) == 0 {
		return true
	}
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// Namespace is the namespace a write's expressions see as
// namespaceObject: none for a cluster-scoped write, nor for a namespace
// itself (kube-apiserver leaves it out).
func (m *Matcher) Namespace(ctx context.Context, a *admission.Attributes) (*corev1.Namespace, error) {
	name := a.Namespace
	if a.Kind.Group == "" && a.Kind.Version == "v1" && a.Kind.Kind == "Namespace" {
		name = ""
	}
	if name == "" {
		return nil, nil
	}
	return m.Namespaces.Get(ctx, name)
}

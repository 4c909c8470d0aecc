package webhook

import (
	"fmt"
	"sync"

	v1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/rest"
)

// Hook is one webhook of a configuration, mutating or validating, as the
// dispatchers use it. Its selectors are parsed, and its client and match
// conditions built, once for as long as its configuration is unchanged.
type Hook struct {
	// UID tells the webhooks apart across configurations: the
	// configuration's name, the webhook's name and its index.
	UID           string
	Configuration string
	// Mutating is set for the webhooks of a MutatingWebhookConfiguration.
	Mutating bool

	Name                    string
	ClientConfig            v1.WebhookClientConfig
	Rules                   []v1.RuleWithOperations
	FailurePolicy           *v1.FailurePolicyType
	MatchPolicy             *v1.MatchPolicyType
	NamespaceSelector       *metav1.LabelSelector
	ObjectSelector          *metav1.LabelSelector
	SideEffects             *v1.SideEffectClass
	TimeoutSeconds          *int32
	AdmissionReviewVersions []string
	MatchConditions         []v1.MatchCondition
	ReinvocationPolicy      *v1.ReinvocationPolicyType

	selectorsOnce           sync.Once
	nsSelector, objSelector labels.Selector
	selectorsErr            error

	clientOnce sync.Once
	client     *rest.RESTClient
	clientErr  error

	conditionsOnce sync.Once
	conditions     *conditions
}

// MutatingHooks are the webhooks of a configuration.
func MutatingHooks(c *v1.MutatingWebhookConfiguration) []*Hook {
	hooks := make([]*Hook, len(c.Webhooks))
	for i, w := range c.Webhooks {
		hooks[i] = &Hook{
			UID: hookUID(c.Name, w.Name, i), Configuration: c.Name, Mutating: true,
			Name: w.Name, ClientConfig: w.ClientConfig, Rules: w.Rules,
			FailurePolicy: w.FailurePolicy, MatchPolicy: w.MatchPolicy,
			NamespaceSelector: w.NamespaceSelector, ObjectSelector: w.ObjectSelector,
			SideEffects: w.SideEffects, TimeoutSeconds: w.TimeoutSeconds,
			AdmissionReviewVersions: w.AdmissionReviewVersions,
			MatchConditions:         w.MatchConditions,
			ReinvocationPolicy:      w.ReinvocationPolicy,
		}
	}
	return hooks
}

// ValidatingHooks are the webhooks of a configuration.
func ValidatingHooks(c *v1.ValidatingWebhookConfiguration) []*Hook {
	hooks := make([]*Hook, len(c.Webhooks))
	for i, w := range c.Webhooks {
		hooks[i] = &Hook{
			UID: hookUID(c.Name, w.Name, i), Configuration: c.Name,
			Name: w.Name, ClientConfig: w.ClientConfig, Rules: w.Rules,
			FailurePolicy: w.FailurePolicy, MatchPolicy: w.MatchPolicy,
			NamespaceSelector: w.NamespaceSelector, ObjectSelector: w.ObjectSelector,
			SideEffects: w.SideEffects, TimeoutSeconds: w.TimeoutSeconds,
			AdmissionReviewVersions: w.AdmissionReviewVersions,
			MatchConditions:         w.MatchConditions,
		}
	}
	return hooks
}

func hookUID(configuration, webhook string, i int) string {
	return fmt.Sprintf("%s/%s/%d", configuration, webhook, i)
}

// FailsOpen says whether a failure to call the webhook lets the write
// go on: only failurePolicy Ignore does.
func (h *Hook) FailsOpen() bool {
	return h.FailurePolicy != nil && *h.FailurePolicy == v1.Ignore
}

// Reinvocable says whether the webhook asked to be called again when
// later mutations change the object.
func (h *Hook) Reinvocable() bool {
	return h.ReinvocationPolicy != nil && *h.ReinvocationPolicy == v1.IfNeededReinvocationPolicy
}

// Type is the "type" label of the webhook's metrics.
func (h *Hook) Type() string {
	if h.Mutating {
		return "admit"
	}
	return "validating"
}

func (h *Hook) selectors() (ns, obj labels.Selector, err error) {
	h.selectorsOnce.Do(func() {
		parse := func(s *metav1.LabelSelector) labels.Selector {
			if h.selectorsErr != nil {
				return nil
			}
			// A missing selector selects everything, as an empty one.
			if s == nil {
				return labels.Everything()
			}
			sel, err := metav1.LabelSelectorAsSelector(s)
			if err != nil {
				h.selectorsErr = err
			}
			return sel
		}
		h.nsSelector = parse(h.NamespaceSelector)
		h.objSelector = parse(h.ObjectSelector)
	})
	return h.nsSelector, h.objSelector, h.selectorsErr
}

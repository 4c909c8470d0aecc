package admissionregistration

import (
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/internal/fielderrors"
	"github.com/kapi-dev/kapi/pkg/apis/internal/webhookclient"
)

var (
	metadataPath = field.NewPath("metadata")
	webhooksPath = field.NewPath("webhooks")
)

// acceptedAdmissionReviewVersions are the AdmissionReview versions the
// previous minor version of kube-apiserver can send.
var acceptedAdmissionReviewVersions = []string{"v1", "v1beta1"}

// webhook is what the two kinds of admission webhook have in common, as
// their validation sees it; reinvocationPolicy is a mutating webhook's
// only.
type webhook struct {
	name                    string
	clientConfig            *admissionregistrationv1.WebhookClientConfig
	rules                   []admissionregistrationv1.RuleWithOperations
	failurePolicy           *admissionregistrationv1.FailurePolicyType
	matchPolicy             *admissionregistrationv1.MatchPolicyType
	namespaceSelector       *metav1.LabelSelector
	objectSelector          *metav1.LabelSelector
	sideEffects             *admissionregistrationv1.SideEffectClass
	timeoutSeconds          *int32
	admissionReviewVersions []string
	reinvocationPolicy      *admissionregistrationv1.ReinvocationPolicyType
	mutating                bool
	matchConditions         []admissionregistrationv1.MatchCondition
}

func validatingWebhooks(c *admissionregistrationv1.ValidatingWebhookConfiguration) []webhook {
	out := make([]webhook, len(c.Webhooks))
	for i := range c.Webhooks {
		w := &c.Webhooks[i]
		out[i] = webhook{w.Name, &w.ClientConfig, w.Rules, w.FailurePolicy, w.MatchPolicy, w.NamespaceSelector, w.ObjectSelector, w.SideEffects, w.TimeoutSeconds, w.AdmissionReviewVersions, nil, false, w.MatchConditions}
	}
	return out
}

func mutatingWebhooks(c *admissionregistrationv1.MutatingWebhookConfiguration) []webhook {
	out := make([]webhook, len(c.Webhooks))
	for i := range c.Webhooks {
		w := &c.Webhooks[i]
		out[i] = webhook{w.Name, &w.ClientConfig, w.Rules, w.FailurePolicy, w.MatchPolicy, w.NamespaceSelector, w.ObjectSelector, w.SideEffects, w.TimeoutSeconds, w.AdmissionReviewVersions, w.ReinvocationPolicy, true, w.MatchConditions}
	}
	return out
}

// webhookOptions are what a configuration's validation tolerates. New
// configurations get the strictest; an update keeps tolerating what
// the stored configuration already has, so that it can still be
// changed.
type webhookOptions struct {
	// ignoreMatchConditions skips the match conditions when an update
	// leaves every webhook's conditions as they are.
	ignoreMatchConditions                   bool
	requireNoSideEffects                    bool
	requireRecognizedAdmissionReviewVersion bool
	requireUniqueWebhookNames               bool
	allowInvalidLabelValueInSelector        bool
	// storedExpressions are the match condition expressions of the stored
	// configuration, compiled in the environment of stored expressions.
	storedExpressions sets.Set[string]
}

var strictWebhookOptions = webhookOptions{
	requireNoSideEffects:                    true,
	requireRecognizedAdmissionReviewVersion: true,
	requireUniqueWebhookNames:               true,
}

// ValidateValidatingWebhookConfiguration validates a new
// ValidatingWebhookConfiguration.
func ValidateValidatingWebhookConfiguration(c *admissionregistrationv1.ValidatingWebhookConfiguration) field.ErrorList {
	return validateWebhookConfiguration(&c.ObjectMeta, validatingWebhooks(c), strictWebhookOptions)
}

// ValidateValidatingWebhookConfigurationUpdate validates an update.
func ValidateValidatingWebhookConfigurationUpdate(c, old *admissionregistrationv1.ValidatingWebhookConfiguration) field.ErrorList {
	allErrs := apivalidation.ValidateObjectMetaUpdate(&c.ObjectMeta, &old.ObjectMeta, metadataPath)
	allErrs = append(allErrs, validateWebhookConfiguration(&c.ObjectMeta, validatingWebhooks(c), updateWebhookOptions(validatingWebhooks(c), validatingWebhooks(old)))...)
	return fielderrors.Dedupe(allErrs)
}

// ValidateMutatingWebhookConfiguration validates a new
// MutatingWebhookConfiguration.
func ValidateMutatingWebhookConfiguration(c *admissionregistrationv1.MutatingWebhookConfiguration) field.ErrorList {
	return validateWebhookConfiguration(&c.ObjectMeta, mutatingWebhooks(c), strictWebhookOptions)
}

// ValidateMutatingWebhookConfigurationUpdate validates an update.
func ValidateMutatingWebhookConfigurationUpdate(c, old *admissionregistrationv1.MutatingWebhookConfiguration) field.ErrorList {
	allErrs := apivalidation.ValidateObjectMetaUpdate(&c.ObjectMeta, &old.ObjectMeta, metadataPath)
	allErrs = append(allErrs, validateWebhookConfiguration(&c.ObjectMeta, mutatingWebhooks(c), updateWebhookOptions(mutatingWebhooks(c), mutatingWebhooks(old)))...)
	return fielderrors.Dedupe(allErrs)
}

func updateWebhookOptions(hooks, old []webhook) webhookOptions {
	opts := webhookOptions{
		ignoreMatchConditions:                   len(hooks) == len(old),
		requireNoSideEffects:                    true,
		requireRecognizedAdmissionReviewVersion: true,
		requireUniqueWebhookNames:               true,
		storedExpressions:                       sets.New[string](),
	}
	names := sets.New[string]()
	for i, w := range old {
		if opts.ignoreMatchConditions && !apiequality.Semantic.DeepEqual(hooks[i].matchConditions, w.matchConditions) {
			opts.ignoreMatchConditions = false
		}
		if w.sideEffects == nil || !slices.Contains(noSideEffectClasses, string(*w.sideEffects)) {
			opts.requireNoSideEffects = false
		}
		if len(w.admissionReviewVersions) > 0 && !hasAcceptedAdmissionReviewVersion(w.admissionReviewVersions) {
			opts.requireRecognizedAdmissionReviewVersion = false
		}
		if names.Has(w.name) {
			opts.requireUniqueWebhookNames = false
		}
		names.Insert(w.name)
		if hasInvalidLabelValue(w.namespaceSelector, w.objectSelector) {
			opts.allowInvalidLabelValueInSelector = true
		}
		for _, c := range w.matchConditions {
			opts.storedExpressions.Insert(c.Expression)
		}
	}
	return opts
}

func hasAcceptedAdmissionReviewVersion(versions []string) bool {
	for _, v := range versions {
		if slices.Contains(acceptedAdmissionReviewVersions, v) {
			return true
		}
	}
	return false
}

func validateWebhookConfiguration(meta *metav1.ObjectMeta, hooks []webhook, opts webhookOptions) field.ErrorList {
	allErrs := apivalidation.ValidateObjectMeta(meta, false, apivalidation.NameIsDNSSubdomain, metadataPath)
	names := sets.New[string]()
	for i := range hooks {
		p := webhooksPath.Index(i)
		allErrs = append(allErrs, validateWebhook(&hooks[i], opts, p)...)
		allErrs = append(allErrs, validateAdmissionReviewVersions(hooks[i].admissionReviewVersions, opts.requireRecognizedAdmissionReviewVersion, p.Child("admissionReviewVersions"))...)
		if name := hooks[i].name; opts.requireUniqueWebhookNames && name != "" {
			if names.Has(name) {
				allErrs = append(allErrs, field.Duplicate(p.Child("name"), name))
			} else {
				names.Insert(name)
			}
		}
	}
	return allErrs
}

func validateWebhook(w *webhook, opts webhookOptions, fldPath *field.Path) field.ErrorList {
	allErrs := validation.IsFullyQualifiedName(fldPath.Child("name"), w.name)
	for i := range w.rules {
		allErrs = append(allErrs, validateRuleWithOperations(&w.rules[i], fldPath.Child("rules").Index(i))...)
	}
	if w.failurePolicy != nil && !slices.Contains(failurePolicies, string(*w.failurePolicy)) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("failurePolicy"), *w.failurePolicy, failurePolicies))
	}
	if w.matchPolicy != nil && !slices.Contains(matchPolicies, string(*w.matchPolicy)) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("matchPolicy"), *w.matchPolicy, matchPolicies))
	}
	allowedSideEffects := sideEffectClasses
	if opts.requireNoSideEffects {
		allowedSideEffects = noSideEffectClasses
	}
	if w.sideEffects == nil {
		allErrs = append(allErrs, field.Required(fldPath.Child("sideEffects"), "must specify one of "+strings.Join(allowedSideEffects, ", ")))
	} else if !slices.Contains(allowedSideEffects, string(*w.sideEffects)) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("sideEffects"), *w.sideEffects, allowedSideEffects))
	}
	if t := w.timeoutSeconds; t != nil && (*t > 30 || *t < 1) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("timeoutSeconds"), *t, "the timeout value must be between 1 and 30 seconds"))
	}
	if w.namespaceSelector != nil {
		allErrs = append(allErrs, validateLabelSelector(w.namespaceSelector, opts.allowInvalidLabelValueInSelector, fldPath.Child("namespaceSelector"))...)
	}
	if w.objectSelector != nil {
		allErrs = append(allErrs, validateLabelSelector(w.objectSelector, opts.allowInvalidLabelValueInSelector, fldPath.Child("objectSelector"))...)
	}
	if w.mutating && w.reinvocationPolicy != nil && !slices.Contains(reinvocationPolicies, string(*w.reinvocationPolicy)) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("reinvocationPolicy"), *w.reinvocationPolicy, reinvocationPolicies))
	}
	allErrs = append(allErrs, validateClientConfig(w.clientConfig, fldPath.Child("clientConfig"))...)
	if !opts.ignoreMatchConditions {
		compile := func(expr string, p *field.Path) field.ErrorList {
			return compileMatchCondition(expr, opts.storedExpressions.Has(expr), p)
		}
		allErrs = append(allErrs, validateMatchConditions(w.matchConditions, compile, fldPath.Child("matchConditions"))...)
	}
	return allErrs
}

func validateClientConfig(cc *admissionregistrationv1.WebhookClientConfig, fldPath *field.Path) field.ErrorList {
	switch {
	case (cc.URL == nil) == (cc.Service == nil):
		return field.ErrorList{field.Required(fldPath, "exactly one of url or service is required")}
	case cc.URL != nil:
		return webhookclient.ValidateURL(fldPath.Child("url"), *cc.URL)
	default:
		port := int32(0)
		if cc.Service.Port != nil {
			port = *cc.Service.Port
		}
		// The name goes where the namespace is expected, and the other
		// way around, as kube-apiserver passes them.
		return webhookclient.ValidateService(fldPath.Child("service"), cc.Service.Name, cc.Service.Namespace, cc.Service.Path, port)
	}
}

func validateAdmissionReviewVersions(versions []string, requireAccepted bool, fldPath *field.Path) field.ErrorList {
	if len(versions) == 0 {
		return field.ErrorList{field.Required(fldPath, "must specify one of "+strings.Join(acceptedAdmissionReviewVersions, ", "))}
	}
	var allErrs field.ErrorList
	seen := sets.New[string]()
	for i, v := range versions {
		if seen.Has(v) {
			allErrs = append(allErrs, field.Invalid(fldPath.Index(i), v, "duplicate version"))
			continue
		}
		seen.Insert(v)
		for _, msg := range validation.IsDNS1035Label(v) {
			allErrs = append(allErrs, field.Invalid(fldPath.Index(i), v, msg))
		}
	}
	if requireAccepted && !hasAcceptedAdmissionReviewVersion(versions) {
		allErrs = append(allErrs, field.Invalid(fldPath, versions, fmt.Sprintf("must include at least one of %v", strings.Join(acceptedAdmissionReviewVersions, ", "))))
	}
	return allErrs
}

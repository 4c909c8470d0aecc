package admissionregistration

import (
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// staticConfigSuffix ends the names of the admission configurations
// kube-apiserver loads from manifests (ManifestBasedAdmissionControlConfig,
// beta and on in 1.37): the API may not create such names.
const staticConfigSuffix = ".static.k8s.io"

// ValidateStaticSuffix refuses a name reserved for manifest-based
// configurations; kube-apiserver checks it on create only.
func ValidateStaticSuffix(name string) field.ErrorList {
	if strings.HasSuffix(name, staticConfigSuffix) {
		return field.ErrorList{field.Invalid(metadataPath.Child("name"), name,
			fmt.Sprintf("names ending with %q are reserved for static manifest-based configurations and cannot be managed via the API", staticConfigSuffix))}
	}
	return nil
}

// WarningsForStaticSuffix warns, on update, of a name reserved for
// manifest-based configurations (one created before the reservation).
func WarningsForStaticSuffix(name string) []string {
	if strings.HasSuffix(name, staticConfigSuffix) {
		return []string{fmt.Sprintf("metadata.name: names ending with %q are reserved for static manifest-based configurations and cannot be managed via the API", staticConfigSuffix)}
	}
	return nil
}

// excludedFromWebhooks are the resources admission webhooks are never
// called for (ExcludeAdmissionWebhookVirtualResources, beta and on in
// 1.37): reviews, which are not persisted and which a webhook could use
// to lock the cluster up.
var excludedFromWebhooks = sets.New(
	schema.GroupResource{Group: "authentication.k8s.io", Resource: "selfsubjectreviews"},
	schema.GroupResource{Group: "authentication.k8s.io", Resource: "tokenreviews"},
	schema.GroupResource{Group: "authorization.k8s.io", Resource: "localsubjectaccessreviews"},
	schema.GroupResource{Group: "authorization.k8s.io", Resource: "selfsubjectaccessreviews"},
	schema.GroupResource{Group: "authorization.k8s.io", Resource: "selfsubjectrulesreviews"},
	schema.GroupResource{Group: "authorization.k8s.io", Resource: "subjectaccessreviews"},
)

// ExcludedFromWebhooks reports whether admission webhooks are never
// called for the resource.
func ExcludedFromWebhooks(gr schema.GroupResource) bool {
	return excludedFromWebhooks.Has(gr)
}

// WarningsForValidatingWebhookRules warns of each rule that names a
// resource excluded from webhooks: it will have no effect.
func WarningsForValidatingWebhookRules(c *admissionregistrationv1.ValidatingWebhookConfiguration) []string {
	return warningsForWebhookRules(validatingWebhooks(c))
}

// WarningsForMutatingWebhookRules is WarningsForValidatingWebhookRules
// for mutating webhooks.
func WarningsForMutatingWebhookRules(c *admissionregistrationv1.MutatingWebhookConfiguration) []string {
	return warningsForWebhookRules(mutatingWebhooks(c))
}

func warningsForWebhookRules(hooks []webhook) []string {
	var warnings []string
	for i, w := range hooks {
		rulesPath := webhooksPath.Index(i).Child("rules")
		for j, r := range w.rules {
			for _, gr := range excludedNamedBy(r.APIGroups, r.Resources) {
				warnings = append(warnings, fmt.Sprintf("%s: %s is excluded from admission webhooks; this rule will have no effect", rulesPath.Index(j), gr))
			}
		}
	}
	return warnings
}

// excludedNamedBy are the excluded resources a rule names explicitly,
// once each, in the rule's order; a wildcard names none.
func excludedNamedBy(groups, resources []string) []schema.GroupResource {
	if slices.Contains(groups, "*") || slices.Contains(resources, "*") {
		return nil
	}
	seen := sets.New[schema.GroupResource]()
	var named []schema.GroupResource
	for _, g := range groups {
		for _, r := range resources {
			gr := schema.GroupResource{Group: g, Resource: r}
			if excludedFromWebhooks.Has(gr) && !seen.Has(gr) {
				seen.Insert(gr)
				named = append(named, gr)
			}
		}
	}
	return named
}

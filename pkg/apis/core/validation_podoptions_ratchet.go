package core

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// PodValidationOptions are the rules of a pod spec that an update
// tolerates because the old object already broke them, so that objects
// stored before a rule tightened can still be changed. The zero value is
// the full validation of a create.
type PodValidationOptions struct {
	// AllowIndivisibleHugePages: huge page quantities that are not a
	// whole number of pages.
	AllowIndivisibleHugePages bool
	// AllowInvalidAffinitySelectorValues: invalid label values in the
	// label and namespace selectors of pod (anti-)affinity terms.
	AllowInvalidAffinitySelectorValues bool
	// AllowInvalidRequiredNodeAffinityValues: invalid label values in
	// required node affinity.
	AllowInvalidRequiredNodeAffinityValues bool
	// AllowInvalidSpreadSelector: invalid topology spread label selectors.
	AllowInvalidSpreadSelector bool
	// LegacySpreadMatchLabelKeys: a topology spread constraint's
	// matchLabelKeys are checked by the rule before selectors were merged
	// (no key in the selector at all), which the old spec passed but the
	// newer one (no key both as a label and an expression) it does not.
	LegacySpreadMatchLabelKeys bool
	// AllowNonLocalTokenPath: projected service account token paths that
	// are absolute or climb out with "..".
	AllowNonLocalTokenPath bool
	// AllowHostNamespaceSysctls: net sysctls with hostNetwork, ipc ones
	// with hostIPC.
	AllowHostNamespaceSysctls bool
	// AllowInvalidDeletionCost: a pod deletion cost that is not a 32-bit
	// integer.
	AllowInvalidDeletionCost bool
	// AllowSysAdminWithoutEscalation: CAP_SYS_ADMIN added to a container
	// that may not escalate privileges.
	AllowSysAdminWithoutEscalation bool
	// AllowEmptyImageReference: a pod's image volume without a reference.
	AllowEmptyImageReference bool
}

// PodValidationOptionsFor are the options of an update whose old object
// had oldSpec and oldMeta (a pod's, or a workload's pod template's):
// each rule the old object breaks is tolerated, as kube-apiserver does.
func PodValidationOptionsFor(oldSpec *v1.PodSpec, oldMeta *metav1.ObjectMeta) PodValidationOptions {
	var opts PodValidationOptions
	if oldMeta != nil {
		opts.AllowInvalidDeletionCost = !validDeletionCost(oldMeta.Annotations)
	}
	if oldSpec == nil {
		return opts
	}
	opts.AllowIndivisibleHugePages = hasIndivisibleHugePages(oldSpec)
	opts.AllowInvalidAffinitySelectorValues = hasInvalidAffinitySelectorValues(oldSpec)
	if a := oldSpec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			for _, req := range term.MatchExpressions {
				for _, value := range req.Values {
					if len(validation.IsValidLabelValue(value)) > 0 {
						opts.AllowInvalidRequiredNodeAffinityValues = true
					}
				}
			}
		}
	}
	for _, c := range oldSpec.TopologySpreadConstraints {
		if len(metavalidation.ValidateLabelSelector(c.LabelSelector, metavalidation.LabelSelectorValidationOptions{}, nil)) > 0 {
			opts.AllowInvalidSpreadSelector = true
		}
		if len(validateMatchLabelKeys(c.MatchLabelKeys, nil, c.LabelSelector, nil)) > 0 {
			opts.LegacySpreadMatchLabelKeys = true
		}
	}
	for _, vol := range oldSpec.Volumes {
		if vol.Projected == nil {
			continue
		}
		for _, source := range vol.Projected.Sources {
			if t := source.ServiceAccountToken; t != nil && len(validateLocalNonReservedPath(t.Path, nil)) > 0 {
				opts.AllowNonLocalTokenPath = true
			}
		}
	}
	visitContainers(oldSpec, nil, func(c *v1.Container, _ *field.Path) {
		if sc := c.SecurityContext; sc != nil && sc.Capabilities != nil && (sc.AllowPrivilegeEscalation == nil || !*sc.AllowPrivilegeEscalation) {
			for _, capability := range sc.Capabilities.Add {
				if capability == "CAP_SYS_ADMIN" {
					opts.AllowSysAdminWithoutEscalation = true
				}
			}
		}
	})
	for _, vol := range oldSpec.Volumes {
		if vol.Image != nil && vol.Image.Reference == "" {
			opts.AllowEmptyImageReference = true
		}
	}
	if sc := oldSpec.SecurityContext; sc != nil {
		for _, s := range sc.Sysctls {
			if len(validateHostSysctl(s.Name, oldSpec, nil)) > 0 {
				opts.AllowHostNamespaceSysctls = true
			}
		}
	}
	return opts
}

// PodTemplateValidationOptions are the options of an update of a
// workload whose old pod template was old (nil: none).
func PodTemplateValidationOptions(old *v1.PodTemplateSpec) PodValidationOptions {
	if old == nil {
		return PodValidationOptions{}
	}
	return PodValidationOptionsFor(&old.Spec, &old.ObjectMeta)
}

// hasIndivisibleHugePages reports whether a container or the overhead
// asks for a fraction of a huge page.
func hasIndivisibleHugePages(spec *v1.PodSpec) bool {
	indivisible := func(list v1.ResourceList) bool {
		for name, q := range list {
			if isHugePageResource(name) && len(validateHugePageQuantity(name, q, nil)) > 0 {
				return true
			}
		}
		return false
	}
	found := indivisible(spec.Overhead)
	visitContainers(spec, nil, func(c *v1.Container, _ *field.Path) {
		found = found || indivisible(c.Resources.Limits) || indivisible(c.Resources.Requests)
	})
	return found
}

// hasInvalidAffinitySelectorValues reports whether a pod (anti-)affinity
// term selects by an invalid label value.
func hasInvalidAffinitySelectorValues(spec *v1.PodSpec) bool {
	a := spec.Affinity
	if a == nil {
		return false
	}
	var terms []v1.PodAffinityTerm
	if pa := a.PodAffinity; pa != nil {
		terms = append(terms, pa.RequiredDuringSchedulingIgnoredDuringExecution...)
		for _, w := range pa.PreferredDuringSchedulingIgnoredDuringExecution {
			terms = append(terms, w.PodAffinityTerm)
		}
	}
	if paa := a.PodAntiAffinity; paa != nil {
		terms = append(terms, paa.RequiredDuringSchedulingIgnoredDuringExecution...)
		for _, w := range paa.PreferredDuringSchedulingIgnoredDuringExecution {
			terms = append(terms, w.PodAffinityTerm)
		}
	}
	strict := metavalidation.LabelSelectorValidationOptions{}
	for _, t := range terms {
		if len(metavalidation.ValidateLabelSelector(t.LabelSelector, strict, nil)) > 0 || len(metavalidation.ValidateLabelSelector(t.NamespaceSelector, strict, nil)) > 0 {
			return true
		}
	}
	return false
}

package core

import (
	"fmt"
	"regexp"
	"strings"

	v1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validatePodSecurityContext validates the pod-wide security settings.
// Some of them live directly in the v1 pod spec (hostPID, hostNetwork,
// shareProcessNamespace) but are reported under securityContext, where
// kube-apiserver's internal type keeps them.
func validatePodSecurityContext(spec *v1.PodSpec, opts PodValidationOptions, specFldPath, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if spec.ShareProcessNamespace != nil && *spec.ShareProcessNamespace && spec.HostPID {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("shareProcessNamespace"), *spec.ShareProcessNamespace, "ShareProcessNamespace and HostPID cannot both be enabled"))
	}
	sc := spec.SecurityContext
	if sc == nil {
		return allErrs
	}
	if sc.FSGroup != nil {
		allErrs = append(allErrs, messagesToErrors(validation.IsValidGroupID(*sc.FSGroup), *sc.FSGroup, fldPath.Child("fsGroup"))...)
	}
	if sc.RunAsUser != nil {
		allErrs = append(allErrs, messagesToErrors(validation.IsValidUserID(*sc.RunAsUser), *sc.RunAsUser, fldPath.Child("runAsUser"))...)
	}
	if sc.RunAsGroup != nil {
		allErrs = append(allErrs, messagesToErrors(validation.IsValidGroupID(*sc.RunAsGroup), *sc.RunAsGroup, fldPath.Child("runAsGroup"))...)
	}
	for i, gid := range sc.SupplementalGroups {
		allErrs = append(allErrs, messagesToErrors(validation.IsValidGroupID(gid), gid, fldPath.Child("supplementalGroups").Index(i))...)
	}
	allErrs = append(allErrs, validateSysctls(sc.Sysctls, spec, opts.AllowHostNamespaceSysctls, fldPath.Child("sysctls"))...)
	if p := sc.FSGroupChangePolicy; p != nil && *p != v1.FSGroupChangeAlways && *p != v1.FSGroupChangeOnRootMismatch {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("fsGroupChangePolicy"), p, []v1.PodFSGroupChangePolicy{v1.FSGroupChangeAlways, v1.FSGroupChangeOnRootMismatch}))
	}
	allErrs = append(allErrs, validateSeccompProfile(sc.SeccompProfile, fldPath.Child("seccompProfile"))...)
	allErrs = append(allErrs, validateAppArmorProfile(sc.AppArmorProfile, fldPath.Child("appArmorProfile"))...)
	if p := sc.SupplementalGroupsPolicy; p != nil && *p != v1.SupplementalGroupsPolicyMerge && *p != v1.SupplementalGroupsPolicyStrict {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("supplementalGroupsPolicy"), p, []v1.SupplementalGroupsPolicy{v1.SupplementalGroupsPolicyMerge, v1.SupplementalGroupsPolicyStrict}))
	}
	if p := sc.SELinuxChangePolicy; p != nil && *p != v1.SELinuxChangePolicyMountOption && *p != v1.SELinuxChangePolicyRecursive {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("seLinuxChangePolicy"), *p, []v1.PodSELinuxChangePolicy{v1.SELinuxChangePolicyMountOption, v1.SELinuxChangePolicyRecursive}))
	}
	return allErrs
}

const (
	sysctlSegmentFmt    = "[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
	sysctlNameFmt       = "(" + sysctlSegmentFmt + "[\\./])*" + sysctlSegmentFmt
	sysctlMaxNameLength = 253
)

var sysctlNameRE = regexp.MustCompile("^" + sysctlNameFmt + "$")

// validateSysctls validates sysctl names, and refuses those of a kernel
// namespace the pod shares with its host: setting them would change the
// host (unless an update tolerates it: allowHostNamespace).
func validateSysctls(sysctls []v1.Sysctl, spec *v1.PodSpec, allowHostNamespace bool, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	seen := sets.New[string]()
	for i, s := range sysctls {
		namePath := fldPath.Index(i).Child("name")
		switch {
		case s.Name == "":
			allErrs = append(allErrs, field.Required(namePath, ""))
		case len(s.Name) > sysctlMaxNameLength || !sysctlNameRE.MatchString(s.Name):
			allErrs = append(allErrs, field.Invalid(namePath, s.Name, fmt.Sprintf("must have at most %d characters and match regex %s", sysctlMaxNameLength, sysctlNameRE)))
		case seen.Has(s.Name):
			allErrs = append(allErrs, field.Duplicate(namePath, s.Name))
		}
		if !allowHostNamespace {
			allErrs = append(allErrs, validateHostSysctl(s.Name, spec, namePath)...)
		}
		seen.Insert(s.Name)
	}
	return allErrs
}

// validateHostSysctl refuses a sysctl of a kernel namespace the pod
// shares with its host.
func validateHostSysctl(name string, spec *v1.PodSpec, namePath *field.Path) field.ErrorList {
	switch sysctlNamespace(name) {
	case "net":
		if spec.HostNetwork {
			return field.ErrorList{field.Invalid(namePath, name, "may not be specified when 'hostNetwork' is true")}
		}
	case "ipc":
		if spec.HostIPC {
			return field.ErrorList{field.Invalid(namePath, name, "may not be specified when 'hostIPC' is true")}
		}
	}
	return nil
}

// sysctlNamespace returns the kernel namespace ("net" or "ipc") a sysctl
// belongs to, or "" for node-level sysctls. Names may use '/' as separator.
func sysctlNamespace(name string) string {
	if i := strings.IndexAny(name, "./"); i >= 0 && name[i] == '/' {
		name = strings.ReplaceAll(name, "/", ".")
	}
	switch {
	case strings.HasPrefix(name, "net."):
		return "net"
	case name == "kernel.sem", strings.HasPrefix(name, "kernel.shm"), strings.HasPrefix(name, "kernel.msg"), strings.HasPrefix(name, "fs.mqueue."):
		return "ipc"
	}
	return ""
}

// validateAffinity validates node, pod and pod anti-affinity. Invalid label
// values are tolerated in preferred node affinity, which may still match
// nothing harmlessly.
func validateAffinity(affinity *v1.Affinity, opts PodValidationOptions, fldPath *field.Path) field.ErrorList {
	if affinity == nil {
		return nil
	}
	var allErrs field.ErrorList
	if na := affinity.NodeAffinity; na != nil {
		naPath := fldPath.Child("nodeAffinity")
		if na.RequiredDuringSchedulingIgnoredDuringExecution != nil {
			allErrs = append(allErrs, validateNodeSelector(na.RequiredDuringSchedulingIgnoredDuringExecution, opts.AllowInvalidRequiredNodeAffinityValues, naPath.Child("requiredDuringSchedulingIgnoredDuringExecution"))...)
		}
		for i, term := range na.PreferredDuringSchedulingIgnoredDuringExecution {
			termPath := naPath.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i)
			if term.Weight <= 0 || term.Weight > 100 {
				allErrs = append(allErrs, field.Invalid(termPath.Child("weight"), term.Weight, "must be in the range 1-100"))
			}
			allErrs = append(allErrs, validateNodeSelectorTerm(term.Preference, true, termPath.Child("preference"))...)
		}
	}
	if pa := affinity.PodAffinity; pa != nil {
		allErrs = append(allErrs, validatePodAffinityTerms(pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution, opts.AllowInvalidAffinitySelectorValues, fldPath.Child("podAffinity"))...)
	}
	if paa := affinity.PodAntiAffinity; paa != nil {
		allErrs = append(allErrs, validatePodAffinityTerms(paa.RequiredDuringSchedulingIgnoredDuringExecution, paa.PreferredDuringSchedulingIgnoredDuringExecution, opts.AllowInvalidAffinitySelectorValues, fldPath.Child("podAntiAffinity"))...)
	}
	return allErrs
}

func validateNodeSelector(sel *v1.NodeSelector, allowInvalidValues bool, fldPath *field.Path) field.ErrorList {
	termsPath := fldPath.Child("nodeSelectorTerms")
	if len(sel.NodeSelectorTerms) == 0 {
		return field.ErrorList{field.Required(termsPath, "must have at least one node selector term")}
	}
	var allErrs field.ErrorList
	for i, term := range sel.NodeSelectorTerms {
		allErrs = append(allErrs, validateNodeSelectorTerm(term, allowInvalidValues, termsPath.Index(i))...)
	}
	return allErrs
}

func validateNodeSelectorTerm(term v1.NodeSelectorTerm, allowInvalidValues bool, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, req := range term.MatchExpressions {
		allErrs = append(allErrs, validateNodeSelectorRequirement(req, allowInvalidValues, fldPath.Child("matchExpressions").Index(i))...)
	}
	for i, req := range term.MatchFields {
		allErrs = append(allErrs, validateNodeFieldSelectorRequirement(req, fldPath.Child("matchFields").Index(i))...)
	}
	return allErrs
}

func validateNodeSelectorRequirement(req v1.NodeSelectorRequirement, allowInvalidValues bool, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	valuesPath := fldPath.Child("values")
	switch req.Operator {
	case v1.NodeSelectorOpIn, v1.NodeSelectorOpNotIn:
		if len(req.Values) == 0 {
			allErrs = append(allErrs, field.Required(valuesPath, "must be specified when `operator` is 'In' or 'NotIn'"))
		}
	case v1.NodeSelectorOpExists, v1.NodeSelectorOpDoesNotExist:
		if len(req.Values) > 0 {
			allErrs = append(allErrs, field.Forbidden(valuesPath, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
		}
	case v1.NodeSelectorOpGt, v1.NodeSelectorOpLt:
		if len(req.Values) != 1 {
			allErrs = append(allErrs, field.Required(valuesPath, "must be specified single value when `operator` is 'Lt' or 'Gt'"))
		}
	default:
		allErrs = append(allErrs, field.Invalid(fldPath.Child("operator"), req.Operator, "not a valid selector operator"))
	}
	allErrs = append(allErrs, metavalidation.ValidateLabelName(req.Key, fldPath.Child("key"))...)
	if !allowInvalidValues {
		for i, value := range req.Values {
			allErrs = append(allErrs, messagesToErrors(validation.IsValidLabelValue(value), value, valuesPath.Index(i))...)
		}
	}
	return allErrs
}

// validateNodeFieldSelectorRequirement validates a node field selector,
// which can only pick nodes by name, one at a time.
func validateNodeFieldSelectorRequirement(req v1.NodeSelectorRequirement, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	switch req.Operator {
	case v1.NodeSelectorOpIn, v1.NodeSelectorOpNotIn:
		if len(req.Values) != 1 {
			allErrs = append(allErrs, field.Required(fldPath.Child("values"), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
		}
	default:
		allErrs = append(allErrs, field.Invalid(fldPath.Child("operator"), req.Operator, "not a valid selector operator"))
	}
	if req.Key != metav1.ObjectNameField {
		return append(allErrs, field.Invalid(fldPath.Child("key"), req.Key, "not a valid field selector key"))
	}
	for i, value := range req.Values {
		allErrs = append(allErrs, validateName(apivalidation.NameIsDNSSubdomain, value, fldPath.Child("values").Index(i))...)
	}
	return allErrs
}

func validatePodAffinityTerms(required []v1.PodAffinityTerm, preferred []v1.WeightedPodAffinityTerm, allowInvalidValues bool, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, term := range required {
		allErrs = append(allErrs, validatePodAffinityTerm(term, allowInvalidValues, fldPath.Child("requiredDuringSchedulingIgnoredDuringExecution").Index(i))...)
	}
	for i, term := range preferred {
		termPath := fldPath.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i)
		if term.Weight <= 0 || term.Weight > 100 {
			allErrs = append(allErrs, field.Invalid(termPath.Child("weight"), term.Weight, "must be in the range 1-100"))
		}
		allErrs = append(allErrs, validatePodAffinityTerm(term.PodAffinityTerm, allowInvalidValues, termPath.Child("podAffinityTerm"))...)
	}
	return allErrs
}

func validatePodAffinityTerm(term v1.PodAffinityTerm, allowInvalidValues bool, fldPath *field.Path) field.ErrorList {
	opts := metavalidation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: allowInvalidValues}
	allErrs := metavalidation.ValidateLabelSelector(term.LabelSelector, opts, fldPath.Child("labelSelector"))
	allErrs = append(allErrs, metavalidation.ValidateLabelSelector(term.NamespaceSelector, opts, fldPath.Child("namespaceSelector"))...)
	for _, ns := range term.Namespaces {
		allErrs = append(allErrs, validateName(apivalidation.ValidateNamespaceName, ns, fldPath.Child("namespace"))...)
	}
	allErrs = append(allErrs, validateMatchLabelKeys(term.MatchLabelKeys, term.MismatchLabelKeys, term.LabelSelector, fldPath)...)
	if term.TopologyKey == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("topologyKey"), "can not be empty"))
	}
	return append(allErrs, metavalidation.ValidateLabelName(term.TopologyKey, fldPath.Child("topologyKey"))...)
}

// validateMatchLabelKeys validates the label keys whose values a pod
// affinity term copies from the incoming pod: valid label names, not also
// in the selector, and not in both lists.
func validateMatchLabelKeys(matchKeys, mismatchKeys []string, selector *metav1.LabelSelector, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for _, keys := range []struct {
		name string
		list []string
	}{{"matchLabelKeys", matchKeys}, {"mismatchLabelKeys", mismatchKeys}} {
		if len(keys.list) == 0 {
			continue
		}
		keysPath := fldPath.Child(keys.name)
		if selector == nil {
			allErrs = append(allErrs, field.Forbidden(keysPath, "must not be specified when labelSelector is not set"))
			continue
		}
		for i, key := range keys.list {
			allErrs = append(allErrs, metavalidation.ValidateLabelName(key, keysPath.Index(i))...)
		}
	}
	if selector != nil {
		// matchLabelKeys are merged into the selector as expressions when
		// the pod is created; a key found both as a label and as an
		// expression was given twice.
		index := make(map[string]int, len(matchKeys))
		for i, key := range matchKeys {
			index[key] = i
		}
		inSelector := sets.New[string]()
		for key := range selector.MatchLabels {
			inSelector.Insert(key)
		}
		for _, expr := range selector.MatchExpressions {
			if i, ok := index[expr.Key]; ok && inSelector.Has(expr.Key) {
				allErrs = append(allErrs, field.Invalid(fldPath.Index(i), expr.Key, "exists in both matchLabelKeys and labelSelector"))
			}
			inSelector.Insert(expr.Key)
		}
	}
	mismatch := sets.New(mismatchKeys...)
	for i, key := range matchKeys {
		if mismatch.Has(key) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("matchLabelKeys").Index(i), key, "exists in both matchLabelKeys and mismatchLabelKeys"))
		}
	}
	return allErrs
}

var taintEffects = []v1.TaintEffect{v1.TaintEffectNoSchedule, v1.TaintEffectPreferNoSchedule, v1.TaintEffectNoExecute}

func validateTaintEffect(effect v1.TaintEffect, allowEmpty bool, fldPath *field.Path) field.ErrorList {
	switch {
	case effect == "" && !allowEmpty:
		return field.ErrorList{field.Required(fldPath, "")}
	case effect == "", sets.New(taintEffects...).Has(effect):
		return nil
	}
	return field.ErrorList{field.NotSupported(fldPath, effect, taintEffects)}
}

// validateTolerations validates pod tolerations. An empty key with the
// Exists operator tolerates every taint.
func validateTolerations(tolerations []v1.Toleration, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, t := range tolerations {
		idxPath := fldPath.Index(i)
		if t.Key != "" {
			allErrs = append(allErrs, metavalidation.ValidateLabelName(t.Key, idxPath.Child("key"))...)
		}
		if t.Key == "" && t.Operator != v1.TolerationOpExists {
			allErrs = append(allErrs, field.Invalid(idxPath.Child("operator"), t.Operator, "operator must be Exists when `key` is empty, which means \"match all values and all keys\""))
		}
		if t.TolerationSeconds != nil && t.Effect != v1.TaintEffectNoExecute {
			allErrs = append(allErrs, field.Invalid(idxPath.Child("effect"), t.Effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
		}
		switch t.Operator {
		case v1.TolerationOpEqual, "":
			if msgs := validation.IsValidLabelValue(t.Value); len(msgs) > 0 {
				allErrs = append(allErrs, field.Invalid(idxPath.Child("operator"), t.Value, strings.Join(msgs, ";")))
			}
		case v1.TolerationOpExists:
			if t.Value != "" {
				allErrs = append(allErrs, field.Invalid(idxPath.Child("operator"), t.Value, "value must be empty when `operator` is 'Exists'"))
			}
		default:
			allErrs = append(allErrs, field.NotSupported(idxPath.Child("operator"), t.Operator, []v1.TolerationOperator{v1.TolerationOpEqual, v1.TolerationOpExists}))
		}
		if t.Effect != "" {
			allErrs = append(allErrs, validateTaintEffect(t.Effect, true, idxPath.Child("effect"))...)
		}
	}
	return allErrs
}

// Limits of the resolver configuration, from Linux libc.
const (
	maxDNSNameservers     = 3
	maxDNSSearchPaths     = 32
	maxDNSSearchListChars = 2048
)

func validatePodDNSConfig(cfg *v1.PodDNSConfig, policy v1.DNSPolicy, fldPath *field.Path) field.ErrorList {
	if policy == v1.DNSNone {
		if cfg == nil {
			return field.ErrorList{field.Required(fldPath, fmt.Sprintf("must provide `dnsConfig` when `dnsPolicy` is %s", v1.DNSNone))}
		}
		if len(cfg.Nameservers) == 0 {
			return field.ErrorList{field.Required(fldPath.Child("nameservers"), fmt.Sprintf("must provide at least one DNS nameserver when `dnsPolicy` is %s", v1.DNSNone))}
		}
	}
	if cfg == nil {
		return nil
	}
	var allErrs field.ErrorList
	if len(cfg.Nameservers) > maxDNSNameservers {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("nameservers"), cfg.Nameservers, fmt.Sprintf("must not have more than %v nameservers", maxDNSNameservers)))
	}
	for i, ns := range cfg.Nameservers {
		allErrs = append(allErrs, validateLegacyIP(fldPath.Child("nameservers").Index(i), ns, nil)...)
	}
	if len(cfg.Searches) > maxDNSSearchPaths {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("searches"), cfg.Searches, fmt.Sprintf("must not have more than %v search paths", maxDNSSearchPaths)))
	}
	if len(strings.Join(cfg.Searches, " ")) > maxDNSSearchListChars {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("searches"), cfg.Searches, fmt.Sprintf("must not have more than %v characters (including spaces) in the search list", maxDNSSearchListChars)))
	}
	for i, search := range cfg.Searches {
		// "." alone means "no search"; underscores are allowed for SRV
		// style names.
		if search != "." {
			search = strings.TrimSuffix(search, ".")
			allErrs = append(allErrs, messagesToErrors(validation.IsDNS1123SubdomainWithUnderscore(search), search, fldPath.Child("searches").Index(i))...)
		}
	}
	for i, option := range cfg.Options {
		if option.Name == "" {
			allErrs = append(allErrs, field.Required(fldPath.Child("options").Index(i), "must not be empty"))
		}
	}
	return allErrs
}

func validateHostAliases(aliases []v1.HostAlias, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, alias := range aliases {
		allErrs = append(allErrs, validateLegacyIP(fldPath.Index(i).Child("ip"), alias.IP, nil)...)
		for j, hostname := range alias.Hostnames {
			allErrs = append(allErrs, validateDNS1123Subdomain(hostname, fldPath.Index(i).Child("hostnames").Index(j))...)
		}
	}
	return allErrs
}

var (
	whenUnsatisfiableActions = []v1.UnsatisfiableConstraintAction{v1.DoNotSchedule, v1.ScheduleAnyway}
	nodeInclusionPolicies    = []v1.NodeInclusionPolicy{v1.NodeInclusionPolicyHonor, v1.NodeInclusionPolicyIgnore}
)

func validateTopologySpreadConstraints(constraints []v1.TopologySpreadConstraint, opts PodValidationOptions, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, c := range constraints {
		idxPath := fldPath.Index(i)
		if c.MaxSkew <= 0 {
			allErrs = append(allErrs, field.Invalid(idxPath.Child("maxSkew"), c.MaxSkew, "must be greater than zero"))
		}
		if c.TopologyKey == "" {
			allErrs = append(allErrs, field.Required(idxPath.Child("topologyKey"), "can not be empty"))
		}
		if !sets.New(whenUnsatisfiableActions...).Has(c.WhenUnsatisfiable) {
			allErrs = append(allErrs, field.NotSupported(idxPath.Child("whenUnsatisfiable"), c.WhenUnsatisfiable, whenUnsatisfiableActions))
		}
		// {topologyKey, whenUnsatisfiable} identifies a constraint.
		for _, later := range constraints[i+1:] {
			if later.TopologyKey == c.TopologyKey && later.WhenUnsatisfiable == c.WhenUnsatisfiable {
				allErrs = append(allErrs, field.Duplicate(idxPath.Child("{topologyKey, whenUnsatisfiable}"), fmt.Sprintf("{%v, %v}", c.TopologyKey, c.WhenUnsatisfiable)))
				break
			}
		}
		if c.MinDomains != nil {
			if *c.MinDomains <= 0 {
				allErrs = append(allErrs, field.Invalid(idxPath.Child("minDomains"), c.MinDomains, "must be greater than zero"))
			}
			if c.WhenUnsatisfiable != v1.DoNotSchedule {
				allErrs = append(allErrs, field.Invalid(idxPath.Child("minDomains"), c.MinDomains, fmt.Sprintf("can only use minDomains if whenUnsatisfiable=%s, not %s", v1.DoNotSchedule, c.WhenUnsatisfiable)))
			}
		}
		for _, policy := range []struct {
			name  string
			value *v1.NodeInclusionPolicy
		}{{"nodeAffinityPolicy", c.NodeAffinityPolicy}, {"nodeTaintsPolicy", c.NodeTaintsPolicy}} {
			if policy.value != nil && !sets.New(nodeInclusionPolicies...).Has(*policy.value) {
				allErrs = append(allErrs, field.NotSupported(idxPath.Child(policy.name), policy.value, nodeInclusionPolicies))
			}
		}
		// matchLabelKeys are merged into the selector on create, so they
		// are checked as an affinity term's are; a pod that passed only
		// the older rule (no key in the selector at all) keeps it.
		if opts.LegacySpreadMatchLabelKeys {
			allErrs = append(allErrs, validateSpreadMatchLabelKeys(c.MatchLabelKeys, c.LabelSelector, idxPath.Child("matchLabelKeys"))...)
		} else {
			allErrs = append(allErrs, validateMatchLabelKeys(c.MatchLabelKeys, nil, c.LabelSelector, idxPath)...)
		}
		if !opts.AllowInvalidSpreadSelector {
			allErrs = append(allErrs, metavalidation.ValidateLabelSelector(c.LabelSelector, metavalidation.LabelSelectorValidationOptions{}, idxPath.Child("labelSelector"))...)
		}
	}
	return allErrs
}

func validateSpreadMatchLabelKeys(keys []string, selector *metav1.LabelSelector, fldPath *field.Path) field.ErrorList {
	if len(keys) == 0 {
		return nil
	}
	var allErrs field.ErrorList
	inSelector := sets.New[string]()
	if selector == nil {
		allErrs = append(allErrs, field.Forbidden(fldPath, "must not be specified when labelSelector is not set"))
	} else {
		for key := range selector.MatchLabels {
			inSelector.Insert(key)
		}
		for _, expr := range selector.MatchExpressions {
			inSelector.Insert(expr.Key)
		}
	}
	for i, key := range keys {
		allErrs = append(allErrs, metavalidation.ValidateLabelName(key, fldPath.Index(i))...)
		if inSelector.Has(key) {
			allErrs = append(allErrs, field.Invalid(fldPath.Index(i), key, "exists in both matchLabelKeys and labelSelector"))
		}
	}
	return allErrs
}

var podOSNames = []v1.OSName{v1.Linux, v1.Windows}

// validatePodOS validates spec.os and, when it is set, forbids the security
// settings the other operating system does not have.
func validatePodOS(spec *v1.PodSpec, fldPath *field.Path) field.ErrorList {
	if spec.OS == nil {
		return nil
	}
	osPath := fldPath.Child("os")
	switch spec.OS.Name {
	case "":
		return field.ErrorList{field.Required(osPath.Child("name"), "cannot be empty")}
	case v1.Linux:
		return validateLinuxOnly(spec, fldPath)
	case v1.Windows:
		return validateWindowsOnly(spec, fldPath)
	}
	return field.ErrorList{field.NotSupported(osPath, spec.OS.Name, podOSNames)}
}

func validateLinuxOnly(spec *v1.PodSpec, fldPath *field.Path) field.ErrorList {
	const detail = "windows options cannot be set for a linux pod"
	var allErrs field.ErrorList
	if spec.SecurityContext != nil && spec.SecurityContext.WindowsOptions != nil {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("securityContext", "windowsOptions"), detail))
	}
	visitContainers(spec, fldPath, func(c *v1.Container, cPath *field.Path) {
		if c.SecurityContext != nil && c.SecurityContext.WindowsOptions != nil {
			allErrs = append(allErrs, field.Forbidden(cPath.Child("securityContext", "windowsOptions"), detail))
		}
	})
	return allErrs
}

// setField names a field of a security context and says whether it is set.
type setField struct {
	path *field.Path
	set  bool
}

func validateWindowsOnly(spec *v1.PodSpec, fldPath *field.Path) field.ErrorList {
	const detail = "cannot be set for a windows pod"
	var allErrs field.ErrorList
	forbid := func(fields []setField) {
		for _, f := range fields {
			if f.set {
				allErrs = append(allErrs, field.Forbidden(f.path, detail))
			}
		}
	}
	scPath := fldPath.Child("securityContext")
	sc := spec.SecurityContext
	if sc == nil {
		sc = &v1.PodSecurityContext{}
	}
	forbid([]setField{
		{scPath.Child("appArmorProfile"), sc.AppArmorProfile != nil},
		{scPath.Child("seLinuxOptions"), sc.SELinuxOptions != nil},
		{fldPath.Child("hostUsers"), spec.HostUsers != nil},
		{fldPath.Child("hostPID"), spec.HostPID},
		{fldPath.Child("hostIPC"), spec.HostIPC},
		{scPath.Child("seccompProfile"), sc.SeccompProfile != nil},
		{scPath.Child("fsGroup"), sc.FSGroup != nil},
		{scPath.Child("fsGroupChangePolicy"), sc.FSGroupChangePolicy != nil},
		{scPath.Child("sysctls"), len(sc.Sysctls) > 0},
		{fldPath.Child("shareProcessNamespace"), spec.ShareProcessNamespace != nil},
		{scPath.Child("runAsUser"), sc.RunAsUser != nil},
		{scPath.Child("runAsGroup"), sc.RunAsGroup != nil},
		{scPath.Child("supplementalGroups"), sc.SupplementalGroups != nil},
		{scPath.Child("supplementalGroupsPolicy"), sc.SupplementalGroupsPolicy != nil},
		{scPath.Child("seLinuxChangePolicy"), sc.SELinuxChangePolicy != nil},
	})
	visitContainers(spec, fldPath, func(c *v1.Container, cPath *field.Path) {
		sc := c.SecurityContext
		if sc == nil {
			return
		}
		p := cPath.Child("securityContext")
		forbid([]setField{
			{p.Child("appArmorProfile"), sc.AppArmorProfile != nil},
			{p.Child("seLinuxOptions"), sc.SELinuxOptions != nil},
			{p.Child("seccompProfile"), sc.SeccompProfile != nil},
			{p.Child("capabilities"), sc.Capabilities != nil},
			{p.Child("readOnlyRootFilesystem"), sc.ReadOnlyRootFilesystem != nil},
			{p.Child("privileged"), sc.Privileged != nil},
			{p.Child("allowPrivilegeEscalation"), sc.AllowPrivilegeEscalation != nil},
			{p.Child("procMount"), sc.ProcMount != nil},
			{p.Child("runAsUser"), sc.RunAsUser != nil},
			{p.Child("runAsGroup"), sc.RunAsGroup != nil},
		})
	})
	return allErrs
}

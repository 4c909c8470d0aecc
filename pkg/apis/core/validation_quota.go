package core

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// standardQuotaScopes are the scopes a quota may name.
var standardQuotaScopes = sets.New(
	v1.ResourceQuotaScopeTerminating, v1.ResourceQuotaScopeNotTerminating,
	v1.ResourceQuotaScopeBestEffort, v1.ResourceQuotaScopeNotBestEffort,
	v1.ResourceQuotaScopePriorityClass, v1.ResourceQuotaScopeCrossNamespacePodAffinity,
	v1.ResourceQuotaScopeVolumeAttributesClass,
)

// podComputeQuotaResources are the resources a scope on pods may limit,
// besides the count of pods.
var podComputeQuotaResources = sets.New[v1.ResourceName](
	v1.ResourceCPU, v1.ResourceMemory, v1.ResourceLimitsCPU, v1.ResourceLimitsMemory,
	v1.ResourceRequestsCPU, v1.ResourceRequestsMemory,
)

// quotaScopeAllows reports whether a quota with the scope may limit the
// resource: scopes that select pods limit pods and their compute
// resources (best-effort pods have none, so only their count), the
// volume attributes class scope limits claims.
func quotaScopeAllows(scope v1.ResourceQuotaScope, name v1.ResourceName) bool {
	switch scope {
	case v1.ResourceQuotaScopeTerminating, v1.ResourceQuotaScopeNotTerminating, v1.ResourceQuotaScopeNotBestEffort,
		v1.ResourceQuotaScopePriorityClass, v1.ResourceQuotaScopeCrossNamespacePodAffinity:
		return name == v1.ResourcePods || podComputeQuotaResources.Has(name)
	case v1.ResourceQuotaScopeBestEffort:
		return name == v1.ResourcePods
	case v1.ResourceQuotaScopeVolumeAttributesClass:
		return name == v1.ResourcePersistentVolumeClaims || name == v1.ResourceRequestsStorage
	}
	return true
}

// isStandardQuotaResource reports whether an unprefixed resource may be
// limited by a quota: the standard resources, except storage itself.
func isStandardQuotaResource(name v1.ResourceName) bool {
	return name != v1.ResourceStorage && isStandardResource(name)
}

// validateQuotaResourceName validates a resource named in a quota.
func validateQuotaResourceName(name v1.ResourceName, fldPath *field.Path) field.ErrorList {
	allErrs := validateResourceName(name, fldPath)
	if !strings.Contains(string(name), "/") && !isStandardQuotaResource(name) {
		allErrs = append(allErrs, field.Invalid(fldPath, name, "must be a standard resource for quota"))
	}
	return allErrs
}

func validateQuotaList(list v1.ResourceList, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for _, name := range sortedKeys(list) {
		resPath := fldPath.Key(string(name))
		allErrs = append(allErrs, validateQuotaResourceName(name, resPath)...)
		allErrs = append(allErrs, validateResourceQuantity(name, list[name], resPath)...)
	}
	return allErrs
}

// ValidateResourceQuota validates a quota on create.
func ValidateResourceQuota(q *v1.ResourceQuota) field.ErrorList {
	allErrs := ValidateObjectMeta(&q.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, metadataPath)
	allErrs = append(allErrs, validateResourceQuotaSpec(&q.Spec, specPath)...)
	allErrs = append(allErrs, validateQuotaList(q.Status.Hard, statusPath.Child("hard"))...)
	return append(allErrs, validateQuotaList(q.Status.Used, statusPath.Child("used"))...)
}

func validateResourceQuotaSpec(spec *v1.ResourceQuotaSpec, fldPath *field.Path) field.ErrorList {
	allErrs := validateQuotaList(spec.Hard, fldPath.Child("hard"))
	allErrs = append(allErrs, validateQuotaScopes(spec, fldPath)...)
	if spec.ScopeSelector != nil {
		allErrs = append(allErrs, validateQuotaScopeSelector(spec, fldPath.Child("scopeSelector"))...)
	}
	return allErrs
}

// conflictingScopes are the pairs of scopes no pod can be in at once.
var conflictingScopes = [][2]v1.ResourceQuotaScope{
	{v1.ResourceQuotaScopeBestEffort, v1.ResourceQuotaScopeNotBestEffort},
	{v1.ResourceQuotaScopeTerminating, v1.ResourceQuotaScopeNotTerminating},
}

func validateQuotaScopes(spec *v1.ResourceQuotaSpec, fldPath *field.Path) field.ErrorList {
	if len(spec.Scopes) == 0 {
		return nil
	}
	var allErrs field.ErrorList
	scopesPath := fldPath.Child("scopes")
	hard := sortedKeys(spec.Hard)
	seen := sets.New[v1.ResourceQuotaScope]()
	for _, scope := range spec.Scopes {
		if !standardQuotaScopes.Has(scope) {
			allErrs = append(allErrs, field.Invalid(scopesPath, spec.Scopes, "unsupported scope"))
		}
		for _, name := range hard {
			if isStandardQuotaResource(name) && !quotaScopeAllows(scope, name) {
				allErrs = append(allErrs, field.Invalid(scopesPath, spec.Scopes, "unsupported scope applied to resource"))
			}
		}
		seen.Insert(scope)
	}
	for _, pair := range conflictingScopes {
		if seen.Has(pair[0]) && seen.Has(pair[1]) {
			allErrs = append(allErrs, field.Invalid(scopesPath, spec.Scopes, "conflicting scopes"))
		}
	}
	return allErrs
}

func validateQuotaScopeSelector(spec *v1.ResourceQuotaSpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	exprPath := fldPath.Child("matchExpressions")
	hard := sortedKeys(spec.Hard)
	seen := sets.New[v1.ResourceQuotaScope]()
	for _, req := range spec.ScopeSelector.MatchExpressions {
		if !standardQuotaScopes.Has(req.ScopeName) {
			allErrs = append(allErrs, field.Invalid(exprPath.Child("scopeName"), req.ScopeName, "unsupported scope"))
		}
		for _, name := range hard {
			if isStandardQuotaResource(name) && !quotaScopeAllows(req.ScopeName, name) {
				allErrs = append(allErrs, field.Invalid(exprPath, internalJSON(spec.ScopeSelector), "unsupported scope applied to resource"))
			}
		}
		switch req.ScopeName {
		case v1.ResourceQuotaScopeBestEffort, v1.ResourceQuotaScopeNotBestEffort, v1.ResourceQuotaScopeTerminating,
			v1.ResourceQuotaScopeNotTerminating, v1.ResourceQuotaScopeCrossNamespacePodAffinity:
			if req.Operator != v1.ScopeSelectorOpExists {
				allErrs = append(allErrs, field.Invalid(exprPath.Child("operator"), req.Operator,
					"must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity"))
			}
		}
		switch req.Operator {
		case v1.ScopeSelectorOpIn, v1.ScopeSelectorOpNotIn:
			if len(req.Values) == 0 {
				allErrs = append(allErrs, field.Required(exprPath.Child("values"), "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"))
			}
		case v1.ScopeSelectorOpExists, v1.ScopeSelectorOpDoesNotExist:
			if len(req.Values) != 0 {
				allErrs = append(allErrs, field.Invalid(exprPath.Child("values"), req.Values, "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"))
			}
		default:
			allErrs = append(allErrs, field.Invalid(exprPath.Child("operator"), req.Operator, "not a valid selector operator"))
		}
		seen.Insert(req.ScopeName)
	}
	for _, pair := range conflictingScopes {
		if seen.Has(pair[0]) && seen.Has(pair[1]) {
			allErrs = append(allErrs, field.Invalid(exprPath, spec.Scopes, "conflicting scopes"))
		}
	}
	return allErrs
}

// ValidateResourceQuotaUpdate validates a quota's update: its scopes never
// change.
func ValidateResourceQuotaUpdate(q, old *v1.ResourceQuota) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&q.ObjectMeta, &old.ObjectMeta, metadataPath)
	allErrs = append(allErrs, validateResourceQuotaSpec(&q.Spec, specPath)...)
	if !sets.New(q.Spec.Scopes...).Equal(sets.New(old.Spec.Scopes...)) {
		allErrs = append(allErrs, field.Invalid(specPath.Child("scopes"), q.Spec.Scopes, apivalidation.FieldImmutableErrorMsg))
	}
	return allErrs
}

// ValidateResourceQuotaStatusUpdate validates a write of /status.
func ValidateResourceQuotaStatusUpdate(q, old *v1.ResourceQuota) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&q.ObjectMeta, &old.ObjectMeta, metadataPath)
	if q.ResourceVersion == "" {
		allErrs = append(allErrs, field.Required(field.NewPath("resourceVersion"), ""))
	}
	allErrs = append(allErrs, validateQuotaList(q.Status.Hard, statusPath.Child("hard"))...)
	return append(allErrs, validateQuotaList(q.Status.Used, statusPath.Child("used"))...)
}

// standardLimitTypes are the kinds of object a limit range item applies to.
var standardLimitTypes = sets.New(v1.LimitTypePod, v1.LimitTypeContainer, v1.LimitTypePersistentVolumeClaim)

func validateLimitTypeName(t v1.LimitType, fldPath *field.Path) field.ErrorList {
	allErrs := validateQualifiedName(string(t), fldPath)
	if len(allErrs) == 0 && !strings.Contains(string(t), "/") && !standardLimitTypes.Has(t) {
		allErrs = append(allErrs, field.Invalid(fldPath, t, "must be a standard limit type or fully qualified"))
	}
	return allErrs
}

// validateLimitResourceName validates a resource of a limit range item:
// pods and containers name container resources, other types any.
func validateLimitResourceName(t v1.LimitType, name v1.ResourceName, fldPath *field.Path) field.ErrorList {
	if t == v1.LimitTypePod || t == v1.LimitTypeContainer {
		return validateContainerResourceName(name, fldPath)
	}
	return validateResourceName(name, fldPath)
}

// ValidateLimitRange validates a limit range: known limit types, each at
// most once, and for each resource min <= defaultRequest <= default <= max
// with a max/request ratio of at least 1 that min and max allow.
func ValidateLimitRange(lr *v1.LimitRange) field.ErrorList {
	allErrs := ValidateObjectMeta(&lr.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, metadataPath)
	limitsPath := specPath.Child("limits")
	types := sets.New[v1.LimitType]()
	for i := range lr.Spec.Limits {
		idxPath := limitsPath.Index(i)
		item := &lr.Spec.Limits[i]
		allErrs = append(allErrs, validateLimitTypeName(item.Type, idxPath.Child("type"))...)
		if types.Has(item.Type) {
			allErrs = append(allErrs, field.Duplicate(idxPath.Child("type"), item.Type))
		}
		types.Insert(item.Type)

		keys := sets.New[v1.ResourceName]()
		checkNames := func(list v1.ResourceList, name string) {
			for _, k := range sortedKeys(list) {
				allErrs = append(allErrs, validateLimitResourceName(item.Type, k, idxPath.Child(name).Key(string(k)))...)
				keys.Insert(k)
			}
		}
		checkNames(item.Max, "max")
		checkNames(item.Min, "min")
		if item.Type == v1.LimitTypePod {
			if len(item.Default) > 0 {
				allErrs = append(allErrs, field.Forbidden(idxPath.Child("default"), "may not be specified when `type` is 'Pod'"))
			}
			if len(item.DefaultRequest) > 0 {
				allErrs = append(allErrs, field.Forbidden(idxPath.Child("defaultRequest"), "may not be specified when `type` is 'Pod'"))
			}
		} else {
			checkNames(item.Default, "default")
			checkNames(item.DefaultRequest, "defaultRequest")
		}
		if item.Type == v1.LimitTypePersistentVolumeClaim {
			_, hasMin := item.Min[v1.ResourceStorage]
			_, hasMax := item.Max[v1.ResourceStorage]
			if !hasMin && !hasMax {
				allErrs = append(allErrs, field.Required(idxPath.Child("limits"), "either minimum or maximum storage value is required, but neither was provided"))
			}
		}
		checkNames(item.MaxLimitRequestRatio, "maxLimitRequestRatio")

		defaults, defaultRequests := item.Default, item.DefaultRequest
		if item.Type == v1.LimitTypePod {
			defaults, defaultRequests = nil, nil
		}
		for _, k := range sets.List(keys) {
			allErrs = append(allErrs, validateLimitOrder(k, item, defaults, defaultRequests, idxPath)...)
		}
	}
	return allErrs
}

// validateLimitOrder checks the quantities of one resource of a limit
// range item against each other.
func validateLimitOrder(k v1.ResourceName, item *v1.LimitRangeItem, defaults, defaultRequests v1.ResourceList, idxPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	minQ, hasMin := item.Min[k]
	maxQ, hasMax := item.Max[k]
	def, hasDefault := defaults[k]
	defReq, hasDefReq := defaultRequests[k]
	ratio, hasRatio := item.MaxLimitRequestRatio[k]
	key := string(k)
	if hasMin && hasMax && minQ.Cmp(maxQ) > 0 {
		allErrs = append(allErrs, field.Invalid(idxPath.Child("min").Key(key), minQ, fmt.Sprintf("min value %s is greater than max value %s", minQ.String(), maxQ.String())))
	}
	if hasDefReq && hasMin && minQ.Cmp(defReq) > 0 {
		allErrs = append(allErrs, field.Invalid(idxPath.Child("defaultRequest").Key(key), defReq, fmt.Sprintf("min value %s is greater than default request value %s", minQ.String(), defReq.String())))
	}
	if hasDefReq && hasMax && defReq.Cmp(maxQ) > 0 {
		allErrs = append(allErrs, field.Invalid(idxPath.Child("defaultRequest").Key(key), defReq, fmt.Sprintf("default request value %s is greater than max value %s", defReq.String(), maxQ.String())))
	}
	if hasDefReq && hasDefault && defReq.Cmp(def) > 0 {
		allErrs = append(allErrs, field.Invalid(idxPath.Child("defaultRequest").Key(key), defReq, fmt.Sprintf("default request value %s is greater than default limit value %s", defReq.String(), def.String())))
	}
	if hasDefault && hasMin && minQ.Cmp(def) > 0 {
		allErrs = append(allErrs, field.Invalid(idxPath.Child("default").Key(key), minQ, fmt.Sprintf("min value %s is greater than default value %s", minQ.String(), def.String())))
	}
	if hasDefault && hasMax && def.Cmp(maxQ) > 0 {
		allErrs = append(allErrs, field.Invalid(idxPath.Child("default").Key(key), maxQ, fmt.Sprintf("default value %s is greater than max value %s", def.String(), maxQ.String())))
	}
	if hasRatio && ratio.Cmp(*resource.NewQuantity(1, resource.DecimalSI)) < 0 {
		allErrs = append(allErrs, field.Invalid(idxPath.Child("maxLimitRequestRatio").Key(key), ratio, fmt.Sprintf("ratio %s is less than 1", ratio.String())))
	}
	if hasRatio && hasMin && hasMax {
		ratioValue := float64(ratio.Value())
		minValue, maxValue := minQ.Value(), maxQ.Value()
		if ratio.Value() < resource.MaxMilliValue && minValue < resource.MaxMilliValue && maxValue < resource.MaxMilliValue {
			ratioValue = float64(ratio.MilliValue()) / 1000
			minValue, maxValue = minQ.MilliValue(), maxQ.MilliValue()
		}
		if limit := float64(maxValue) / float64(minValue); ratioValue > limit {
			allErrs = append(allErrs, field.Invalid(idxPath.Child("maxLimitRequestRatio").Key(key), ratio, fmt.Sprintf("ratio %s is greater than max/min = %f", ratio.String(), limit)))
		}
	}
	if !isOvercommitAllowed(k) && hasDefault && hasDefReq && def.Cmp(defReq) != 0 {
		allErrs = append(allErrs, field.Invalid(idxPath.Child("defaultRequest").Key(key), defReq, fmt.Sprintf("default value %s must equal to defaultRequest value %s in %s", def.String(), defReq.String(), k)))
	}
	return allErrs
}

// ValidateLimitRangeUpdate validates an update: the same rules as on
// create.
func ValidateLimitRangeUpdate(lr, old *v1.LimitRange) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&lr.ObjectMeta, &old.ObjectMeta, metadataPath)
	return append(allErrs, ValidateLimitRange(lr)...)
}

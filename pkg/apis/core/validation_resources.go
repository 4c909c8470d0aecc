package core

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// standardResources are the resource names that need no domain prefix.
var standardResources = sets.New[v1.ResourceName](
	v1.ResourceCPU, v1.ResourceMemory, v1.ResourceEphemeralStorage,
	v1.ResourceRequestsCPU, v1.ResourceRequestsMemory, v1.ResourceRequestsEphemeralStorage,
	v1.ResourceLimitsCPU, v1.ResourceLimitsMemory, v1.ResourceLimitsEphemeralStorage,
	v1.ResourcePods, v1.ResourceQuotas, v1.ResourceServices, v1.ResourceReplicationControllers,
	v1.ResourceSecrets, v1.ResourcePersistentVolumeClaims, v1.ResourceConfigMaps,
	v1.ResourceStorage, v1.ResourceRequestsStorage,
	v1.ResourceServicesNodePorts, v1.ResourceServicesLoadBalancers,
)

// standardContainerResources are the unprefixed resources a container may
// request, besides huge pages.
var standardContainerResources = sets.New[v1.ResourceName](v1.ResourceCPU, v1.ResourceMemory, v1.ResourceEphemeralStorage)

// integerResources are counted in whole units.
var integerResources = sets.New[v1.ResourceName](
	v1.ResourcePods, v1.ResourceQuotas, v1.ResourceServices, v1.ResourceReplicationControllers,
	v1.ResourceSecrets, v1.ResourceConfigMaps, v1.ResourcePersistentVolumeClaims,
	v1.ResourceServicesNodePorts, v1.ResourceServicesLoadBalancers,
)

func isHugePageResource(name v1.ResourceName) bool {
	return strings.HasPrefix(string(name), v1.ResourceHugePagesPrefix)
}

// isNativeResource reports whether the resource is defined by Kubernetes:
// unprefixed, or in the kubernetes.io domain.
func isNativeResource(name v1.ResourceName) bool {
	return !strings.Contains(string(name), "/") || strings.Contains(string(name), "kubernetes.io/")
}

// isExtendedResource reports whether the name is a valid extended resource
// (a device plugin's, say): prefixed with a foreign domain and usable in a
// quota as "requests.<name>".
func isExtendedResource(name v1.ResourceName) bool {
	if isNativeResource(name) || strings.HasPrefix(string(name), "requests.") {
		return false
	}
	return len(validation.IsQualifiedName("requests."+string(name))) == 0
}

// isOvercommitAllowed reports whether requests of the resource may be lower
// than its limit; extended resources and huge pages cannot be overcommitted.
func isOvercommitAllowed(name v1.ResourceName) bool {
	return isNativeResource(name) && !isHugePageResource(name)
}

func isStandardResource(name v1.ResourceName) bool {
	return standardResources.Has(name) || isHugePageResource(name) || strings.HasPrefix(string(name), "requests."+v1.ResourceHugePagesPrefix)
}

// validateResourceName validates a resource name in any resource list.
func validateResourceName(name v1.ResourceName, fldPath *field.Path) field.ErrorList {
	allErrs := validateQualifiedName(string(name), fldPath)
	if len(allErrs) == 0 && !strings.Contains(string(name), "/") && !isStandardResource(name) {
		allErrs = append(allErrs, field.Invalid(fldPath, name, "must be a standard resource type or fully qualified"))
	}
	return allErrs
}

// validateContainerResourceName validates a resource name a container
// requests or is limited to.
func validateContainerResourceName(name v1.ResourceName, fldPath *field.Path) field.ErrorList {
	allErrs := validateResourceName(name, fldPath)
	switch {
	case !strings.Contains(string(name), "/"):
		if !standardContainerResources.Has(name) && !isHugePageResource(name) {
			allErrs = append(allErrs, field.Invalid(fldPath, name, "must be a standard resource for containers"))
		}
	case !isNativeResource(name) && !isExtendedResource(name):
		allErrs = append(allErrs, field.Invalid(fldPath, name, "doesn't follow extended resource name standard"))
	}
	return allErrs
}

// validateResourceQuantity checks that a quantity is non-negative, and
// whole for resources counted in units.
func validateResourceQuantity(name v1.ResourceName, q resource.Quantity, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if q.Sign() < 0 {
		allErrs = append(allErrs, field.Invalid(fldPath, q.String(), apivalidation.IsNegativeErrorMsg))
	}
	if (integerResources.Has(name) || isExtendedResource(name)) && q.MilliValue()%1000 != 0 {
		allErrs = append(allErrs, field.Invalid(fldPath, q, "must be an integer"))
	}
	return allErrs
}

// validateHugePageQuantity requires a whole number of pages.
func validateHugePageQuantity(name v1.ResourceName, q resource.Quantity, fldPath *field.Path) field.ErrorList {
	pageSize, err := resource.ParseQuantity(strings.TrimPrefix(string(name), v1.ResourceHugePagesPrefix))
	if err != nil || pageSize.Sign() <= 0 || q.Value()%pageSize.Value() != 0 {
		return field.ErrorList{field.Invalid(fldPath, q.String(), fmt.Sprintf("%s is not positive integer multiple of %s", q.String(), name))}
	}
	return nil
}

// validateResourceRequirements validates the resources of a container:
// names and quantities, requests no greater than limits (equal for
// resources that cannot be overcommitted), and huge pages only together
// with cpu or memory.
// An update of a pod that already had a fraction of a huge page tolerates
// them (allowIndivisibleHugePages).
func validateResourceRequirements(r *v1.ResourceRequirements, podClaims sets.Set[string], allowIndivisibleHugePages bool, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	limPath, reqPath := fldPath.Child("limits"), fldPath.Child("requests")
	cpuOrMemory, hugePages := false, false
	for _, resName := range sortedKeys(r.Limits) {
		q, path := r.Limits[resName], limPath.Key(string(resName))
		allErrs = append(allErrs, validateContainerResourceName(resName, path)...)
		allErrs = append(allErrs, validateResourceQuantity(resName, q, path)...)
		if isHugePageResource(resName) {
			hugePages = true
			if !allowIndivisibleHugePages {
				allErrs = append(allErrs, validateHugePageQuantity(resName, q, path)...)
			}
		}
		cpuOrMemory = cpuOrMemory || resName == v1.ResourceCPU || resName == v1.ResourceMemory
	}
	for _, resName := range sortedKeys(r.Requests) {
		q, path := r.Requests[resName], reqPath.Key(string(resName))
		allErrs = append(allErrs, validateContainerResourceName(resName, path)...)
		allErrs = append(allErrs, validateResourceQuantity(resName, q, path)...)
		if limit, ok := r.Limits[resName]; ok {
			switch {
			case q.Cmp(limit) != 0 && !isOvercommitAllowed(resName):
				allErrs = append(allErrs, field.Invalid(reqPath, q.String(), fmt.Sprintf("must be equal to %s limit of %s", resName, limit.String())))
			case q.Cmp(limit) > 0:
				allErrs = append(allErrs, field.Invalid(reqPath, q.String(), fmt.Sprintf("must be less than or equal to %s limit of %s", resName, limit.String())))
			}
		} else if !isOvercommitAllowed(resName) {
			allErrs = append(allErrs, field.Required(limPath, "Limit must be set for non overcommitable resources"))
		}
		if isHugePageResource(resName) {
			hugePages = true
			if !allowIndivisibleHugePages {
				allErrs = append(allErrs, validateHugePageQuantity(resName, q, path)...)
			}
		}
		cpuOrMemory = cpuOrMemory || resName == v1.ResourceCPU || resName == v1.ResourceMemory
	}
	if hugePages && !cpuOrMemory {
		allErrs = append(allErrs, field.Forbidden(fldPath, "HugePages require cpu or memory"))
	}
	return append(allErrs, validateResourceClaimNames(r.Claims, podClaims, fldPath.Child("claims"))...)
}

// validateResourceClaimNames checks that a container only uses resource
// claims its pod declares, each at most once.
func validateResourceClaimNames(claims []v1.ResourceClaim, podClaims sets.Set[string], fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	seen := sets.New[string]()
	for i, claim := range claims {
		idxPath := fldPath.Index(i)
		if claim.Name == "" {
			allErrs = append(allErrs, field.Required(idxPath, ""))
			continue
		}
		key := claim.Name
		if claim.Request != "" {
			allErrs = append(allErrs, validateDNS1123Label(claim.Request, idxPath.Child("request"))...)
			key += "/" + claim.Request
		}
		if seen.Has(claim.Name) || seen.Has(key) {
			allErrs = append(allErrs, field.Duplicate(idxPath, key))
		}
		seen.Insert(key)
		if !podClaims.Has(claim.Name) {
			err := field.NotFound(idxPath, claim.Name)
			err.Detail = "must be one of the names in pod.spec.resourceClaims"
			if podClaims.Len() == 0 {
				err.Detail += " which is empty"
			} else {
				err.Detail += ": " + strings.Join(sets.List(podClaims), ", ")
			}
			allErrs = append(allErrs, err)
		}
	}
	return allErrs
}

// ValidateContainerResourceName validates the name of a resource of
// containers outside a pod (the container metrics of an HPA).
func ValidateContainerResourceName(name v1.ResourceName, fldPath *field.Path) field.ErrorList {
	return validateContainerResourceName(name, fldPath)
}

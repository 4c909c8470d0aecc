package coordination

import (
	"strings"

	coordinationv1 "k8s.io/api/coordination/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var (
	metadataPath = field.NewPath("metadata")
	specPath     = field.NewPath("spec")
)

// leaseStrategies are the coordinated leader election strategies defined
// by Kubernetes; others must be domain-prefixed.
var leaseStrategies = []coordinationv1.CoordinatedLeaseStrategy{coordinationv1.OldestEmulationVersion}

// ValidateLease validates a Lease on create. Leases use apimachinery's
// metadata rules: unlike core objects, any unqualified finalizer name is
// accepted.
func ValidateLease(lease *coordinationv1.Lease) field.ErrorList {
	allErrs := apivalidation.ValidateObjectMeta(&lease.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, metadataPath)
	return append(allErrs, validateLeaseSpec(&lease.Spec, specPath)...)
}

// ValidateLeaseUpdate validates an update of a Lease. Every field of its
// spec may change: that is how leases are acquired and renewed.
func ValidateLeaseUpdate(newLease, oldLease *coordinationv1.Lease) field.ErrorList {
	allErrs := apivalidation.ValidateObjectMetaUpdate(&newLease.ObjectMeta, &oldLease.ObjectMeta, metadataPath)
	return append(allErrs, validateLeaseSpec(&newLease.Spec, specPath)...)
}

func validateLeaseSpec(spec *coordinationv1.LeaseSpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if d := spec.LeaseDurationSeconds; d != nil && *d <= 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("leaseDurationSeconds"), d, "must be greater than 0"))
	}
	if t := spec.LeaseTransitions; t != nil && *t < 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("leaseTransitions"), t, apivalidation.IsNegativeErrorMsg))
	}
	if spec.Strategy != nil {
		allErrs = append(allErrs, validateStrategy(*spec.Strategy, fldPath.Child("strategy"))...)
	}
	// A preferred holder only means something to a coordinated election.
	if spec.PreferredHolder != nil && *spec.PreferredHolder != "" && (spec.Strategy == nil || *spec.Strategy == "") {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("preferredHolder"), "may only be specified if `strategy` is defined"))
	}
	return allErrs
}

// validateStrategy accepts the strategies Kubernetes defines and any
// domain-prefixed one. kube-apiserver reports errors one level deeper than
// the field ("spec.strategy.strategy"); we keep its paths.
func validateStrategy(strategy coordinationv1.CoordinatedLeaseStrategy, fldPath *field.Path) field.ErrorList {
	errPath := fldPath.Child("strategy")
	if !strings.Contains(string(strategy), "/") {
		for _, known := range leaseStrategies {
			if strategy == known {
				return nil
			}
		}
		return field.ErrorList{field.NotSupported(errPath, strategy, leaseStrategies)}
	}
	var allErrs field.ErrorList
	for _, msg := range validation.IsQualifiedName(string(strategy)) {
		allErrs = append(allErrs, field.Invalid(errPath, strategy, msg))
	}
	return allErrs
}

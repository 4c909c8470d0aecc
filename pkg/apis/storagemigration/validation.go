// Package storagemigration holds the validation of the
// storagemigration.k8s.io/v1 type kapi serves, StorageVersionMigration,
// which has no defaults.
package storagemigration

import (
	"strings"

	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/apis/internal/fielderrors"
	"github.com/kapi-dev/kapi/pkg/apis/internal/gofields"
)

var (
	metadataPath = field.NewPath("metadata")
	specPath     = field.NewPath("spec")
	statusPath   = field.NewPath("status")
)

// ValidateStorageVersionMigration validates a migration on create: it
// names a resource (a DNS-1035 label) and, optionally, its group.
func ValidateStorageVersionMigration(svm *storagemigrationv1.StorageVersionMigration) field.ErrorList {
	allErrs := core.ValidateObjectMeta(&svm.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, metadataPath)
	resource := specPath.Child("resource", "resource")
	if r := svm.Spec.Resource.Resource; r == "" {
		allErrs = append(allErrs, field.Required(resource, "resource is required to be set"))
	} else if errs := validation.IsDNS1035Label(r); len(errs) > 0 {
		allErrs = append(allErrs, field.Invalid(resource, r, strings.Join(errs, ",")))
	}
	if g := svm.Spec.Resource.Group; g != "" {
		if errs := validation.IsDNS1123Subdomain(g); len(errs) > 0 {
			allErrs = append(allErrs, field.Invalid(specPath.Child("resource", "group"), g, strings.Join(errs, ",")))
		}
	}
	return allErrs
}

// ValidateStorageVersionMigrationUpdate validates an update: the spec
// never changes.
func ValidateStorageVersionMigrationUpdate(svm, old *storagemigrationv1.StorageVersionMigration) field.ErrorList {
	allErrs := ValidateStorageVersionMigration(svm)
	allErrs = append(allErrs, core.ValidateObjectMetaUpdate(&svm.ObjectMeta, &old.ObjectMeta, metadataPath)...)
	if svm.Spec != old.Spec {
		allErrs = append(allErrs, field.Invalid(specPath, gofields.Value(svm.Spec), "field is immutable"))
	}
	return fielderrors.Dedupe(allErrs)
}

// ValidateStorageVersionMigrationStatusUpdate validates a write of
// /status: a well-formed resourceVersion that never changes once set,
// valid conditions, and a Succeeded or Failed condition that stays true.
func ValidateStorageVersionMigrationStatusUpdate(svm, old *storagemigrationv1.StorageVersionMigration) field.ErrorList {
	allErrs := core.ValidateObjectMetaUpdate(&svm.ObjectMeta, &old.ObjectMeta, metadataPath)
	rv := statusPath.Child("resourceVersion")
	if v := svm.Status.ResourceVersion; v != "" {
		// kube-apiserver compares the version with itself: only its
		// form is checked.
		if _, err := resourceversion.CompareResourceVersion(v, v); err != nil {
			allErrs = append(allErrs, field.Invalid(rv, v, err.Error()))
		}
	}
	conditions := statusPath.Child("conditions")
	allErrs = append(allErrs, metav1validation.ValidateConditions(svm.Status.Conditions, conditions)...)
	if old.Status.ResourceVersion != "" && old.Status.ResourceVersion != svm.Status.ResourceVersion {
		allErrs = append(allErrs, field.Invalid(rv, svm.Status.ResourceVersion, "field is immutable"))
	}
	succeeded, failed := isTrue(svm, storagemigrationv1.MigrationSucceeded), isTrue(svm, storagemigrationv1.MigrationFailed)
	if succeeded && failed {
		allErrs = append(allErrs, field.Invalid(conditions, svm.Status.Conditions, "Both success and failed conditions cannot be true at the same time"))
	}
	if isTrue(old, storagemigrationv1.MigrationSucceeded) && !succeeded {
		allErrs = append(allErrs, field.Invalid(conditions, svm.Status.Conditions, "Success condition cannot be set to false once it is true"))
	}
	if isTrue(old, storagemigrationv1.MigrationFailed) && !failed {
		allErrs = append(allErrs, field.Invalid(conditions, svm.Status.Conditions, "Failed condition cannot be set to false once it is true"))
	}
	return allErrs
}

func isTrue(svm *storagemigrationv1.StorageVersionMigration, t storagemigrationv1.MigrationConditionType) bool {
	c := meta.FindStatusCondition(svm.Status.Conditions, string(t))
	return c != nil && c.Status == metav1.ConditionTrue
}

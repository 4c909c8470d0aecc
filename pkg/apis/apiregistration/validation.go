package apiregistration

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/validate/content"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

var (
	metadataPath = field.NewPath("metadata")
	specPath     = field.NewPath("spec")
	statusPath   = field.NewPath("status")
)

// The bounds of an APIService's priorities, as kube-aggregator checks
// them.
const (
	maxGroupPriorityMinimum = 20000
	maxVersionPriority      = 1000
)

// ValidateAPIService validates an APIService as kube-aggregator does on
// create: its name is <version>.<group>, its group and version are DNS
// names (only v1 of the legacy group may have none), its priorities are
// in range, and a local APIService (without a Service) has no TLS
// settings while a remote one names its Service fully.
func ValidateAPIService(s *apiregistrationv1.APIService) field.ErrorList {
	requiredName := s.Spec.Version + "." + s.Spec.Group
	allErrs := apivalidation.ValidateObjectMeta(&s.ObjectMeta, false, func(name string, _ bool) []string {
		if errs := content.IsPathSegmentName(name); len(errs) > 0 {
			return errs
		}
		if name != requiredName {
			return []string{fmt.Sprintf("must be `spec.version+\".\"+spec.group`: %q", requiredName)}
		}
		return nil
	}, metadataPath)

	if s.Spec.Group == "" && s.Spec.Version != "v1" {
		allErrs = append(allErrs, field.Required(specPath.Child("group"), "only v1 may have an empty group and it better be legacy kube"))
	}
	if s.Spec.Group != "" {
		for _, msg := range utilvalidation.IsDNS1123Subdomain(s.Spec.Group) {
			allErrs = append(allErrs, field.Invalid(specPath.Child("group"), s.Spec.Group, msg))
		}
	}
	for _, msg := range utilvalidation.IsDNS1035Label(s.Spec.Version) {
		allErrs = append(allErrs, field.Invalid(specPath.Child("version"), s.Spec.Version, msg))
	}
	if p := s.Spec.GroupPriorityMinimum; p <= 0 || p > maxGroupPriorityMinimum {
		allErrs = append(allErrs, field.Invalid(specPath.Child("groupPriorityMinimum"), p, "must be positive and less than 20000"))
	}
	if p := s.Spec.VersionPriority; p <= 0 || p > maxVersionPriority {
		allErrs = append(allErrs, field.Invalid(specPath.Child("versionPriority"), p, "must be positive and less than 1000"))
	}

	svc := s.Spec.Service
	if svc == nil {
		if len(s.Spec.CABundle) != 0 {
			allErrs = append(allErrs, field.Invalid(specPath.Child("caBundle"), fmt.Sprintf("%d bytes", len(s.Spec.CABundle)), "local APIServices may not have a caBundle"))
		}
		if s.Spec.InsecureSkipTLSVerify {
			allErrs = append(allErrs, field.Invalid(specPath.Child("insecureSkipTLSVerify"), s.Spec.InsecureSkipTLSVerify, "local APIServices may not have insecureSkipTLSVerify"))
		}
		return allErrs
	}
	if svc.Namespace == "" {
		allErrs = append(allErrs, field.Required(specPath.Child("service", "namespace"), ""))
	}
	if svc.Name == "" {
		allErrs = append(allErrs, field.Required(specPath.Child("service", "name"), ""))
	}
	var port int32
	if svc.Port != nil {
		port = *svc.Port
	}
	if errs := utilvalidation.IsValidPortNum(int(port)); errs != nil {
		allErrs = append(allErrs, field.Invalid(specPath.Child("service", "port"), port, "port is not valid: "+strings.Join(errs, ", ")))
	}
	if s.Spec.InsecureSkipTLSVerify && len(s.Spec.CABundle) > 0 {
		allErrs = append(allErrs, field.Invalid(specPath.Child("insecureSkipTLSVerify"), s.Spec.InsecureSkipTLSVerify, "may not be true if caBundle is present"))
	}
	return allErrs
}

// ValidateAPIServiceUpdate validates an update: the metadata rules of
// every update, then the whole object as on create.
func ValidateAPIServiceUpdate(s, old *apiregistrationv1.APIService) field.ErrorList {
	allErrs := apivalidation.ValidateObjectMetaUpdate(&s.ObjectMeta, &old.ObjectMeta, metadataPath)
	return append(allErrs, ValidateAPIService(s)...)
}

// ValidateAPIServiceStatusUpdate validates a write of /status: the
// metadata rules of every update, and conditions whose status is True,
// False or Unknown.
func ValidateAPIServiceStatusUpdate(s, old *apiregistrationv1.APIService) field.ErrorList {
	allErrs := apivalidation.ValidateObjectMetaUpdate(&s.ObjectMeta, &old.ObjectMeta, metadataPath)
	for i, c := range s.Status.Conditions {
		switch c.Status {
		case apiregistrationv1.ConditionTrue, apiregistrationv1.ConditionFalse, apiregistrationv1.ConditionUnknown:
		default:
			allErrs = append(allErrs, field.NotSupported(statusPath.Child("conditions").Index(i).Child("status"), c.Status,
				[]string{string(apiregistrationv1.ConditionTrue), string(apiregistrationv1.ConditionFalse), string(apiregistrationv1.ConditionUnknown)}))
		}
	}
	return allErrs
}

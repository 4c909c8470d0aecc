package apiextensions

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var (
	metadataPath = field.NewPath("metadata")
	specPath     = field.NewPath("spec")
	statusPath   = field.NewPath("status")
)

// ValidationOptions carries what this package does not validate itself.
type ValidationOptions struct {
	// ValidateSchema checks one version's openAPIV3Schema (structural rules,
	// x-kubernetes-* rules, defaults, CEL, nullable at the root). fldPath is
	// where kube-apiserver reports it: spec.versions[i].schema.openAPIV3Schema,
	// or spec.validation.openAPIV3Schema when every version has the same
	// schema (then it is called once). nil skips schema checks.
	ValidateSchema func(fldPath *field.Path, s *apiextensionsv1.JSONSchemaProps) field.ErrorList
}

// specRules are the switches that differ between create and update:
// kube-apiserver never tightens validation on what it already stored.
type specRules struct {
	ValidationOptions
	// requireRecognizedConversionReviewVersion: a webhook must accept a
	// ConversionReview version the server speaks.
	requireRecognizedConversionReviewVersion bool
	// requireImmutableNames: scope and names.kind are frozen once the CRD
	// is established (they shape the storage and the served API).
	requireImmutableNames bool
	// requireOpenAPISchema: every version needs a schema.
	requireOpenAPISchema bool
	// allowInvalidCABundle: a conversion webhook's caBundle is not parsed.
	allowInvalidCABundle bool
	// allowTooManySelectableFields is keyed by version name ("" for the
	// hoisted spec.selectableFields): an unchanged list that was already
	// longer than the limit stays accepted.
	allowTooManySelectableFields map[string]bool
}

// ValidateCustomResourceDefinition validates a CRD on create. Like
// kube-apiserver's strategy, call it after the create preparation that
// resets status and sets status.storedVersions to the storage version (v1
// defaulting does the latter too): status.storedVersions is validated.
func ValidateCustomResourceDefinition(crd *apiextensionsv1.CustomResourceDefinition, opts ValidationOptions) field.ErrorList {
	// The name must be derived from the spec so that two CRDs can never
	// serve the same resource.
	nameFn := func(name string, prefix bool) []string {
		errs := apivalidation.NameIsDNSSubdomain(name, prefix)
		if name != crd.Spec.Names.Plural+"."+crd.Spec.Group {
			errs = append(errs, `must be spec.names.plural+"."+spec.group`)
		}
		return errs
	}
	rules := specRules{
		ValidationOptions:                        opts,
		requireRecognizedConversionReviewVersion: true,
		requireOpenAPISchema:                     true,
		// Nothing can have used the webhook yet.
		allowInvalidCABundle: true,
	}
	allErrs := apivalidation.ValidateObjectMeta(&crd.ObjectMeta, false, nameFn, metadataPath)
	allErrs = append(allErrs, validateSpec(&crd.Spec, rules, specPath)...)
	allErrs = append(allErrs, validateStatus(&crd.Status, statusPath)...)
	allErrs = append(allErrs, validateStoredVersions(crd.Status.StoredVersions, crd.Spec.Versions, statusPath.Child("storedVersions"))...)
	allErrs = append(allErrs, validateAPIApproval(crd, nil)...)
	return append(allErrs, validatePreserveUnknownFields(crd, nil)...)
}

// ValidateCustomResourceDefinitionUpdate validates an update of a CRD,
// after the update preparation that copies the old status and appends the
// new storage version to status.storedVersions.
func ValidateCustomResourceDefinitionUpdate(crd, old *apiextensionsv1.CustomResourceDefinition, opts ValidationOptions) field.ErrorList {
	oldReviewVersions := conversionReviewVersions(old.Spec.Conversion)
	rules := specRules{
		ValidationOptions:                        opts,
		requireRecognizedConversionReviewVersion: old.Spec.Conversion == nil || len(oldReviewVersions) == 0 || hasAcceptedReviewVersion(oldReviewVersions),
		requireImmutableNames:                    IsConditionTrue(old, apiextensionsv1.Established),
		requireOpenAPISchema:                     allVersionsHaveSchema(old.Spec.Versions),
		allowInvalidCABundle:                     allowInvalidCABundle(old),
		allowTooManySelectableFields:             tooManySelectableFieldsAllowed(crd.Spec.Versions, old.Spec.Versions),
	}
	allErrs := apivalidation.ValidateObjectMetaUpdate(&crd.ObjectMeta, &old.ObjectMeta, metadataPath)
	allErrs = append(allErrs, validateSpec(&crd.Spec, rules, specPath)...)
	if rules.requireImmutableNames {
		allErrs = append(allErrs, apivalidation.ValidateImmutableField(crd.Spec.Scope, old.Spec.Scope, specPath.Child("scope"))...)
		allErrs = append(allErrs, apivalidation.ValidateImmutableField(crd.Spec.Names.Kind, old.Spec.Names.Kind, specPath.Child("names", "kind"))...)
	}
	// Group and plural make up the name, which never changes.
	allErrs = append(allErrs, apivalidation.ValidateImmutableField(crd.Spec.Group, old.Spec.Group, specPath.Child("group"))...)
	allErrs = append(allErrs, apivalidation.ValidateImmutableField(crd.Spec.Names.Plural, old.Spec.Names.Plural, specPath.Child("names", "plural"))...)
	allErrs = append(allErrs, validateStatus(&crd.Status, statusPath)...)
	allErrs = append(allErrs, validateStoredVersions(crd.Status.StoredVersions, crd.Spec.Versions, statusPath.Child("storedVersions"))...)
	allErrs = append(allErrs, validateAPIApproval(crd, old)...)
	return append(allErrs, validatePreserveUnknownFields(crd, old)...)
}

// ValidateCustomResourceDefinitionStatusUpdate validates a write to the
// status subresource. kube-apiserver checks only metadata and the accepted
// names here: status.storedVersions is written by the storage version
// migrator and checked against the spec on the next spec update.
func ValidateCustomResourceDefinitionStatusUpdate(crd, old *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
	allErrs := apivalidation.ValidateObjectMetaUpdate(&crd.ObjectMeta, &old.ObjectMeta, metadataPath)
	return append(allErrs, validateStatus(&crd.Status, statusPath)...)
}

func validateSpec(spec *apiextensionsv1.CustomResourceDefinitionSpec, rules specRules, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList

	groupErrs := validation.IsDNS1123Subdomain(spec.Group)
	switch {
	case spec.Group == "":
		allErrs = append(allErrs, field.Required(fldPath.Child("group"), ""))
	case len(groupErrs) > 0:
		allErrs = append(allErrs, field.Invalid(fldPath.Child("group"), spec.Group, strings.Join(groupErrs, ",")))
	case !strings.Contains(spec.Group, "."):
		allErrs = append(allErrs, field.Invalid(fldPath.Child("group"), spec.Group, "should be a domain with at least one dot"))
	}

	allErrs = append(allErrs, validateEnum(fldPath.Child("scope"), string(spec.Scope), []string{string(apiextensionsv1.ClusterScoped), string(apiextensionsv1.NamespaceScoped)})...)

	versionsPath := fldPath.Child("versions")
	for i, v := range spec.Versions {
		hasSchema := v.Schema != nil && v.Schema.OpenAPIV3Schema != nil
		switch {
		case hasSchema:
		case rules.requireOpenAPISchema:
			allErrs = append(allErrs, field.Required(versionsPath.Index(i).Child("schema", "openAPIV3Schema"), ""))
		case !spec.PreserveUnknownFields && v.Served:
			// Accepted once (the CRD predates required schemas), but
			// pruning would drop every field of such a version.
			allErrs = append(allErrs, field.Required(versionsPath.Index(i).Child("schema", "openAPIV3Schema"), "because otherwise all fields are pruned"))
		}
	}
	if spec.PreserveUnknownFields && anySchemaHas(spec.Versions, func(s *apiextensionsv1.JSONSchemaProps) bool { return s.Default != nil }) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("preserveUnknownFields"), true, "must be false in order to use defaults in the schema"))
	}

	hoist := hoistedFields(spec.Versions)
	storageVersions := 0
	seen := map[string]bool{}
	uniqueNames := true
	for i := range spec.Versions {
		v := &spec.Versions[i]
		if v.Storage {
			storageVersions++
		}
		if seen[v.Name] {
			uniqueNames = false
		}
		seen[v.Name] = true
		if errs := validation.IsDNS1035Label(v.Name); len(errs) > 0 {
			allErrs = append(allErrs, field.Invalid(versionsPath.Index(i).Child("name"), v.Name, strings.Join(errs, ",")))
		}
		allErrs = append(allErrs, validateVersion(spec, v, hoist, rules, versionsPath.Index(i))...)
	}
	if !uniqueNames {
		allErrs = append(allErrs, field.Invalid(versionsPath, internalVersionsValue(spec.Versions), "must contain unique version names"))
	}
	if storageVersions != 1 {
		allErrs = append(allErrs, field.Invalid(versionsPath, internalVersionsValue(spec.Versions), "must have exactly one version marked as storage version"))
	}
	// The internal form also keeps the first version's name in spec.version,
	// and validates it there a second time.
	if len(spec.Versions) > 0 && spec.Versions[0].Name != "" {
		if errs := validation.IsDNS1035Label(spec.Versions[0].Name); len(errs) > 0 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("version"), spec.Versions[0].Name, strings.Join(errs, ",")))
		}
	}

	namesPath := fldPath.Child("names")
	for _, required := range []struct{ name, value string }{
		{"plural", spec.Names.Plural},
		{"singular", spec.Names.Singular},
		{"kind", spec.Names.Kind},
		{"listKind", spec.Names.ListKind},
	} {
		if required.value == "" {
			allErrs = append(allErrs, field.Required(namesPath.Child(required.name), ""))
		}
	}
	allErrs = append(allErrs, validateNames(&spec.Names, namesPath)...)

	// Fields every version shares are validated once, at the top level.
	if schema := hoist.topLevelSchema(spec.Versions); schema != nil {
		allErrs = append(allErrs, validateSchema(schema, anyStatusEnabled(spec.Versions), rules, fldPath.Child("validation"))...)
	}
	if hoist.subresources {
		allErrs = append(allErrs, validateSubresources(spec.Versions[0].Subresources, fldPath.Child("subresources"))...)
	}
	if hoist.columns {
		for i := range spec.Versions[0].AdditionalPrinterColumns {
			allErrs = append(allErrs, validateColumn(&spec.Versions[0].AdditionalPrinterColumns[i], fldPath.Child("additionalPrinterColumns").Index(i))...)
		}
	}
	if fields := hoist.topLevelSelectableFields(spec.Versions); len(fields) > 0 {
		if schema := hoist.topLevelSchema(spec.Versions); schema == nil {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("selectableFields"), "", "may only be set when validations.schema is included"))
		} else {
			// kube-apiserver reports a schema it cannot resolve paths in at
			// spec.schema.openAPIV3Schema, a path that exists in no version.
			allErrs = append(allErrs, validateSelectableFields(fields, schema.OpenAPIV3Schema, fldPath.Child("schema.openAPIV3Schema"), fldPath.Child("selectableFields"), rules.allowTooManySelectableFields[""])...)
		}
	}

	if spec.Conversion != nil && spec.Conversion.Strategy != apiextensionsv1.NoneConverter && spec.PreserveUnknownFields {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("conversion").Child("strategy"), spec.Conversion.Strategy, "must be None if spec.preserveUnknownFields is true"))
	}
	return append(allErrs, validateConversion(spec.Conversion, rules, fldPath.Child("conversion"))...)
}

// validateVersion validates what belongs to one version only; fields
// hoisted to the top level are validated there.
func validateVersion(spec *apiextensionsv1.CustomResourceDefinitionSpec, v *apiextensionsv1.CustomResourceDefinitionVersion, hoist hoisted, rules specRules, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for _, msg := range validateDeprecationWarning(v.Deprecated, v.DeprecationWarning) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("deprecationWarning"), v.DeprecationWarning, msg))
	}
	schema := hoist.versionSchema(v)
	if schema != nil {
		allErrs = append(allErrs, validateSchema(schema, statusEnabled(spec.Versions, v.Name), rules, fldPath.Child("schema"))...)
	}
	if !hoist.subresources {
		allErrs = append(allErrs, validateSubresources(v.Subresources, fldPath.Child("subresources"))...)
	}
	if !hoist.columns {
		for i := range v.AdditionalPrinterColumns {
			allErrs = append(allErrs, validateColumn(&v.AdditionalPrinterColumns[i], fldPath.Child("additionalPrinterColumns").Index(i))...)
		}
	}
	if fields := hoist.versionSelectableFields(v); len(fields) > 0 {
		if schema == nil || schema.OpenAPIV3Schema == nil {
			// Also what kube-apiserver says when the schema is set but
			// hoisted (identical in every version) while the selectable
			// fields differ between versions.
			allErrs = append(allErrs, field.Invalid(fldPath.Child("selectableFields"), "", "may only be set when `version.schema.openAPIV3Schema` is not included"))
		} else {
			allErrs = append(allErrs, validateSelectableFields(fields, schema.OpenAPIV3Schema, fldPath.Child("schema.openAPIV3Schema"), fldPath.Child("selectableFields"), rules.allowTooManySelectableFields[v.Name])...)
		}
	}
	return allErrs
}

// validateDeprecationWarning returns the problems of a version's
// deprecation warning, which is sent to clients as a Warning header.
func validateDeprecationWarning(deprecated bool, warning *string) []string {
	if !deprecated && warning != nil {
		return []string{"can only be set for deprecated versions"}
	}
	if warning == nil {
		return nil
	}
	var msgs []string
	if len(*warning) > 256 {
		msgs = append(msgs, "must be <= 256 characters long")
	}
	if len(*warning) == 0 {
		msgs = append(msgs, "must not be an empty string")
	}
	for i, r := range *warning {
		if !unicode.IsPrint(r) {
			msgs = append(msgs, fmt.Sprintf("must only contain printable UTF-8 characters; non-printable character found at index %d", i))
			break
		}
		if unicode.IsControl(r) {
			msgs = append(msgs, fmt.Sprintf("must only contain printable UTF-8 characters; control character found at index %d", i))
			break
		}
	}
	if !utf8.ValidString(*warning) {
		msgs = append(msgs, "must only contain printable UTF-8 characters")
	}
	return msgs
}

// validateNames checks the form of spec.names and status.acceptedNames;
// which names are required is the caller's business.
func validateNames(names *apiextensionsv1.CustomResourceDefinitionNames, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if errs := validation.IsDNS1035Label(names.Plural); names.Plural != "" && len(errs) > 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("plural"), names.Plural, strings.Join(errs, ",")))
	}
	if errs := validation.IsDNS1035Label(names.Singular); names.Singular != "" && len(errs) > 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("singular"), names.Singular, strings.Join(errs, ",")))
	}
	if errs := validation.IsDNS1035Label(strings.ToLower(names.Kind)); names.Kind != "" && len(errs) > 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("kind"), names.Kind, "may have mixed case, but should otherwise match: "+strings.Join(errs, ",")))
	}
	if errs := validation.IsDNS1035Label(strings.ToLower(names.ListKind)); names.ListKind != "" && len(errs) > 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("listKind"), names.ListKind, "may have mixed case, but should otherwise match: "+strings.Join(errs, ",")))
	}
	for i, shortName := range names.ShortNames {
		if errs := validation.IsDNS1035Label(shortName); len(errs) > 0 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("shortNames").Index(i), shortName, strings.Join(errs, ",")))
		}
	}
	// A list would be indistinguishable from an item.
	if names.Kind != "" && names.Kind == names.ListKind {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("listKind"), names.ListKind, "kind and listKind may not be the same"))
	}
	for i, category := range names.Categories {
		if errs := validation.IsDNS1035Label(category); len(errs) > 0 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("categories").Index(i), category, strings.Join(errs, ",")))
		}
	}
	return allErrs
}

// validateStatus validates the parts of status a client may write.
func validateStatus(status *apiextensionsv1.CustomResourceDefinitionStatus, fldPath *field.Path) field.ErrorList {
	return validateNames(&status.AcceptedNames, fldPath.Child("acceptedNames"))
}

// validateStoredVersions checks that status.storedVersions holds the
// storage version and nothing that left spec.versions: objects may still be
// persisted in any stored version, and the server must be able to read
// them.
func validateStoredVersions(storedVersions []string, versions []apiextensionsv1.CustomResourceDefinitionVersion, fldPath *field.Path) field.ErrorList {
	if len(storedVersions) == 0 {
		return field.ErrorList{field.Invalid(fldPath, storedVersions, "must have at least one stored version")}
	}
	var allErrs field.ErrorList
	// Each stored version is matched by the first spec version of its
	// name; a duplicate of that name does not match again.
	lastIndex := map[string]int{}
	for i, name := range storedVersions {
		lastIndex[name] = i
	}
	unmatched := map[string]bool{}
	for name := range lastIndex {
		unmatched[name] = true
	}
	for _, v := range versions {
		if v.Storage && !unmatched[v.Name] {
			allErrs = append(allErrs, field.Invalid(fldPath, storedVersions, "must have the storage version "+v.Name))
		}
		delete(unmatched, v.Name)
	}
	for i, name := range storedVersions {
		if !unmatched[name] || lastIndex[name] != i {
			continue
		}
		allErrs = append(allErrs, field.Invalid(fldPath.Index(i), name, fmt.Sprintf("missing from spec.versions; %[1]s was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in %[1]s and removes %[1]s from status.storedVersions", name)))
	}
	return allErrs
}

// validatePreserveUnknownFields refuses spec.preserveUnknownFields: true,
// which v1 only keeps so that CRDs created through v1beta1 still read back.
func validatePreserveUnknownFields(crd, old *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
	if old != nil && old.Spec.PreserveUnknownFields {
		return nil
	}
	if crd.Spec.PreserveUnknownFields {
		return field.ErrorList{field.Invalid(specPath.Child("preserveUnknownFields"), true, "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead")}
	}
	return nil
}

// validateEnum checks a required string against its allowed values.
func validateEnum(fldPath *field.Path, value string, allowed []string) field.ErrorList {
	if value == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	for _, a := range allowed {
		if a == value {
			return nil
		}
	}
	return field.ErrorList{field.NotSupported(fldPath, value, allowed)}
}

// statusEnabled reports whether the named version has a status
// subresource; with duplicate names the first version of the name counts.
func statusEnabled(versions []apiextensionsv1.CustomResourceDefinitionVersion, name string) bool {
	for _, v := range versions {
		if v.Name == name {
			return v.Subresources != nil && v.Subresources.Status != nil
		}
	}
	return false
}

func anyStatusEnabled(versions []apiextensionsv1.CustomResourceDefinitionVersion) bool {
	for _, v := range versions {
		if v.Subresources != nil && v.Subresources.Status != nil {
			return true
		}
	}
	return false
}

func allVersionsHaveSchema(versions []apiextensionsv1.CustomResourceDefinitionVersion) bool {
	for _, v := range versions {
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			return false
		}
	}
	return true
}

// tooManySelectableFieldsAllowed finds the selectable field lists (by
// version name, "" for the hoisted list) that were already over the limit
// in the old object and did not change.
func tooManySelectableFieldsAllowed(versions, oldVersions []apiextensionsv1.CustomResourceDefinitionVersion) map[string]bool {
	allowed := map[string]bool{}
	hoist, oldHoist := hoistedFields(versions), hoistedFields(oldVersions)
	oldTop := oldHoist.topLevelSelectableFields(oldVersions)
	if len(oldTop) > maxSelectableFields && internalEquality.DeepEqual(hoist.topLevelSelectableFields(versions), oldTop) {
		allowed[""] = true
	}
	oldByName := map[string][]apiextensionsv1.SelectableField{}
	for i := range oldVersions {
		oldByName[oldVersions[i].Name] = oldHoist.versionSelectableFields(&oldVersions[i])
	}
	for i := range versions {
		old, ok := oldByName[versions[i].Name]
		if ok && len(old) > maxSelectableFields && internalEquality.DeepEqual(hoist.versionSelectableFields(&versions[i]), old) {
			allowed[versions[i].Name] = true
		}
	}
	return allowed
}

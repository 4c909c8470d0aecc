package apiextensions

import (
	"context"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apiextensions/cel"
	"github.com/kapi-dev/kapi/pkg/apiextensions/conversion"
	"github.com/kapi-dev/kapi/pkg/apiextensions/schema"
	"github.com/kapi-dev/kapi/pkg/apiextensions/schema/defaulting"
	"github.com/kapi-dev/kapi/pkg/apiextensions/schema/pruning"
	"github.com/kapi-dev/kapi/pkg/apiextensions/schema/schemavalidation"
	"github.com/kapi-dev/kapi/pkg/apiextensions/schema/valuevalidation"
	"github.com/kapi-dev/kapi/pkg/apiextensions/serializer"
	"github.com/kapi-dev/kapi/pkg/registry/customresource"
)

// versionSchema prunes and defaults custom resources of one CRD version.
type versionSchema struct{ s *schema.Structural }

func (v versionSchema) Prune(obj map[string]interface{}) []string {
	return pruning.Prune(obj, v.s, true)
}

func (v versionSchema) Default(obj map[string]interface{}) {
	defaulting.PruneNonNullableNullsWithoutDefaults(obj, v.s)
	defaulting.Default(obj, v.s)
}

// compileSchemas compiles the schema of every version of crd, once per
// change of the CRD.
func compileSchemas(crd *apiextensionsv1.CustomResourceDefinition) (map[string]serializer.Schema, map[string]customresource.Validator, error) {
	schemas := map[string]serializer.Schema{}
	validators := map[string]customresource.Validator{}
	for _, v := range crd.Spec.Versions {
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		s, err := schema.NewStructural(v.Schema.OpenAPIV3Schema)
		if err != nil {
			return nil, nil, fmt.Errorf("version %s: %w", v.Name, err)
		}
		// Defaults are applied pruned, as kube-apiserver does: a default
		// may not bring in fields the schema does not know.
		s = s.DeepCopy()
		if err := defaulting.PruneDefaults(s); err != nil {
			return nil, nil, fmt.Errorf("version %s: %w", v.Name, err)
		}
		schemas[v.Name] = versionSchema{s}
		sv, err := valuevalidation.NewValidator(v.Schema.OpenAPIV3Schema)
		if err != nil {
			return nil, nil, fmt.Errorf("version %s: %w", v.Name, err)
		}
		validators[v.Name] = crValidator{schema: sv, cel: cel.NewValidator(v.Schema.OpenAPIV3Schema)}
	}
	return schemas, validators, nil
}

// crValidator checks custom resources against one version's schema: its
// structure and values, then its CEL rules.
type crValidator struct {
	schema *valuevalidation.Validator
	cel    *cel.Validator // nil without rules
}

func (v crValidator) Validate(ctx context.Context, obj, old *unstructured.Unstructured) field.ErrorList {
	var errs field.ErrorList
	var oldContent interface{}
	if old == nil {
		errs = v.schema.Validate(nil, obj.Object)
	} else {
		oldContent = old.Object
		errs = v.schema.ValidateUpdate(nil, obj.Object, old.Object)
	}
	if v.cel == nil {
		return errs
	}
	// Rules assume the types the schema declares; a value of the wrong
	// type would only make them fail confusingly.
	for _, e := range errs {
		if e.Type == field.ErrorTypeTypeInvalid {
			return append(errs, field.Invalid(nil, nil,
				"some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"))
		}
	}
	celErrs, _ := v.cel.Validate(ctx, nil, obj.Object, oldContent, cel.RuntimeCELCostBudget)
	return append(errs, celErrs...)
}

// validateCRDSchema is what CRD validation checks of one version's schema:
// the structural and extension rules, then that its CEL rules compile
// within the cost limits.
func validateCRDSchema(fldPath *field.Path, props *apiextensionsv1.JSONSchemaProps) field.ErrorList {
	errs := schemavalidation.ValidateCustomResourceDefinitionSchema(fldPath, props, schemavalidation.SchemaValidationOptions{})
	if len(errs) > 0 {
		return errs
	}
	_, celErrs := cel.Compile(props, fldPath)
	return celErrs
}

// converterFor returns the conversion of crd's strategy.
func converterFor(crd *apiextensionsv1.CustomResourceDefinition) (conversion.Converter, error) {
	if c := crd.Spec.Conversion; c != nil && c.Strategy == apiextensionsv1.WebhookConverter {
		return conversion.NewWebhook(crd)
	}
	return conversion.None{}, nil
}

package schemavalidation

import (
	"fmt"
	"maps"
	"reflect"
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/kapi-dev/kapi/pkg/apiextensions/schema"
	"github.com/kapi-dev/kapi/pkg/apiextensions/schema/defaulting"
	"github.com/kapi-dev/kapi/pkg/apiextensions/schema/valuevalidation"
)

// SchemaHas reports whether pred holds for s or any schema below it (items,
// junctors, properties, additionalProperties, patternProperties,
// additionalItems, definitions, dependencies). Properties are visited in
// sorted order.
func SchemaHas(s *apiextensionsv1.JSONSchemaProps, pred func(*apiextensionsv1.JSONSchemaProps) bool) bool {
	if s == nil {
		return false
	}
	if pred(s) {
		return true
	}
	if s.Items != nil {
		if SchemaHas(s.Items.Schema, pred) {
			return true
		}
		for i := range s.Items.JSONSchemas {
			if SchemaHas(&s.Items.JSONSchemas[i], pred) {
				return true
			}
		}
	}
	for _, list := range [][]apiextensionsv1.JSONSchemaProps{s.AllOf, s.AnyOf, s.OneOf} {
		for i := range list {
			if SchemaHas(&list[i], pred) {
				return true
			}
		}
	}
	if SchemaHas(s.Not, pred) {
		return true
	}
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		prop := s.Properties[name]
		if SchemaHas(&prop, pred) {
			return true
		}
	}
	if s.AdditionalProperties != nil && SchemaHas(s.AdditionalProperties.Schema, pred) {
		return true
	}
	for _, name := range slices.Sorted(maps.Keys(s.PatternProperties)) {
		prop := s.PatternProperties[name]
		if SchemaHas(&prop, pred) {
			return true
		}
	}
	if s.AdditionalItems != nil && SchemaHas(s.AdditionalItems.Schema, pred) {
		return true
	}
	for _, name := range slices.Sorted(maps.Keys(s.Definitions)) {
		def := s.Definitions[name]
		if SchemaHas(&def, pred) {
			return true
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.Dependencies)) {
		if SchemaHas(s.Dependencies[name].Schema, pred) {
			return true
		}
	}
	return false
}

// SchemaHasDefaults reports whether any node of s sets a default.
func SchemaHasDefaults(s *apiextensionsv1.JSONSchemaProps) bool {
	return SchemaHas(s, func(s *apiextensionsv1.JSONSchemaProps) bool { return s.Default != nil })
}

// SchemaHasKubernetesExtensions reports whether s uses an x-kubernetes-*
// extension that requires a structural schema.
func SchemaHasKubernetesExtensions(s *apiextensionsv1.JSONSchemaProps) bool {
	return SchemaHas(s, func(s *apiextensionsv1.JSONSchemaProps) bool {
		return s.XEmbeddedResource || s.XPreserveUnknownFields != nil || s.XIntOrString || len(s.XListMapKeys) > 0 || s.XListType != nil || len(s.XValidations) > 0
	})
}

// SchemaIsNonStructural reports whether s is not a structural schema.
func SchemaIsNonStructural(s *apiextensionsv1.JSONSchemaProps) bool {
	if s == nil {
		return false
	}
	return len(ValidateStructural(nil, s)) > 0
}

// SchemaHasUnprunedDefaults reports whether pruning would change a default
// value of s. It fails for schemas that are not structural.
func SchemaHasUnprunedDefaults(s *apiextensionsv1.JSONSchemaProps) (bool, error) {
	if s == nil || !SchemaHasDefaults(s) {
		return false, nil
	}
	ss, err := schema.NewStructural(s)
	if err != nil {
		return false, err
	}
	if errs := ValidateStructuralInvariants(nil, ss); len(errs) > 0 {
		return false, errs.ToAggregate()
	}
	pruned := ss.DeepCopy()
	if err := defaulting.PruneDefaults(pruned); err != nil {
		return false, err
	}
	return !reflect.DeepEqual(ss, pruned), nil
}

// SchemaHasNonAtomicSetItems reports whether s has an
// x-kubernetes-list-type set whose items are granular maps or non-atomic
// lists.
func SchemaHasNonAtomicSetItems(s *apiextensionsv1.JSONSchemaProps) bool {
	return SchemaHas(s, func(s *apiextensionsv1.JSONSchemaProps) bool {
		if !isListType(s, "set") || s.Items == nil || s.Items.Schema == nil {
			return false
		}
		items := s.Items.Schema
		switch items.Type {
		case "array":
			return items.XListType != nil && *items.XListType != "atomic"
		case "object":
			return items.XMapType == nil || *items.XMapType != "atomic"
		}
		return false
	})
}

// SchemaHasInvalidListMapKeys reports whether s has nullable set or map
// items, or map keys that are nullable or neither required nor defaulted.
func SchemaHasInvalidListMapKeys(s *apiextensionsv1.JSONSchemaProps) bool {
	return SchemaHas(s, func(s *apiextensionsv1.JSONSchemaProps) bool {
		return len(validateListMapKeysAndSetItems(s, nil)) > 0
	})
}

// SchemaHasInvalidTypes reports whether s uses a type that is not an
// OpenAPI v3 type.
func SchemaHasInvalidTypes(s *apiextensionsv1.JSONSchemaProps) bool {
	return SchemaHas(s, func(s *apiextensionsv1.JSONSchemaProps) bool {
		return len(s.Type) > 0 && !openAPIV3Types.Has(s.Type)
	})
}

// UnrecognizedFormats lists the formats in s that kube-apiserver ignores
// (unknown, or not applicable to the node's type), in schema order. CRD
// writes warn `unrecognized format "..."` about each.
func UnrecognizedFormats(s *apiextensionsv1.JSONSchemaProps) []string {
	var formats []string
	SchemaHas(s, func(s *apiextensionsv1.JSONSchemaProps) bool {
		if len(s.Format) > 0 && valuevalidation.SupportedFormat(s.Type, s.Format) == "" {
			formats = append(formats, s.Format)
		}
		return false
	})
	return formats
}

// NonScalarListTypeSetWarnings returns, sorted and without repetition, the
// warnings CRD writes give for x-kubernetes-list-type set over objects or
// arrays.
func NonScalarListTypeSetWarnings(s *apiextensionsv1.JSONSchemaProps) []string {
	seen := sets.New[string]()
	SchemaHas(s, func(s *apiextensionsv1.JSONSchemaProps) bool {
		if isListType(s, "set") && s.Items != nil && s.Items.Schema != nil {
			switch t := s.Items.Schema.Type; t {
			case "object", "array":
				seen.Insert(fmt.Sprintf("x-kubernetes-list-type: set for items of type %q is not supported by server-side apply or CEL validation rules", t))
			}
		}
		return false
	})
	return sets.List(seen)
}

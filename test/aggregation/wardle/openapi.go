package wardle

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"

	// The definitions of the meta/v1 types (ObjectMeta, ListMeta, Status,
	// DeleteOptions, ...) every API refers to. An extension usually runs
	// openapi-gen over its types and the meta types; this one takes the
	// meta types' definitions from a module that generated them.
	metaopenapi "k8s.io/apiextensions-apiserver/pkg/generated/openapi"
)

// GetOpenAPIDefinitions returns the OpenAPI definitions of the group's
// types, written by hand (openapi-gen writes the same from the Go types
// and their comments), and of the meta types. The server publishes them
// at /openapi/v2 and /openapi/v3, where the aggregator merges them into
// the cluster's documents: kubectl explain reads them there, and
// server-side apply knows the types' structure from them.
func GetOpenAPIDefinitions(ref common.ReferenceCallback) map[string]common.OpenAPIDefinition {
	defs := metaopenapi.GetOpenAPIDefinitions(ref)
	str := func(description string) spec.Schema {
		return spec.Schema{SchemaProps: spec.SchemaProps{Description: description, Type: []string{"string"}}}
	}
	object := func(description, model string) spec.Schema {
		return spec.Schema{SchemaProps: spec.SchemaProps{Description: description, Default: map[string]any{}, Ref: ref(model)}}
	}
	typeMeta := map[string]spec.Schema{
		"kind":       str("Kind is a string value representing the REST resource this object represents."),
		"apiVersion": str("APIVersion defines the versioned schema of this representation of an object."),
	}
	with := func(props map[string]spec.Schema) map[string]spec.Schema {
		for k, v := range typeMeta {
			props[k] = v
		}
		return props
	}

	defs[Flunder{}.OpenAPIModelName()] = common.OpenAPIDefinition{
		Schema: spec.Schema{SchemaProps: spec.SchemaProps{
			Description: "Flunder is an example object served by an extension API server.",
			Type:        []string{"object"},
			Properties: with(map[string]spec.Schema{
				"metadata": object("Standard object's metadata.", metav1.ObjectMeta{}.OpenAPIModelName()),
				"spec":     object("Spec is what the user asks of the flunder.", FlunderSpec{}.OpenAPIModelName()),
			}),
		}},
		Dependencies: []string{metav1.ObjectMeta{}.OpenAPIModelName(), FlunderSpec{}.OpenAPIModelName()},
	}
	defs[FlunderSpec{}.OpenAPIModelName()] = common.OpenAPIDefinition{
		Schema: spec.Schema{SchemaProps: spec.SchemaProps{
			Description: "FlunderSpec is what a user asks of a flunder.",
			Type:        []string{"object"},
			Properties: map[string]spec.Schema{
				"reference": str("Reference names another flunder in the same namespace."),
				"color":     str("Color is a free-form color."),
			},
		}},
	}
	defs[FlunderList{}.OpenAPIModelName()] = common.OpenAPIDefinition{
		Schema: spec.Schema{SchemaProps: spec.SchemaProps{
			Description: "FlunderList is a list of flunders.",
			Type:        []string{"object"},
			Required:    []string{"items"},
			Properties: with(map[string]spec.Schema{
				"metadata": object("Standard list metadata.", metav1.ListMeta{}.OpenAPIModelName()),
				"items": {SchemaProps: spec.SchemaProps{
					Description: "Items are the flunders.",
					Type:        []string{"array"},
					Items:       &spec.SchemaOrArray{Schema: &spec.Schema{SchemaProps: spec.SchemaProps{Default: map[string]any{}, Ref: ref(Flunder{}.OpenAPIModelName())}}},
				}},
			}),
		}},
		Dependencies: []string{metav1.ListMeta{}.OpenAPIModelName(), Flunder{}.OpenAPIModelName()},
	}
	return defs
}

package openapi

import (
	"fmt"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// dialect is the OpenAPI version a definition is written for: where its
// references point, and what it can express.
type dialect int

const (
	v2 dialect = iota
	v3
)

func (d dialect) objectMetaRef() string {
	if d == v3 {
		return "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
	}
	return "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
}

// The descriptions kube-apiserver gives the properties it adds.
var (
	metadataDescription   = metav1.PartialObjectMetadata{}.SwaggerDoc()["metadata"]
	apiVersionDescription = metav1.TypeMeta{}.SwaggerDoc()["apiVersion"]
	kindDescription       = metav1.TypeMeta{}.SwaggerDoc()["kind"]

	// Embedded resources have their own.
	embeddedAPIVersionDescription = "apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"
	embeddedKindDescription       = "kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
)

// ResourceSchema returns the definitions of the kind of a version of a
// CustomResourceDefinition, as kube-apiserver publishes them: v3 for the
// /openapi/v3 documents, whose references point into
// #/components/schemas/, and v2 for /openapi/v2, whose references point
// into #/definitions/. It fails only when the CRD has no such version. The
// results are the caller's.
func ResourceSchema(crd *apiextensionsv1.CustomResourceDefinition, version string) (v3Schema, v2Schema *spec.Schema, err error) {
	v := findVersion(crd, version)
	if v == nil {
		return nil, nil, fmt.Errorf("version %s not found in apiextensionsv1.CustomResourceDefinition: %v", version, crd.Name)
	}
	var schema *apiextensionsv1.JSONSchemaProps
	if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil && isStructural(v.Schema.OpenAPIV3Schema) {
		schema = v.Schema.OpenAPIV3Schema
	}

	// Without a schema there is nothing to say: a bare object, and not one
	// with apiVersion, kind and metadata only, which kubectl would take as
	// all the fields there are.
	v3Schema, v2Schema = objectSchema(), objectSchema()
	if schema != nil {
		v3Schema = kubeNative(toStructural(schema), v3)
		preservesAll := schema.XPreserveUnknownFields != nil && *schema.XPreserveUnknownFields
		if !preservesAll && !crd.Spec.PreserveUnknownFields {
			// kubectl would complain of any field but those listed.
			published := toStructural(schema)
			toV2(published)
			// kube-apiserver prunes the defaults of its v2 document.
			v2Schema = kubeNative(published, v2)
			withoutDefaults(v2Schema)
		}
	}

	for _, s := range []*spec.Schema{v3Schema, v2Schema} {
		s.AddExtension("x-kubernetes-group-version-kind", []any{map[string]any{
			"group": crd.Spec.Group, "version": version, "kind": crd.Spec.Names.Kind,
		}})
		if fields := selectableFields(v); fields != nil {
			s.AddExtension("x-kubernetes-selectable-fields", fields)
		}
	}
	return v3Schema, v2Schema, nil
}

func findVersion(crd *apiextensionsv1.CustomResourceDefinition, version string) *apiextensionsv1.CustomResourceDefinitionVersion {
	for i := range crd.Spec.Versions {
		if crd.Spec.Versions[i].Name == version {
			return &crd.Spec.Versions[i]
		}
	}
	return nil
}

func objectSchema() *spec.Schema {
	return &spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{"object"}}}
}

// kubeNative adds to the schema of an object what the API server defines:
// apiVersion, kind and metadata, at the root and in embedded resources.
func kubeNative(s *spec.Schema, d dialect) *spec.Schema {
	s.SetProperty("metadata", metadataProperty(d))
	s.SetProperty("apiVersion", *spec.StringProperty().WithDescription(apiVersionDescription))
	s.SetProperty("kind", *spec.StringProperty().WithDescription(kindDescription))
	addEmbeddedProperties(s, d)
	return s
}

// metadataProperty refers to ObjectMeta. OpenAPI v3 ignores the siblings of
// a $ref: there the reference is wrapped in allOf, as kube-apiserver
// wraps every reference that has a description.
func metadataProperty(d dialect) spec.Schema {
	ref := spec.RefSchema(d.objectMetaRef())
	if d == v2 {
		return *ref.WithDescription(metadataDescription)
	}
	return spec.Schema{SchemaProps: spec.SchemaProps{Description: metadataDescription, AllOf: []spec.Schema{*ref}}}
}

// addEmbeddedProperties gives the embedded resources below s their
// apiVersion, kind and metadata, and requires the first two. In v2, an
// embedded resource that preserves unknown fields is left alone: listing
// some fields would make kubectl refuse the others.
func addEmbeddedProperties(s *spec.Schema, d dialect) {
	if s == nil {
		return
	}
	for name, p := range s.Properties {
		addEmbeddedProperties(&p, d)
		s.Properties[name] = p
	}
	if s.Items != nil {
		addEmbeddedProperties(s.Items.Schema, d)
	}
	if s.AdditionalProperties != nil {
		addEmbeddedProperties(s.AdditionalProperties.Schema, d)
	}

	if d == v2 && hasExtension(s, preserveUnknownFields) {
		return
	}
	if !hasExtension(s, embeddedResource) {
		return
	}
	s.SetProperty("apiVersion", *spec.StringProperty().WithDescription(embeddedAPIVersionDescription))
	s.SetProperty("kind", *spec.StringProperty().WithDescription(embeddedKindDescription))
	s.SetProperty("metadata", metadataProperty(d))
	for _, name := range []string{"kind", "apiVersion"} {
		if !slices.Contains(s.Required, name) {
			s.Required = append(s.Required, name)
		}
	}
}

// withoutDefaults removes the defaults of a v2 schema, which has no
// allOf, anyOf, oneOf or not.
func withoutDefaults(s *spec.Schema) {
	if s == nil {
		return
	}
	s.Default = nil
	for name, p := range s.Properties {
		withoutDefaults(&p)
		s.Properties[name] = p
	}
	if s.Items != nil {
		withoutDefaults(s.Items.Schema)
	}
	if s.AdditionalProperties != nil {
		withoutDefaults(s.AdditionalProperties.Schema)
	}
}

// selectableFields is the x-kubernetes-selectable-fields extension of a
// version: the paths its lists can be filtered by, without the leading dot.
func selectableFields(v *apiextensionsv1.CustomResourceDefinitionVersion) []any {
	if len(v.SelectableFields) == 0 {
		return nil
	}
	fields := make([]any, len(v.SelectableFields))
	for i, f := range v.SelectableFields {
		fields[i] = map[string]any{"fieldPath": strings.TrimPrefix(f.JSONPath, ".")}
	}
	return fields
}

// Package openapi publishes the custom resources of CustomResourceDefinitions
// in the OpenAPI documents, as kube-apiserver does: ResourceSchema builds
// the definitions of the kind of a CRD version, for /openapi/v3 and for
// /openapi/v2, and Resource describes the version to the OpenAPI service
// (github.com/kapi-dev/kapi/pkg/openapi), which adds the list kind, the
// paths and the meta types.
//
// The definitions are kube-apiserver's (k8s.io/apiextensions-apiserver's
// controller/openapi/builder), built from the structural form of the
// schema:
//
//   - the schema as written, less what a structural schema cannot carry
//     (additionalProperties under allOf, anyOf, oneOf and not), with
//     x-kubernetes-int-or-string spelled out as anyOf integer or string;
//   - apiVersion, kind and metadata (a reference to ObjectMeta) added at
//     the root and in every x-kubernetes-embedded-resource;
//   - x-kubernetes-group-version-kind, and x-kubernetes-selectable-fields
//     for the version's selectable fields.
//
// Swagger 2.0, and kubectl's reading of it, cannot express as much: the v2
// definition has no allOf, anyOf, oneOf, not, nullable or default; a
// nullable or x-kubernetes-preserve-unknown-fields node loses its type
// and its properties or items (kubectl would refuse the values it does
// not list); and a schema that preserves unknown fields at its root is
// published as a bare object.
//
// A version without schema, or whose schema is not structural (only
// CustomResourceDefinitions of apiextensions.k8s.io/v1beta1 days can have
// one), is published as a bare object, which kubectl does not validate.
package openapi

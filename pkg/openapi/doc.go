// Package openapi builds and serves the OpenAPI documents of the API:
// /openapi/v2 (Swagger 2.0, JSON or protobuf) and /openapi/v3 (an index of
// one OpenAPI 3.0 document per group version), the documents kubectl
// explain, kubectl's validation and apply, and generated clients read.
//
// kube-apiserver generates its definitions at build time with openapi-gen.
// kapi has no generated code for them: it builds them from the Go types by
// reflection, following openapi-gen's rules (json tags, SwaggerDoc
// descriptions, patch struct tags, the types' OpenAPISchemaType methods).
// What only exists in comments (enum values, +listType and other markers,
// +optional and +required where they contradict omitempty) comes from a
// table generated from the source of k8s.io/api (see internal/apidocs).
// Paths, operation ids, parameters and responses follow kube-apiserver's
// installer. Given the resources kube-apiserver 1.37.1 serves, most
// documents are identical to its own to the byte (see reference_test.go).
//
// Custom resources have no Go type: a Resource of a CustomResourceDefinition
// carries the definitions of its kind (see pkg/apiextensions/openapi), and
// is described as kube-apiserver's CRD server describes it, which differs
// from its installer of built-in resources (see custom.go).
//
// The servers describe what they serve with Resource values and call
// Service.SetGroupVersion whenever a group version changes (or Update with
// everything). Documents are built when first asked for; the definitions
// of Go types are built once per process. Each group version is described
// once per change: its v3 document is built again, and its part of the v2
// document, which is put together from the cached encodings of the parts
// of all group versions (see v2parts.go). With a thousand CRDs installed,
// a CRD change costs what that CRD costs, plus the concatenation of the
// v2 document for the clients that ask for it.
package openapi

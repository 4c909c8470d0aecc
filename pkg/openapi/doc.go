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
// The server describes what it serves with Resource values and calls
// Service.Update whenever that changes. Documents are built when first
// asked for; the definitions of Go types are built once per process.
package openapi

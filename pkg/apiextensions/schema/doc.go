// Package schema holds the structural form of the OpenAPI v3 schema of a
// CustomResourceDefinition version: NewStructural turns the schema into
// the tree of types, properties, items and Kubernetes extensions that
// every other step walks, once per CRD version. Views of it (Unfold,
// StripValueValidations, StripNullable), its go-openapi form
// (ToKubeOpenAPI) and the resolution of field paths in it
// (ResolveFieldPath) are here too.
//
// What is done with the structural form lives in packages of its own, one
// idea each:
//
//   - schemavalidation checks a CRD's schema when the CRD is written
//     (structural or not, supported fields, list and map declarations,
//     defaults), as kube-apiserver does;
//   - pruning drops the fields of a custom resource that the schema does
//     not specify; defaulting applies the schema's defaults;
//   - objectmeta reads, coerces and validates the apiVersion, kind and
//     metadata of a custom resource and of its embedded resources;
//   - valuevalidation validates a custom resource against the schema's
//     value validations and list invariants, ratcheting on update;
//   - ratchet pairs the values of an updated object with their old
//     values, for value validation and for CEL rules alike.
//
// Custom resources are unstructured JSON as k8s.io/apimachinery decodes it:
// map[string]interface{}, []interface{}, string, int64, float64, bool, nil.
//
// Every error a client can see (field paths, field.Error types and details)
// follows kube-apiserver 1.37 exactly; the tests pin those messages.
package schema

// Package schema holds what the CustomResourceDefinition server does with
// the OpenAPI v3 schema of one CRD version:
//
//   - NewStructural turns the schema into its structural form, the tree of
//     types, properties, items and Kubernetes extensions that pruning,
//     defaulting and the CEL package walk. It is built once per CRD version.
//   - ValidateStructural and ValidateCustomResourceDefinitionSchema check a
//     schema the way kube-apiserver does when a CRD is written (everything
//     except the compilation of x-kubernetes-validations rules).
//   - Prune, PruneNonNullableNullsWithoutDefaults, Default and Coerce are the
//     steps the handler runs on every custom resource it decodes.
//   - Validator checks a custom resource against the schema's value
//     validations, list-type invariants and embedded resources.
//
// Custom resources are unstructured JSON as k8s.io/apimachinery decodes it:
// map[string]interface{}, []interface{}, string, int64, float64, bool, nil.
//
// Every error a client can see (field paths, field.Error types and details)
// follows kube-apiserver 1.37 exactly; the tests pin those messages.
package schema

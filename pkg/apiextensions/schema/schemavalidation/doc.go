// Package schemavalidation checks the OpenAPI v3 schema of a
// CustomResourceDefinition version when the CRD is written, the way
// kube-apiserver does: ValidateStructural says whether the schema is
// structural, and ValidateCustomResourceDefinitionSchema checks
// everything else (supported fields and formats, list and map
// declarations, x-kubernetes-validations declarations, and that defaults
// are pruned and valid), except the compilation of CEL rules, which
// package cel does. The Schema* predicates answer the questions the CRD
// controllers ask of a schema (non-structural, unpruned defaults, ...).
package schemavalidation

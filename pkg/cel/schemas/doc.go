// Package schemas types the values of Kubernetes objects for CEL from
// their OpenAPI schemas, as kube-apiserver 1.37 does: the CEL type of
// each schema (objects with properties are CEL objects whose fields are
// the properties, escaped; objects with additionalProperties are maps;
// arrays are lists; int-or-string is dyn; strings of format byte,
// duration, date and date-time are bytes, durations and timestamps),
// with the size bounds cost estimation needs, and a type provider that
// makes those object types known to the CEL checker.
//
// Two kinds of schema are typed: a CRD's structural schema (package
// apiextensions/cel, for x-kubernetes-validations rules) and the OpenAPI
// schemas of built-in and custom kinds (the type checking of admission
// policies). Both are read through the Schema interface.
package schemas

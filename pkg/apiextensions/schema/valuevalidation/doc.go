// Package valuevalidation checks a custom resource against the schema of
// its CRD version, on every create and update: the schema's value
// validations (types, formats, enums, patterns, bounds, required
// fields), the invariants of x-kubernetes-list-type set and map lists,
// and the metadata of embedded resources. A Validator is built once per
// CRD version; a fast check answers for the common valid object, and
// only an object it cannot vouch for goes through go-openapi's validator.
//
// On update, errors on values that did not change are ratcheted (package
// ratchet): they are dropped, so that tightening a schema does not make
// existing objects impossible to update. Below a value with no old
// counterpart, validation is plain.
package valuevalidation

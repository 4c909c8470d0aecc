// Package pruning drops the fields of a custom resource that the
// structural schema of its CRD version does not specify, as kube-apiserver
// does on every write and on reads from storage.
package pruning

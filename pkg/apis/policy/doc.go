// Package policy holds the validation of policy/v1 PodDisruptionBudgets.
//
// As in kube-apiserver, a PDB's metadata is checked only with the rules
// every object has (its name need only be a path segment), and on create
// only once its spec is valid.
package policy

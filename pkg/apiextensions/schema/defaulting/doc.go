// Package defaulting applies the default values of a structural schema to
// a custom resource, as kube-apiserver does on decoding and on reads from
// storage, and prunes the defaults of a schema themselves when a CRD is
// written (PruneDefaults). Surrounding places a value found at a path
// inside the smallest object around it, so that a default can be pruned
// or validated in context.
package defaulting

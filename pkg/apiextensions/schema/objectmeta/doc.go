// Package objectmeta handles the apiVersion, kind and metadata of custom
// resources and of the resources embedded in them
// (x-kubernetes-embedded-resource): reading and writing ObjectMeta,
// coercing what a client sent into valid metadata, and validating it, as
// kube-apiserver does. Those fields belong to the server, not to the
// CRD's schema.
package objectmeta

// Package apiextensions holds the validation of apiextensions.k8s.io/v1
// CustomResourceDefinition objects and small helpers the CRD controllers
// share (storage version, status conditions, API approval).
//
// kube-apiserver validates a CRD after decoding it into its internal
// version, and clients see the field paths of that internal form: a
// per-version field that is identical in every version is hoisted to the
// top level (spec.validation, spec.subresources,
// spec.additionalPrinterColumns, spec.selectableFields), and
// spec.conversion.webhook is flattened into spec.conversion.webhookClientConfig
// and spec.conversion.conversionReviewVersions. This package works on the
// v1 type directly but reports errors at those same paths, with the same
// types and messages, so that kubectl users see what kube-apiserver says.
package apiextensions

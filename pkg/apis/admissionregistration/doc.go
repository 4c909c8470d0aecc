// Package admissionregistration holds the defaulting and validation of
// the admissionregistration.k8s.io/v1 types kapi serves: the webhook
// configurations and the validating and mutating admission policies with
// their bindings, as kube-apiserver 1.37 has them (field paths, messages,
// and what an update tolerates of values the stored object already has).
package admissionregistration

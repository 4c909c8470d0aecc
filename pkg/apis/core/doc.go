// Package core holds the defaulting and validation of the core/v1 types
// kapi serves: Namespace, ConfigMap, Secret, ServiceAccount, Event, Pod,
// Binding, Service, Endpoints and Node.
//
// kapi has no internal types, so everything here works on the versioned
// types of k8s.io/api/core/v1. Where kube-apiserver gets a behaviour from
// the v1 -> internal -> v1 conversion round trip rather than from a
// defaulting function (Secret.stringData folding into data, the
// serviceAccount alias of serviceAccountName, the podIP/podIPs and
// podCIDR/podCIDRs pairs), the defaulters here perform the same
// normalisation, because defaulting is the one step every decoded object
// goes through.
//
// Validation functions return field errors with kube-apiserver's field
// paths and messages; they never modify their arguments.
package core

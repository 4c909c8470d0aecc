// Package apps holds the defaulting and validation of the apps/v1 types:
// Deployment, ReplicaSet, StatefulSet, DaemonSet and ControllerRevision,
// with the status and scale subresources of the workloads.
//
// The pod template of a workload is defaulted and validated by
// pkg/apis/core, as a template (pod-only defaults and checks are left to
// the pods created from it); a StatefulSet's claim templates are validated
// as the specs of claims, and as volumes of its pod template.
//
// kube-apiserver validates its internal types, which differ from apps/v1
// in a few places that clients see: the value of an error about a struct
// is rendered with Go field names (package gofields), and a DaemonSet's
// templateGeneration field is the annotation
// deprecated.daemonset.template.generation in apps/v1.
package apps

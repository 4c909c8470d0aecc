// Package apps holds the defaulting and validation of the apps/v1 types
// kapi serves: Deployment, with its status and scale subresources.
//
// The pod template of a Deployment is defaulted and validated by
// pkg/apis/core, as a template (pod-only defaults and checks are left to
// the pods created from it).
package apps

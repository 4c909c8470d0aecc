// Package node holds the validation of the node.k8s.io/v1 type kapi
// serves: RuntimeClass, which has no defaults.
package node

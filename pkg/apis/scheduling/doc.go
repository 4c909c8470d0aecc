// Package scheduling holds the defaulting and validation of the
// scheduling.k8s.io/v1 type kapi serves, PriorityClass, and the two
// system PriorityClasses every cluster has.
package scheduling

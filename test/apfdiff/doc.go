// Package apfdiff checks kapi's queue set (pkg/flowcontrol/fairqueuing)
// against kube-apiserver's own (k8s.io/apiserver's queueset), driven
// through the same random arrivals, finishes, cancellations, limit
// changes and clock steps: after every step, every queue must hold the
// same requests, in the same order, with the same seats in use and the
// same virtual start. Its own module keeps k8s.io/apiserver out of
// kapi's dependencies.
package apfdiff

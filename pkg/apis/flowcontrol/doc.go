// Package flowcontrol holds the defaults and the validation of the
// flowcontrol.apiserver.k8s.io/v1 types kapi serves, FlowSchema and
// PriorityLevelConfiguration, and the configuration objects every
// kube-apiserver puts in place at start-up: the mandatory ones, which
// nobody may change, and the suggested ones, which their owners may.
// What the objects mean to request handling (priority and fairness) is
// not here.
package flowcontrol

// Package events holds the validation and conversion of the
// events.k8s.io/v1 Event kapi serves. Such events are the same objects as
// core/v1 Events under other field names: kube-apiserver stores both as
// core/v1 Events, and validates both in that form, so error field paths
// use the core/v1 names (involvedObject, message, ...). This package does
// the same, through ToCoreEvent. Events have no defaults.
package events

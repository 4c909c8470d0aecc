// Package apiregistration holds what kapi knows of the
// apiregistration.k8s.io/v1 types it serves, APIService and its list:
// their registration in the scheme, their defaults and their validation,
// as kube-aggregator's. What an APIService means to request handling
// (which server answers a group version) is pkg/aggregator's.
package apiregistration

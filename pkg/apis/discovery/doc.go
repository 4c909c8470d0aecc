// Package discovery holds the defaulting and validation of the
// discovery.k8s.io/v1 type kapi serves: EndpointSlice.
//
// A port of a slice is defaulted to the empty name and TCP. Validation is
// kube-apiserver's: the address type is required and immutable, and
// decides how the addresses of each endpoint are checked (IPv4, IPv6 or
// an FQDN); endpoints, addresses, ports and topology labels have upper
// bounds. kube-apiserver places no rule of its own on the
// endpointslice.kubernetes.io/managed-by label; the label only tells its
// strategy that a controller wrote the slice, so that bad IPs of
// controller-written slices are not warned about.
package discovery

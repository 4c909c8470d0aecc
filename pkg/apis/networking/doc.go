// Package networking holds the defaulting and validation of the
// networking.k8s.io/v1 types kapi serves: Ingress, IngressClass,
// NetworkPolicy, ServiceCIDR and IPAddress, as kube-apiserver 1.37 has them
// (field paths, messages, and the ratcheting of values already stored).
package networking

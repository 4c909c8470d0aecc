// Package reconcilers keeps the endpoints of the default/kubernetes
// Service listing every live replica of the API server, as
// kube-apiserver's lease endpoint reconciler does
// (--endpoint-reconciler-type=lease, its default).
//
// Each replica holds a lease in etcd, the key <prefix>/masterleases/<ip>
// (attached to an etcd lease whose TTL is 15 seconds), and refreshes it
// every reconcile interval (10 seconds). kube-apiserver rewrites the key
// to refresh it; kapi keeps the etcd lease alive instead, which costs no
// revision. After refreshing its own key a
// replica lists all of them and, when the Endpoints default/kubernetes
// do not list exactly those addresses with the API port, rewrites them;
// the EndpointSlice default/kubernetes follows the Endpoints. A replica
// that stops removes its key and reconciles once more; one that dies
// stops refreshing its key, which etcd drops when the TTL runs out, and
// the next reconcile of a surviving replica removes its address.
//
// The value under each key is what kube-apiserver stores there, a
// protobuf Endpoints with one address, so that the two servers can share
// an etcd.
package reconcilers

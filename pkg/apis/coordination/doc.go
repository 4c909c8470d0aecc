// Package coordination holds the validation of the coordination.k8s.io/v1
// types kapi serves: Lease. Leases have no defaults.
package coordination

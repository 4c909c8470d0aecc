package gated

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/kapi-dev/kapi/pkg/features"
)

// The gates of node and claim fields that kube-apiserver 1.37 leaves off.
const (
	InPlacePodVerticalScalingSchedulerPreemption = "InPlacePodVerticalScalingSchedulerPreemption"
	CrossNamespaceVolumeDataSource               = "CrossNamespaceVolumeDataSource"
)

// NodeSpec drops the disabled fields of a node's spec; old is nil on
// create.
func NodeSpec(g features.Gates, spec, old *corev1.NodeSpec) {
	Drop(g, nodeSpecFeatures, spec, old)
}

var nodeSpecFeatures = []Feature[*corev1.NodeSpec]{
	{
		Gate: InPlacePodVerticalScalingSchedulerPreemption,
		Used: func(s *corev1.NodeSpec) bool { return s.PodPreemptionPolicy != nil },
		Drop: func(s *corev1.NodeSpec) { s.PodPreemptionPolicy = nil },
	},
}

// ClaimSpec drops the disabled fields of a PersistentVolumeClaim's spec;
// old is nil on create. It comes before the data sources are normalised.
func ClaimSpec(g features.Gates, spec, old *corev1.PersistentVolumeClaimSpec) {
	Drop(g, claimSpecFeatures, spec, old)
}

// ClaimStatus drops the disabled fields of a PersistentVolumeClaim's
// status, judged over the old status.
func ClaimStatus(g features.Gates, status, old *corev1.PersistentVolumeClaimStatus) {
	Drop(g, claimStatusFeatures, status, old)
}

var claimSpecFeatures = []Feature[*corev1.PersistentVolumeClaimSpec]{
	{
		// A data source in another namespace: the whole dataSourceRef
		// goes, unless the old claim had one.
		Gate: CrossNamespaceVolumeDataSource,
		Used: func(s *corev1.PersistentVolumeClaimSpec) bool { return s.DataSourceRef != nil },
		Drop: func(s *corev1.PersistentVolumeClaimSpec) {
			if r := s.DataSourceRef; r != nil && r.Namespace != nil && *r.Namespace != "" {
				s.DataSourceRef = nil
			}
		},
	},
}

var claimStatusFeatures = []Feature[*corev1.PersistentVolumeClaimStatus]{
	{
		Gate: CSIVolumeHealth,
		Used: func(s *corev1.PersistentVolumeClaimStatus) bool { return s.HealthStatus != nil },
		Drop: func(s *corev1.PersistentVolumeClaimStatus) { s.HealthStatus = nil },
	},
}

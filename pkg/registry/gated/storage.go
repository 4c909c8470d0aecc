package gated

import (
	storagev1 "k8s.io/api/storage/v1"

	"github.com/kapi-dev/kapi/pkg/features"
)

// CSINodeStatus drops the disabled fields of a CSINode's status, judged
// over the old status; old is nil on create.
func CSINodeStatus(g features.Gates, status, old *storagev1.CSINodeStatus) {
	Drop(g, csiNodeStatusFeatures, status, old)
}

var csiNodeStatusFeatures = []Feature[*storagev1.CSINodeStatus]{
	{
		Gate: CSIVolumeHealth,
		Used: func(s *storagev1.CSINodeStatus) bool { return len(s.StorageHealth) > 0 },
		Drop: func(s *storagev1.CSINodeStatus) { s.StorageHealth = nil },
	},
}

package gated

import (
	coordinationv1 "k8s.io/api/coordination/v1"

	"github.com/kapi-dev/kapi/pkg/features"
)

// CoordinatedLeaderElection serves a Lease's strategy and preferred
// holder; kube-apiserver 1.37 leaves it off.
const CoordinatedLeaderElection = "CoordinatedLeaderElection"

// LeaseSpec drops the disabled fields of a Lease's spec; old is nil on
// create. Each of the two fields is kept on update only if the old lease
// has it.
func LeaseSpec(g features.Gates, spec, old *coordinationv1.LeaseSpec) {
	Drop(g, leaseSpecFeatures, spec, old)
}

var leaseSpecFeatures = []Feature[*coordinationv1.LeaseSpec]{
	{
		Gate: CoordinatedLeaderElection,
		Used: func(s *coordinationv1.LeaseSpec) bool { return s.Strategy != nil },
		Drop: func(s *coordinationv1.LeaseSpec) { s.Strategy = nil },
	},
	{
		Gate: CoordinatedLeaderElection,
		Used: func(s *coordinationv1.LeaseSpec) bool { return s.PreferredHolder != nil },
		Drop: func(s *coordinationv1.LeaseSpec) { s.PreferredHolder = nil },
	},
}

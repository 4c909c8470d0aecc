package apps

import (
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kapi-dev/kapi/pkg/apis/core"
)

// Defaults of a Deployment's spec.
const (
	defaultReplicas                = 1
	defaultRevisionHistoryLimit    = 10
	defaultProgressDeadlineSeconds = 600
	defaultMaxUnavailable          = "25%"
	defaultMaxSurge                = "25%"
)

// SetDefaultsDeployment applies the defaults of a Deployment: one replica,
// a rolling update replacing a quarter of the pods at a time, ten old
// ReplicaSets kept, ten minutes to make progress; and the defaults of its
// pod template.
func SetDefaultsDeployment(d *appsv1.Deployment) {
	spec := &d.Spec
	if spec.Replicas == nil {
		spec.Replicas = int32Ptr(defaultReplicas)
	}
	strategy := &spec.Strategy
	if strategy.Type == "" {
		strategy.Type = appsv1.RollingUpdateDeploymentStrategyType
	}
	if strategy.Type == appsv1.RollingUpdateDeploymentStrategyType {
		if strategy.RollingUpdate == nil {
			strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{}
		}
		if strategy.RollingUpdate.MaxUnavailable == nil {
			maxUnavailable := intstr.FromString(defaultMaxUnavailable)
			strategy.RollingUpdate.MaxUnavailable = &maxUnavailable
		}
		if strategy.RollingUpdate.MaxSurge == nil {
			maxSurge := intstr.FromString(defaultMaxSurge)
			strategy.RollingUpdate.MaxSurge = &maxSurge
		}
	}
	if spec.RevisionHistoryLimit == nil {
		spec.RevisionHistoryLimit = int32Ptr(defaultRevisionHistoryLimit)
	}
	if spec.ProgressDeadlineSeconds == nil {
		spec.ProgressDeadlineSeconds = int32Ptr(defaultProgressDeadlineSeconds)
	}
	core.SetDefaultsPodTemplateSpec(&spec.Template)
}

func int32Ptr(v int32) *int32 { return &v }

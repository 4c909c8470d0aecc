package apps

import (
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
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

// SetDefaultsReplicaSet applies the defaults of a ReplicaSet: one replica,
// and the defaults of its pod template.
func SetDefaultsReplicaSet(rs *appsv1.ReplicaSet) {
	if rs.Spec.Replicas == nil {
		rs.Spec.Replicas = int32Ptr(defaultReplicas)
	}
	core.SetDefaultsPodTemplateSpec(&rs.Spec.Template)
}

// SetDefaultsDaemonSet applies the defaults of a DaemonSet: a rolling
// update replacing one node's pod at a time without surge, ten old
// revisions kept; and the defaults of its pod template.
//
// The annotation deprecated.daemonset.template.generation is kube-apiserver's
// templateGeneration, a field of its internal DaemonSet written out as an
// annotation whenever it encodes one: a DaemonSet always has it, "0" until
// its strategy counts, and the writer of an object owns it in managedFields.
func SetDefaultsDaemonSet(ds *appsv1.DaemonSet) {
	if _, ok := ds.Annotations[appsv1.DeprecatedTemplateGeneration]; !ok {
		annotations := make(map[string]string, len(ds.Annotations)+1)
		for k, v := range ds.Annotations {
			annotations[k] = v
		}
		annotations[appsv1.DeprecatedTemplateGeneration] = "0"
		ds.Annotations = annotations
	}
	spec := &ds.Spec
	strategy := &spec.UpdateStrategy
	if strategy.Type == "" {
		strategy.Type = appsv1.RollingUpdateDaemonSetStrategyType
	}
	if strategy.Type == appsv1.RollingUpdateDaemonSetStrategyType {
		if strategy.RollingUpdate == nil {
			strategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{}
		}
		if strategy.RollingUpdate.MaxUnavailable == nil {
			maxUnavailable := intstr.FromInt32(1)
			strategy.RollingUpdate.MaxUnavailable = &maxUnavailable
		}
		if strategy.RollingUpdate.MaxSurge == nil {
			maxSurge := intstr.FromInt32(0)
			strategy.RollingUpdate.MaxSurge = &maxSurge
		}
	}
	if spec.RevisionHistoryLimit == nil {
		spec.RevisionHistoryLimit = int32Ptr(defaultRevisionHistoryLimit)
	}
	core.SetDefaultsPodTemplateSpec(&spec.Template)
}

// SetDefaultsStatefulSet applies the defaults of a StatefulSet: one
// replica started in order, a rolling update of one pod at a time from the
// highest ordinal, claims kept when pods go, ten old revisions kept; and
// the defaults of its pod template and claim templates.
func SetDefaultsStatefulSet(ss *appsv1.StatefulSet) {
	spec := &ss.Spec
	if spec.PodManagementPolicy == "" {
		spec.PodManagementPolicy = appsv1.OrderedReadyPodManagement
	}
	strategy := &spec.UpdateStrategy
	if strategy.Type == "" {
		strategy.Type = appsv1.RollingUpdateStatefulSetStrategyType
		// Only a defaulted type gets rolling update parameters; an
		// explicit RollingUpdate without them keeps none.
		if strategy.RollingUpdate == nil {
			strategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{}
		}
	}
	if ru := strategy.RollingUpdate; strategy.Type == appsv1.RollingUpdateStatefulSetStrategyType && ru != nil {
		if ru.Partition == nil {
			ru.Partition = int32Ptr(0)
		}
		if ru.MaxUnavailable == nil {
			maxUnavailable := intstr.FromInt32(1)
			ru.MaxUnavailable = &maxUnavailable
		}
	}
	if spec.PersistentVolumeClaimRetentionPolicy == nil {
		spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{}
	}
	policy := spec.PersistentVolumeClaimRetentionPolicy
	if policy.WhenDeleted == "" {
		policy.WhenDeleted = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
	if policy.WhenScaled == "" {
		policy.WhenScaled = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
	if spec.Replicas == nil {
		spec.Replicas = int32Ptr(defaultReplicas)
	}
	if spec.RevisionHistoryLimit == nil {
		spec.RevisionHistoryLimit = int32Ptr(defaultRevisionHistoryLimit)
	}
	core.SetDefaultsPodTemplateSpec(&spec.Template)
	for i := range spec.VolumeClaimTemplates {
		setDefaultsClaimTemplate(&spec.VolumeClaimTemplates[i])
	}
}

// setDefaultsClaimTemplate applies the defaults of a PersistentVolumeClaim
// to a StatefulSet's claim template: a filesystem volume, a Pending phase.
// It also gives the template its apiVersion and kind, which kube-apiserver
// writes whenever it encodes a StatefulSet (clients older than 1.17 relied
// on them); protobuf does not keep them, so they are set on every decode,
// from requests and from storage alike.
func setDefaultsClaimTemplate(pvc *v1.PersistentVolumeClaim) {
	pvc.APIVersion, pvc.Kind = "v1", "PersistentVolumeClaim"
	if pvc.Spec.VolumeMode == nil {
		mode := v1.PersistentVolumeFilesystem
		pvc.Spec.VolumeMode = &mode
	}
	if pvc.Status.Phase == "" {
		pvc.Status.Phase = v1.ClaimPending
	}
}

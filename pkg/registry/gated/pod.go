package gated

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/kapi-dev/kapi/pkg/features"
)

// The gates of pod fields that kube-apiserver 1.37 leaves off.
const (
	EmptyDirVolumeMode          = "EmptyDirVolumeMode"
	VolumeBindMountOptions      = "VolumeBindMountOptions"
	AtomicWriteVolumeUserFields = "AtomicWriteVolumeUserFields"
	GenericWorkload             = "GenericWorkload"
	EvictionRequestAPI          = "EvictionRequestAPI"
	GRPCContainerProbeTLS       = "GRPCContainerProbeTLS"
	H2CContainerProbe           = "H2CContainerProbe"
	ContainerStopSignals        = "ContainerStopSignals"
	ImageVolumeWithDigest       = "ImageVolumeWithDigest"
	DRANodeAllocatableResources = "DRANodeAllocatableResources"
	CSIVolumeHealth             = "CSIVolumeHealth"
)

// Pod drops the disabled fields of a pod's spec and status; old is nil on
// create. Each pod write calls it: create, update, /status,
// /ephemeralcontainers and /resize.
func Pod(g features.Gates, pod, old *corev1.Pod) {
	if old == nil {
		PodSpec(g, &pod.Spec, nil)
		PodStatus(g, &pod.Status, nil)
		return
	}
	PodSpec(g, &pod.Spec, &old.Spec)
	PodStatus(g, &pod.Status, &old.Status)
}

// PodTemplate drops the disabled fields of a pod template, judged over
// the old template (nil on create, or when the old object had none).
func PodTemplate(g features.Gates, t, old *corev1.PodTemplateSpec) {
	if t == nil {
		return
	}
	var oldSpec *corev1.PodSpec
	if old != nil {
		oldSpec = &old.Spec
	}
	PodSpec(g, &t.Spec, oldSpec)
}

// Template is the DropDisabled of a generic.SpecStrategy whose kind has
// the pod template that template points to (nil if it has none): every
// workload (Deployment, ReplicaSet, StatefulSet, DaemonSet,
// ReplicationController, PodTemplate) states its template with it.
func Template[O any](g features.Gates, template func(*O) *corev1.PodTemplateSpec) func(obj, old *O) {
	return func(obj, old *O) {
		var oldTemplate *corev1.PodTemplateSpec
		if old != nil {
			oldTemplate = template(old)
		}
		PodTemplate(g, template(obj), oldTemplate)
	}
}

// PodSpec drops the disabled fields of a pod spec; old is nil on create.
func PodSpec(g features.Gates, spec, old *corev1.PodSpec) {
	Drop(g, podSpecFeatures, spec, old)
}

// PodStatus drops the disabled fields of a pod status, judged over the
// old status; old is nil on create.
func PodStatus(g features.Gates, status, old *corev1.PodStatus) {
	Drop(g, podStatusFeatures, status, old)
}

var podSpecFeatures = []Feature[*corev1.PodSpec]{
	{
		Gate: EmptyDirVolumeMode,
		Used: func(s *corev1.PodSpec) bool {
			for _, v := range s.Volumes {
				if v.EmptyDir != nil && v.EmptyDir.Mode != nil {
					return true
				}
			}
			return false
		},
		Drop: func(s *corev1.PodSpec) {
			for _, v := range s.Volumes {
				if v.EmptyDir != nil {
					v.EmptyDir.Mode = nil
				}
			}
		},
	},
	{
		Gate: VolumeBindMountOptions,
		Used: func(s *corev1.PodSpec) bool {
			return anyContainer(s, func(c *corev1.Container) bool {
				for _, m := range c.VolumeMounts {
					if len(m.BindMountOptions) > 0 {
						return true
					}
				}
				return false
			})
		},
		Drop: func(s *corev1.PodSpec) {
			eachContainer(s, func(c *corev1.Container) {
				for i := range c.VolumeMounts {
					c.VolumeMounts[i].BindMountOptions = nil
				}
			})
		},
	},
	{
		// The owner of the files of secret, configMap, downwardAPI and
		// projected volumes.
		Gate: AtomicWriteVolumeUserFields,
		Used: func(s *corev1.PodSpec) bool {
			used := false
			eachVolumeUser(s, func(u **int64) { used = used || *u != nil })
			return used
		},
		Drop: func(s *corev1.PodSpec) { eachVolumeUser(s, func(u **int64) { *u = nil }) },
	},
	{
		Gate: GenericWorkload,
		Used: func(s *corev1.PodSpec) bool { return s.SchedulingGroup != nil },
		Drop: func(s *corev1.PodSpec) { s.SchedulingGroup = nil },
	},
	{
		Gate: EvictionRequestAPI,
		Used: func(s *corev1.PodSpec) bool { return len(s.EvictionResponders) > 0 },
		Drop: func(s *corev1.PodSpec) { s.EvictionResponders = nil },
	},
	{
		// Any mode, Plaintext included, counts as used.
		Gate: GRPCContainerProbeTLS,
		Used: func(s *corev1.PodSpec) bool {
			return anyContainer(s, func(c *corev1.Container) bool {
				for _, p := range probes(c) {
					if p.GRPC != nil && p.GRPC.Mode != nil {
						return true
					}
				}
				return false
			})
		},
		Drop: func(s *corev1.PodSpec) {
			eachContainer(s, func(c *corev1.Container) {
				for _, p := range probes(c) {
					if p.GRPC != nil {
						p.GRPC.Mode = nil
					}
				}
			})
		},
	},
	{
		// The protocol of HTTP probes and of HTTP lifecycle hooks.
		Gate: H2CContainerProbe,
		Used: func(s *corev1.PodSpec) bool {
			return anyContainer(s, func(c *corev1.Container) bool {
				for _, h := range httpGets(c) {
					if h.Protocol != nil {
						return true
					}
				}
				return false
			})
		},
		Drop: func(s *corev1.PodSpec) {
			eachContainer(s, func(c *corev1.Container) {
				for _, h := range httpGets(c) {
					h.Protocol = nil
				}
			})
		},
	},
	{
		// A lifecycle left empty by the drop goes too.
		Gate: ContainerStopSignals,
		Used: func(s *corev1.PodSpec) bool {
			return anyContainer(s, func(c *corev1.Container) bool {
				return c.Lifecycle != nil && c.Lifecycle.StopSignal != nil
			})
		},
		Drop: func(s *corev1.PodSpec) {
			eachContainer(s, func(c *corev1.Container) {
				if c.Lifecycle == nil || c.Lifecycle.StopSignal == nil {
					return
				}
				c.Lifecycle.StopSignal = nil
				if *c.Lifecycle == (corev1.Lifecycle{}) {
					c.Lifecycle = nil
				}
			})
		},
	},
}

var podStatusFeatures = []Feature[*corev1.PodStatus]{
	{
		// The digest of image volumes, in the containers' mount statuses.
		Gate: ImageVolumeWithDigest,
		Used: func(s *corev1.PodStatus) bool {
			used := false
			eachMountStatus(s, func(m *corev1.VolumeMountStatus) { used = used || m.VolumeStatus != nil })
			return used
		},
		Drop: func(s *corev1.PodStatus) {
			eachMountStatus(s, func(m *corev1.VolumeMountStatus) { m.VolumeStatus = nil })
		},
	},
	{
		Gate: DRANodeAllocatableResources,
		Used: func(s *corev1.PodStatus) bool { return len(s.NodeAllocatableResourceClaimStatuses) > 0 },
		Drop: func(s *corev1.PodStatus) { s.NodeAllocatableResourceClaimStatuses = nil },
	},
	{
		Gate: CSIVolumeHealth,
		Used: func(s *corev1.PodStatus) bool { return len(s.VolumeHealth) > 0 },
		Drop: func(s *corev1.PodStatus) { s.VolumeHealth = nil },
	},
}

// eachContainer calls f with every container of the spec: init, regular
// and ephemeral (whose common part is a Container in all but name).
func eachContainer(s *corev1.PodSpec, f func(*corev1.Container)) {
	for i := range s.InitContainers {
		f(&s.InitContainers[i])
	}
	for i := range s.Containers {
		f(&s.Containers[i])
	}
	for i := range s.EphemeralContainers {
		f((*corev1.Container)(&s.EphemeralContainers[i].EphemeralContainerCommon))
	}
}

// anyContainer reports whether f holds for a container of the spec.
func anyContainer(s *corev1.PodSpec, f func(*corev1.Container) bool) bool {
	found := false
	eachContainer(s, func(c *corev1.Container) { found = found || f(c) })
	return found
}

// probes are the container's probes that are set.
func probes(c *corev1.Container) []*corev1.Probe {
	var out []*corev1.Probe
	for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
		if p != nil {
			out = append(out, p)
		}
	}
	return out
}

// httpGets are the HTTP actions of the container's probes and lifecycle
// hooks.
func httpGets(c *corev1.Container) []*corev1.HTTPGetAction {
	var out []*corev1.HTTPGetAction
	for _, p := range probes(c) {
		if p.HTTPGet != nil {
			out = append(out, p.HTTPGet)
		}
	}
	if l := c.Lifecycle; l != nil {
		for _, h := range []*corev1.LifecycleHandler{l.PostStart, l.PreStop} {
			if h != nil && h.HTTPGet != nil {
				out = append(out, h.HTTPGet)
			}
		}
	}
	return out
}

// eachVolumeUser calls f with every user field of the spec's volumes:
// the default users of secret, configMap, downwardAPI and projected
// volumes, the users of their items, and those of projected service
// account tokens, cluster trust bundles and pod certificates.
func eachVolumeUser(s *corev1.PodSpec, f func(**int64)) {
	keyToPaths := func(items []corev1.KeyToPath) {
		for i := range items {
			f(&items[i].User)
		}
	}
	downwardFiles := func(items []corev1.DownwardAPIVolumeFile) {
		for i := range items {
			f(&items[i].User)
		}
	}
	for _, v := range s.Volumes {
		if v.Secret != nil {
			f(&v.Secret.DefaultUser)
			keyToPaths(v.Secret.Items)
		}
		if v.ConfigMap != nil {
			f(&v.ConfigMap.DefaultUser)
			keyToPaths(v.ConfigMap.Items)
		}
		if v.DownwardAPI != nil {
			f(&v.DownwardAPI.DefaultUser)
			downwardFiles(v.DownwardAPI.Items)
		}
		if p := v.Projected; p != nil {
			f(&p.DefaultUser)
			for _, src := range p.Sources {
				if src.Secret != nil {
					keyToPaths(src.Secret.Items)
				}
				if src.ConfigMap != nil {
					keyToPaths(src.ConfigMap.Items)
				}
				if src.DownwardAPI != nil {
					downwardFiles(src.DownwardAPI.Items)
				}
				if src.ServiceAccountToken != nil {
					f(&src.ServiceAccountToken.User)
				}
				if src.ClusterTrustBundle != nil {
					f(&src.ClusterTrustBundle.User)
				}
				if src.PodCertificate != nil {
					f(&src.PodCertificate.User)
				}
			}
		}
	}
}

// eachMountStatus calls f with the status of every volume mount of every
// container.
func eachMountStatus(s *corev1.PodStatus, f func(*corev1.VolumeMountStatus)) {
	for _, statuses := range [][]corev1.ContainerStatus{s.InitContainerStatuses, s.ContainerStatuses, s.EphemeralContainerStatuses} {
		for i := range statuses {
			for j := range statuses[i].VolumeMounts {
				f(&statuses[i].VolumeMounts[j])
			}
		}
	}
}

package gated

import (
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/pkg/features"
)

// Every gate asked about is one kube-apiserver 1.37.1 knows, off by
// default and not locked: with default flags each of these fields is
// dropped, and --feature-gates can serve it.
func TestGatesAreKnownAndOffByDefault(t *testing.T) {
	for _, name := range Gates() {
		spec, ok := features.Lookup(name)
		switch {
		case !ok:
			t.Errorf("%s is not a gate of kube-apiserver", name)
		case spec.Default:
			t.Errorf("%s is on by default; its fields are not dropped by default", name)
		case spec.Locked:
			t.Errorf("%s is locked", name)
		}
	}
}

// gatedCase is one feature: set gives an object the feature's fields, has
// tells whether the fields are there.
type gatedCase[T any] struct {
	name string
	gate string
	// needs are the gates the gate depends on.
	needs string
	// set writes the fields into an object; which picks where (a
	// container, a volume), so that the old object can use the feature
	// elsewhere than the new one.
	set  func(obj T, which int)
	has  func(obj T) bool
	make func() T
	drop func(g features.Gates, obj, old T)
}

// checkFeature states kube-apiserver's rule for one feature: with the
// gate off the fields are dropped on create and on an update of an object
// that did not use the feature, kept on an update of one that did (even
// where the old object had them elsewhere, for features judged over the
// whole object), and always kept with the gate on.
func checkFeature[T any](t *testing.T, c gatedCase[T], nilOld T) {
	t.Run(c.name, func(t *testing.T) {
		on, err := features.Parse([]string{c.gate + "=true", c.needs})
		if err != nil {
			t.Fatal(err)
		}
		fresh := func(which int) T {
			obj := c.make()
			c.set(obj, which)
			return obj
		}

		obj := fresh(0)
		c.drop(features.Gates{}, obj, nilOld)
		if c.has(obj) {
			t.Error("kept on create with the gate off")
		}

		obj = fresh(0)
		c.drop(features.Gates{}, obj, c.make())
		if c.has(obj) {
			t.Error("kept on an update of an object without the feature")
		}

		obj = fresh(0)
		c.drop(features.Gates{}, obj, fresh(1))
		if !c.has(obj) {
			t.Error("dropped on an update of an object that uses the feature")
		}

		obj = fresh(0)
		c.drop(on, obj, nilOld)
		if !c.has(obj) {
			t.Errorf("dropped on create with %s on", c.gate)
		}
	})
}

// newPodSpec has two containers, an init container, an ephemeral
// container and two volumes of each kind a feature touches, so that set
// can put a feature in different places.
func newPodSpec() *corev1.PodSpec {
	container := func(name string) corev1.Container {
		return corev1.Container{
			Name:           name,
			VolumeMounts:   []corev1.VolumeMount{{Name: "scratch", MountPath: "/s"}},
			LivenessProbe:  &corev1.Probe{ProbeHandler: corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: 9000}}},
			ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/"}}},
			Lifecycle: &corev1.Lifecycle{
				PreStop: &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/stop"}},
			},
		}
	}
	return &corev1.PodSpec{
		InitContainers:      []corev1.Container{container("init")},
		Containers:          []corev1.Container{container("a"), container("b")},
		EphemeralContainers: []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon(container("debug"))}},
		Volumes: []corev1.Volume{
			{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
			{Name: "scratch2", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
			{Name: "conf", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{Items: []corev1.KeyToPath{{Key: "k", Path: "k"}}}}},
			{Name: "projected", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
				{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token"}},
				{PodCertificate: &corev1.PodCertificateProjection{}},
			}}}},
		},
	}
}

// containerAt is the which-th container of every kind: 0 the first
// regular one, 1 the init container, 2 the ephemeral one.
func containerAt(s *corev1.PodSpec, which int) *corev1.Container {
	switch which {
	case 0:
		return &s.Containers[0]
	case 1:
		return &s.InitContainers[0]
	default:
		return (*corev1.Container)(&s.EphemeralContainers[0].EphemeralContainerCommon)
	}
}

func TestPodSpecFeatures(t *testing.T) {
	anyC := anyContainer
	cases := []gatedCase[*corev1.PodSpec]{
		{
			name: "emptyDir mode", gate: EmptyDirVolumeMode,
			set: func(s *corev1.PodSpec, w int) { s.Volumes[w].EmptyDir.Mode = ptr.To[int32](0o750) },
			has: func(s *corev1.PodSpec) bool { return s.Volumes[0].EmptyDir.Mode != nil },
		},
		{
			name: "bind mount options", gate: VolumeBindMountOptions,
			set: func(s *corev1.PodSpec, w int) {
				containerAt(s, w).VolumeMounts[0].BindMountOptions = []string{string(corev1.BindMountOptionNoExec)}
			},
			has: func(s *corev1.PodSpec) bool { return s.Containers[0].VolumeMounts[0].BindMountOptions != nil },
		},
		{
			name: "volume users", gate: AtomicWriteVolumeUserFields,
			set: func(s *corev1.PodSpec, w int) {
				if w == 0 {
					s.Volumes[2].ConfigMap.DefaultUser = ptr.To[int64](1000)
					s.Volumes[2].ConfigMap.Items[0].User = ptr.To[int64](1001)
					s.Volumes[3].Projected.Sources[0].ServiceAccountToken.User = ptr.To[int64](1002)
					s.Volumes[3].Projected.Sources[1].PodCertificate.User = ptr.To[int64](1003)
					return
				}
				s.Volumes[3].Projected.DefaultUser = ptr.To[int64](1000)
			},
			has: func(s *corev1.PodSpec) bool {
				p := s.Volumes[3].Projected.Sources
				return s.Volumes[2].ConfigMap.DefaultUser != nil && s.Volumes[2].ConfigMap.Items[0].User != nil &&
					p[0].ServiceAccountToken.User != nil && p[1].PodCertificate.User != nil
			},
		},
		{
			name: "scheduling group", gate: GenericWorkload,
			set: func(s *corev1.PodSpec, _ int) {
				s.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: ptr.To("g")}
			},
			has: func(s *corev1.PodSpec) bool { return s.SchedulingGroup != nil },
		},
		{
			name: "eviction responders", gate: EvictionRequestAPI,
			set: func(s *corev1.PodSpec, _ int) {
				s.EvictionResponders = []corev1.EvictionResponder{{Name: "example.com/r", Priority: ptr.To[int32](1)}}
			},
			has: func(s *corev1.PodSpec) bool { return s.EvictionResponders != nil },
		},
		{
			name: "gRPC probe mode", gate: GRPCContainerProbeTLS,
			set: func(s *corev1.PodSpec, w int) {
				containerAt(s, w).LivenessProbe.GRPC.Mode = ptr.To(corev1.GRPCProbeModePlaintext)
			},
			has: func(s *corev1.PodSpec) bool { return s.Containers[0].LivenessProbe.GRPC.Mode != nil },
		},
		{
			name: "HTTP protocol", gate: H2CContainerProbe,
			set: func(s *corev1.PodSpec, w int) {
				c := containerAt(s, w)
				c.ReadinessProbe.HTTPGet.Protocol = ptr.To(corev1.HTTPProtocolHTTP2)
				if w == 0 {
					c.Lifecycle.PreStop.HTTPGet.Protocol = ptr.To(corev1.HTTPProtocolHTTP1)
				}
			},
			has: func(s *corev1.PodSpec) bool {
				c := s.Containers[0]
				return c.ReadinessProbe.HTTPGet.Protocol != nil && c.Lifecycle.PreStop.HTTPGet.Protocol != nil
			},
		},
		{
			name: "stop signal", gate: ContainerStopSignals,
			set: func(s *corev1.PodSpec, w int) {
				containerAt(s, w).Lifecycle.StopSignal = ptr.To(corev1.SIGUSR1)
			},
			has: func(s *corev1.PodSpec) bool {
				return anyC(s, func(c *corev1.Container) bool { return c.Lifecycle.StopSignal != nil })
			},
		},
	}
	for _, c := range cases {
		c.make = newPodSpec
		c.drop = PodSpec
		checkFeature(t, c, nil)
	}
}

// A lifecycle that held only a stop signal goes with it, as in
// kube-apiserver; one with hooks stays.
func TestStopSignalDropLeavesNoEmptyLifecycle(t *testing.T) {
	s := &corev1.PodSpec{Containers: []corev1.Container{
		{Name: "a", Lifecycle: &corev1.Lifecycle{StopSignal: ptr.To(corev1.SIGTERM)}},
		{Name: "b", Lifecycle: &corev1.Lifecycle{StopSignal: ptr.To(corev1.SIGTERM), PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 1}}}},
	}}
	PodSpec(features.Gates{}, s, nil)
	if s.Containers[0].Lifecycle != nil {
		t.Errorf("lifecycle of a: %+v, want none", s.Containers[0].Lifecycle)
	}
	if l := s.Containers[1].Lifecycle; l == nil || l.StopSignal != nil || l.PreStop == nil {
		t.Errorf("lifecycle of b: %+v, want the preStop hook only", l)
	}
}

// Features are judged one by one: an old pod that uses one keeps that one
// and loses the others.
func TestFeaturesAreJudgedApart(t *testing.T) {
	old := newPodSpec()
	old.Volumes[0].EmptyDir.Mode = ptr.To[int32](0o700)
	s := newPodSpec()
	s.Volumes[0].EmptyDir.Mode = ptr.To[int32](0o750)
	s.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: ptr.To("g")}
	PodSpec(features.Gates{}, s, old)
	if s.Volumes[0].EmptyDir.Mode == nil {
		t.Error("emptyDir mode dropped though the old pod used it")
	}
	if s.SchedulingGroup != nil {
		t.Error("scheduling group kept though the old pod had none")
	}
}

func newPodStatus() *corev1.PodStatus {
	status := func(name string) corev1.ContainerStatus {
		return corev1.ContainerStatus{Name: name, VolumeMounts: []corev1.VolumeMountStatus{{Name: "img"}}}
	}
	return &corev1.PodStatus{
		ContainerStatuses:          []corev1.ContainerStatus{status("a")},
		InitContainerStatuses:      []corev1.ContainerStatus{status("init")},
		EphemeralContainerStatuses: []corev1.ContainerStatus{status("debug")},
	}
}

func TestPodStatusFeatures(t *testing.T) {
	cases := []gatedCase[*corev1.PodStatus]{
		{
			name: "image volume digest", gate: ImageVolumeWithDigest,
			set: func(s *corev1.PodStatus, w int) {
				statuses := [][]corev1.ContainerStatus{s.ContainerStatuses, s.InitContainerStatuses, s.EphemeralContainerStatuses}[w]
				statuses[0].VolumeMounts[0].VolumeStatus = &corev1.VolumeStatus{Image: &corev1.ImageVolumeStatus{ImageRef: "sha256:1"}}
			},
			has: func(s *corev1.PodStatus) bool { return s.ContainerStatuses[0].VolumeMounts[0].VolumeStatus != nil },
		},
		{
			name: "node-allocatable claim statuses", gate: DRANodeAllocatableResources,
			set: func(s *corev1.PodStatus, _ int) {
				s.NodeAllocatableResourceClaimStatuses = []corev1.NodeAllocatableResourceClaimStatus{{ResourceClaimName: "c"}}
			},
			has: func(s *corev1.PodStatus) bool { return s.NodeAllocatableResourceClaimStatuses != nil },
		},
		{
			name: "volume health", gate: CSIVolumeHealth,
			set: func(s *corev1.PodStatus, _ int) { s.VolumeHealth = []corev1.PodVolumeHealth{{Name: "v"}} },
			has: func(s *corev1.PodStatus) bool { return s.VolumeHealth != nil },
		},
	}
	for _, c := range cases {
		c.make = newPodStatus
		c.drop = PodStatus
		checkFeature(t, c, nil)
	}
}

// A pod template judges over the old template; a template that is nil
// (a ReplicationController may have none) is left alone.
func TestPodTemplate(t *testing.T) {
	PodTemplate(features.Gates{}, nil, nil)

	old := &corev1.PodTemplateSpec{Spec: *newPodSpec()}
	old.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{}
	tmpl := &corev1.PodTemplateSpec{Spec: *newPodSpec()}
	tmpl.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: ptr.To("g")}
	tmpl.Spec.EvictionResponders = []corev1.EvictionResponder{{Name: "r"}}
	Template(features.Gates{}, func(t *corev1.PodTemplateSpec) *corev1.PodTemplateSpec { return t })(tmpl, old)
	if tmpl.Spec.SchedulingGroup == nil || tmpl.Spec.EvictionResponders != nil {
		t.Errorf("template: scheduling group %v, eviction responders %v; want the first kept, the second dropped",
			tmpl.Spec.SchedulingGroup, tmpl.Spec.EvictionResponders)
	}
}

func TestOtherKinds(t *testing.T) {
	checkFeature(t, gatedCase[*corev1.NodeSpec]{
		name: "node podPreemptionPolicy", gate: InPlacePodVerticalScalingSchedulerPreemption,
		make: func() *corev1.NodeSpec { return &corev1.NodeSpec{} },
		set: func(s *corev1.NodeSpec, _ int) {
			s.PodPreemptionPolicy = &corev1.NodePodPreemptionPolicy{DisableResizePreemption: []string{"a"}}
		},
		has:  func(s *corev1.NodeSpec) bool { return s.PodPreemptionPolicy != nil },
		drop: NodeSpec,
	}, nil)
	checkFeature(t, gatedCase[*corev1.PersistentVolumeClaimSpec]{
		name: "claim cross-namespace data source", gate: CrossNamespaceVolumeDataSource,
		make: func() *corev1.PersistentVolumeClaimSpec { return &corev1.PersistentVolumeClaimSpec{} },
		set: func(s *corev1.PersistentVolumeClaimSpec, w int) {
			// The old claim needs only a dataSourceRef, in any namespace.
			s.DataSourceRef = &corev1.TypedObjectReference{Kind: "PersistentVolumeClaim", Name: "src"}
			if w == 0 {
				s.DataSourceRef.Namespace = ptr.To("other")
			}
		},
		has:  func(s *corev1.PersistentVolumeClaimSpec) bool { return s.DataSourceRef != nil },
		drop: ClaimSpec,
	}, nil)
	checkFeature(t, gatedCase[*corev1.PersistentVolumeClaimStatus]{
		name: "claim health status", gate: CSIVolumeHealth,
		make: func() *corev1.PersistentVolumeClaimStatus { return &corev1.PersistentVolumeClaimStatus{} },
		set: func(s *corev1.PersistentVolumeClaimStatus, _ int) {
			s.HealthStatus = &corev1.VolumeHealthStatus{}
		},
		has:  func(s *corev1.PersistentVolumeClaimStatus) bool { return s.HealthStatus != nil },
		drop: ClaimStatus,
	}, nil)
	checkFeature(t, gatedCase[*batchv1.JobSpec]{
		name: "job scheduling", gate: WorkloadWithJob, needs: GenericWorkload + "=true",
		make: func() *batchv1.JobSpec { return &batchv1.JobSpec{} },
		set: func(s *batchv1.JobSpec, _ int) {
			s.Scheduling = &batchv1.JobSchedulingConfiguration{}
		},
		has:  func(s *batchv1.JobSpec) bool { return s.Scheduling != nil },
		drop: JobSpec,
	}, nil)
	checkFeature(t, gatedCase[*coordinationv1.LeaseSpec]{
		name: "lease strategy", gate: CoordinatedLeaderElection,
		make: func() *coordinationv1.LeaseSpec { return &coordinationv1.LeaseSpec{} },
		set: func(s *coordinationv1.LeaseSpec, _ int) {
			s.Strategy = ptr.To(coordinationv1.OldestEmulationVersion)
		},
		has:  func(s *coordinationv1.LeaseSpec) bool { return s.Strategy != nil },
		drop: LeaseSpec,
	}, nil)
	checkFeature(t, gatedCase[*coordinationv1.LeaseSpec]{
		name: "lease preferred holder", gate: CoordinatedLeaderElection,
		make: func() *coordinationv1.LeaseSpec { return &coordinationv1.LeaseSpec{} },
		set:  func(s *coordinationv1.LeaseSpec, _ int) { s.PreferredHolder = ptr.To("b") },
		has:  func(s *coordinationv1.LeaseSpec) bool { return s.PreferredHolder != nil },
		drop: LeaseSpec,
	}, nil)
	checkFeature(t, gatedCase[*storagev1.CSINodeStatus]{
		name: "CSINode storage health", gate: CSIVolumeHealth,
		make: func() *storagev1.CSINodeStatus { return &storagev1.CSINodeStatus{} },
		set: func(s *storagev1.CSINodeStatus, _ int) {
			s.StorageHealth = []storagev1.StorageHealth{{Name: "a"}}
		},
		has:  func(s *storagev1.CSINodeStatus) bool { return s.StorageHealth != nil },
		drop: CSINodeStatus,
	}, nil)
}

// A Lease judges its two fields apart: an old lease with a strategy
// keeps a new strategy but not a new preferred holder.
func TestLeaseFieldsAreJudgedApart(t *testing.T) {
	old := &coordinationv1.LeaseSpec{Strategy: ptr.To(coordinationv1.OldestEmulationVersion)}
	s := &coordinationv1.LeaseSpec{Strategy: ptr.To(coordinationv1.OldestEmulationVersion), PreferredHolder: ptr.To("b")}
	LeaseSpec(features.Gates{}, s, old)
	if s.Strategy == nil || s.PreferredHolder != nil {
		t.Errorf("strategy %v, preferred holder %v: want the strategy only", s.Strategy, s.PreferredHolder)
	}
}

// With H2CContainerProbe on, a pod's HTTP probes and hooks without a
// protocol default to HTTP1, as kube-apiserver defaults Pods; a pod
// template is left as written, and with the gate off nothing is set.
func TestDefaulterGivesPodsTheHTTPProtocol(t *testing.T) {
	on, err := features.Parse([]string{H2CContainerProbe + "=true"})
	if err != nil {
		t.Fatal(err)
	}
	none := runtimeDefaulterFunc(func(runtime.Object) {})

	pod := &corev1.Pod{Spec: *newPodSpec()}
	Defaulter(none, on).Default(pod)
	eachContainer(&pod.Spec, func(c *corev1.Container) {
		for _, h := range httpGets(c) {
			if h.Protocol == nil || *h.Protocol != corev1.HTTPProtocolHTTP1 {
				t.Errorf("container %s: protocol %v, want HTTP1", c.Name, h.Protocol)
			}
		}
	})

	template := &corev1.PodTemplate{Template: corev1.PodTemplateSpec{Spec: *newPodSpec()}}
	Defaulter(none, on).Default(template)
	if p := template.Template.Spec.Containers[0].ReadinessProbe.HTTPGet.Protocol; p != nil {
		t.Errorf("pod template: protocol %v, want none", *p)
	}

	pod = &corev1.Pod{Spec: *newPodSpec()}
	Defaulter(none, features.Gates{}).Default(pod)
	if p := pod.Spec.Containers[0].ReadinessProbe.HTTPGet.Protocol; p != nil {
		t.Errorf("gate off: protocol %v, want none", *p)
	}
}

type runtimeDefaulterFunc func(runtime.Object)

func (f runtimeDefaulterFunc) Default(obj runtime.Object) { f(obj) }

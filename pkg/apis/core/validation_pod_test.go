package core_test

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
)

// validPod returns a defaulted pod that passes validation.
func validPod() *v1.Pod {
	pod := &v1.Pod{
		ObjectMeta: meta("web"),
		Spec: v1.PodSpec{
			ServiceAccountName: "default",
			Containers: []v1.Container{{
				Name:         "web",
				Image:        "nginx:1.27",
				Ports:        []v1.ContainerPort{{Name: "http", ContainerPort: 80}},
				VolumeMounts: []v1.VolumeMount{{Name: "data", MountPath: "/data"}},
			}},
			Volumes: []v1.Volume{{Name: "data", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}}},
		},
	}
	core.SetDefaultsPod(pod)
	return pod
}

func TestValidatePod(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*v1.Pod)
		want   []string
	}{
		{name: "valid", modify: func(*v1.Pod) {}},
		{
			name:   "at least one container",
			modify: func(p *v1.Pod) { p.Spec.Containers = nil },
			want:   []string{"spec.containers: Required value"},
		},
		{
			name: "container names are unique across regular and init containers",
			modify: func(p *v1.Pod) {
				p.Spec.InitContainers = []v1.Container{p.Spec.Containers[0]}
				p.Spec.InitContainers[0].Ports = nil
			},
			want: []string{`spec.initContainers[0].name: Duplicate value: "web"`},
		},
		{
			name:   "images are required",
			modify: func(p *v1.Pod) { p.Spec.Containers[0].Image = "" },
			want:   []string{"spec.containers[0].image: Required value"},
		},
		{
			name:   "pod images have no padding",
			modify: func(p *v1.Pod) { p.Spec.Containers[0].Image = "nginx " },
			want:   []string{`spec.containers[0].image: Invalid value: "nginx ": must not have leading or trailing whitespace`},
		},
		{
			name:   "mounts refer to volumes",
			modify: func(p *v1.Pod) { p.Spec.Containers[0].VolumeMounts[0].Name = "missing" },
			want:   []string{`spec.containers[0].volumeMounts[0].name: Not found: "missing"`},
		},
		{
			name: "volume names are unique",
			modify: func(p *v1.Pod) {
				p.Spec.Volumes = append(p.Spec.Volumes, p.Spec.Volumes[0])
			},
			want: []string{`spec.volumes[1].name: Duplicate value: "data"`},
		},
		{
			name:   "a volume has one source",
			modify: func(p *v1.Pod) { p.Spec.Volumes[0].HostPath = &v1.HostPathVolumeSource{Path: "/tmp"} },
			want: []string{
				"spec.volumes[0].hostPath: Forbidden: may not specify more than 1 volume type",
				// The volume is invalid, so the mount refers to nothing.
				`spec.containers[0].volumeMounts[0].name: Not found: "data"`,
			},
		},
		{
			name: "sources are validated",
			modify: func(p *v1.Pod) {
				p.Spec.Volumes[0].VolumeSource = v1.VolumeSource{Secret: &v1.SecretVolumeSource{DefaultMode: ptr(int32(0o1000))}}
			},
			want: []string{
				"spec.volumes[0].secret.secretName: Required value",
				"spec.volumes[0].secret.defaultMode: Invalid value: 512: must be a number between 0 and 0777 (octal), both inclusive",
				`spec.containers[0].volumeMounts[0].name: Not found: "data"`,
			},
		},
		{
			name: "requests within limits",
			modify: func(p *v1.Pod) {
				p.Spec.Containers[0].Resources = v1.ResourceRequirements{
					Limits:   v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")},
					Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("2")},
				}
			},
			want: []string{`spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1`},
		},
		{
			name: "extended resources cannot be overcommitted",
			modify: func(p *v1.Pod) {
				p.Spec.Containers[0].Resources = v1.ResourceRequirements{
					Limits:   v1.ResourceList{"example.com/gpu": resource.MustParse("2")},
					Requests: v1.ResourceList{"example.com/gpu": resource.MustParse("1")},
				}
			},
			want: []string{`spec.containers[0].resources.requests: Invalid value: "1": must be equal to example.com/gpu limit of 2`},
		},
		{
			name: "unknown unprefixed resources",
			modify: func(p *v1.Pod) {
				p.Spec.Containers[0].Resources.Limits = v1.ResourceList{"gpu": resource.MustParse("1")}
			},
			want: []string{
				`spec.containers[0].resources.limits[gpu]: Invalid value: "gpu": must be a standard resource type or fully qualified`,
				`spec.containers[0].resources.limits[gpu]: Invalid value: "gpu": must be a standard resource for containers`,
			},
		},
		{
			name: "environment variable names",
			modify: func(p *v1.Pod) {
				p.Spec.Containers[0].Env = []v1.EnvVar{{Name: "1.weird-but_OK"}, {Name: "A=B"}, {Name: ""}}
			},
			want: []string{
				`spec.containers[0].env[1].name: Invalid value: "A=B": a valid environment variable name must consist only of printable ASCII characters other than '='`,
				"spec.containers[0].env[2].name: Required value",
			},
		},
		{
			name: "downward API fields",
			modify: func(p *v1.Pod) {
				p.Spec.Containers[0].Env = []v1.EnvVar{
					{Name: "NODE", ValueFrom: &v1.EnvVarSource{FieldRef: &v1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "spec.nodeName"}}},
					{Name: "TEAM", ValueFrom: &v1.EnvVarSource{FieldRef: &v1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.labels['team']"}}},
					{Name: "PHASE", ValueFrom: &v1.EnvVarSource{FieldRef: &v1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "status.phase"}}},
				}
			},
			want: []string{`spec.containers[0].env[2].valueFrom.fieldRef.fieldPath: Unsupported value: "status.phase": supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"`},
		},
		{
			name: "a value or a source, not both",
			modify: func(p *v1.Pod) {
				p.Spec.Containers[0].Env = []v1.EnvVar{{Name: "X", Value: "x", ValueFrom: &v1.EnvVarSource{SecretKeyRef: &v1.SecretKeySelector{LocalObjectReference: v1.LocalObjectReference{Name: "s"}, Key: "k"}}}}
			},
			want: []string{`spec.containers[0].env[0].valueFrom: Invalid value: "": may not be specified when ` + "`value`" + ` is not empty`},
		},
		{
			name: "container ports",
			modify: func(p *v1.Pod) {
				p.Spec.Containers[0].Ports = append(p.Spec.Containers[0].Ports, v1.ContainerPort{Name: "http", ContainerPort: 70000, Protocol: "HTTP"})
			},
			want: []string{
				`spec.containers[0].ports[1].name: Duplicate value: "http"`,
				"spec.containers[0].ports[1].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
				`spec.containers[0].ports[1].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"`,
			},
		},
		{
			name: "host ports do not clash",
			modify: func(p *v1.Pod) {
				second := v1.Container{
					Name: "sidecar", Image: "proxy", ImagePullPolicy: v1.PullAlways, TerminationMessagePolicy: v1.TerminationMessageReadFile,
					Ports: []v1.ContainerPort{{ContainerPort: 8080, HostPort: 80, Protocol: v1.ProtocolTCP}},
				}
				p.Spec.Containers[0].Ports[0].HostPort = 80
				p.Spec.Containers = append(p.Spec.Containers, second)
			},
			want: []string{"spec.containers[1].ports[0].hostPort: Duplicate value: \"TCP//80\""},
		},
		{
			name: "probes need exactly one handler",
			modify: func(p *v1.Pod) {
				p.Spec.Containers[0].LivenessProbe = &v1.Probe{
					ProbeHandler:     v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"true"}}, TCPSocket: &v1.TCPSocketAction{Port: intstr.FromInt32(80)}},
					SuccessThreshold: 2,
				}
			},
			want: []string{
				"spec.containers[0].livenessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type",
				"spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1",
			},
		},
		{
			name: "init containers without restartPolicy Always have no probes",
			modify: func(p *v1.Pod) {
				p.Spec.InitContainers = []v1.Container{{
					Name: "init", Image: "busybox", ImagePullPolicy: v1.PullAlways, TerminationMessagePolicy: v1.TerminationMessageReadFile,
					ReadinessProbe: &v1.Probe{ProbeHandler: v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"true"}}}},
				}}
			},
			want: []string{"spec.initContainers[0].readinessProbe: Forbidden: may not be set for init containers without restartPolicy=Always"},
		},
		{
			name: "sidecars may have probes",
			modify: func(p *v1.Pod) {
				p.Spec.InitContainers = []v1.Container{{
					Name: "proxy", Image: "envoy", ImagePullPolicy: v1.PullAlways, TerminationMessagePolicy: v1.TerminationMessageReadFile,
					RestartPolicy:  ptr(v1.ContainerRestartPolicyAlways),
					ReadinessProbe: &v1.Probe{ProbeHandler: v1.ProbeHandler{Exec: &v1.ExecAction{Command: []string{"true"}}}, TimeoutSeconds: 1, PeriodSeconds: 1, SuccessThreshold: 1, FailureThreshold: 1},
				}}
			},
		},
		{
			name:   "restart policy",
			modify: func(p *v1.Pod) { p.Spec.RestartPolicy = "" },
			want:   []string{"spec.restartPolicy: Required value"},
		},
		{
			name:   "DNS policy",
			modify: func(p *v1.Pod) { p.Spec.DNSPolicy = "Google" },
			want:   []string{`spec.dnsPolicy: Unsupported value: "Google": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"`},
		},
		{
			name:   "DNS policy None needs a configuration",
			modify: func(p *v1.Pod) { p.Spec.DNSPolicy = v1.DNSNone },
			want:   []string{"spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None"},
		},
		{
			name: "a projected token needs a service account",
			modify: func(p *v1.Pod) {
				p.Spec.ServiceAccountName = ""
				p.Spec.DeprecatedServiceAccount = ""
				addTokenVolume(p)
			},
			want: []string{"spec.volumes[1].projected.sources[0].serviceAccountToken: Forbidden: must not be specified when serviceAccountName is not set"},
		},
		{
			name: "host-network pods use their container ports on the host",
			modify: func(p *v1.Pod) {
				p.Spec.HostNetwork = true
				p.Spec.Containers[0].Ports[0].HostPort = 8080
			},
			want: []string{"spec.containers[0].ports[0].hostPort: Invalid value: 8080: must match `containerPort` when `hostNetwork` is true"},
		},
		{
			name: "tolerations",
			modify: func(p *v1.Pod) {
				p.Spec.Tolerations = []v1.Toleration{{Operator: v1.TolerationOpEqual, Value: "x"}, {Key: "k", Effect: v1.TaintEffectNoSchedule, TolerationSeconds: ptr(int64(5))}}
			},
			want: []string{
				"spec.tolerations[0].operator: Invalid value: \"Equal\": operator must be Exists when `key` is empty, which means \"match all values and all keys\"",
				"spec.tolerations[1].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set",
			},
		},
		{
			name: "node affinity",
			modify: func(p *v1.Pod) {
				p.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{}}}
			},
			want: []string{"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Required value: must have at least one node selector term"},
		},
		{
			name:   "ephemeral containers are added through their subresource only",
			modify: func(p *v1.Pod) { p.Spec.EphemeralContainers = []v1.EphemeralContainer{debugContainer()} },
			want:   []string{"spec.ephemeralContainers: Forbidden: cannot be set on create"},
		},
		{
			name:   "a mirror pod is bound to its node",
			modify: func(p *v1.Pod) { p.Annotations = map[string]string{v1.MirrorPodAnnotationKey: "hash"} },
			want:   []string{`metadata.annotations[kubernetes.io/config.mirror]: Invalid value: "hash": must set spec.nodeName if mirror pod annotation is set`},
		},
		{
			name: "a preStop sleep ends within the grace period",
			modify: func(p *v1.Pod) {
				p.Spec.Containers[0].Lifecycle = &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Sleep: &v1.SleepAction{Seconds: 60}}}
			},
			want: []string{"spec.containers[0].lifecycle.preStop.sleep: Invalid value: 60: must be non-negative and less than terminationGracePeriodSeconds (30)"},
		},
		{
			name: "an unmasked /proc needs a user namespace",
			modify: func(p *v1.Pod) {
				p.Spec.Containers[0].SecurityContext = &v1.SecurityContext{ProcMount: ptr(v1.UnmaskedProcMount)}
			},
			want: []string{`spec.containers[0].securityContext.procMount: Invalid value: "Unmasked": ` + "`hostUsers` must be false to use `Unmasked`"},
		},
		{
			name: "a localhost seccomp profile names its file",
			modify: func(p *v1.Pod) {
				p.Spec.SecurityContext.SeccompProfile = &v1.SeccompProfile{Type: v1.SeccompProfileTypeLocalhost}
			},
			want: []string{"spec.securityContext.seccompProfile.localhostProfile: Required value: must be set when seccomp type is Localhost"},
		},
		{
			name: "network sysctls would change the host's",
			modify: func(p *v1.Pod) {
				p.Spec.HostNetwork = true
				p.Spec.Containers[0].Ports = nil
				p.Spec.SecurityContext.Sysctls = []v1.Sysctl{{Name: "net.core.somaxconn", Value: "1024"}}
			},
			want: []string{`spec.securityContext.sysctls[0].name: Invalid value: "net.core.somaxconn": may not be specified when 'hostNetwork' is true`},
		},
		{
			name: "pod affinity needs a topology",
			modify: func(p *v1.Pod) {
				p.Spec.Affinity = &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
					LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
				}}}}
			},
			want: []string{
				"spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Required value: can not be empty",
				`spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid value: "": name part must be non-empty`,
				`spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid value: "": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
			},
		},
		{
			name: "topology spread constraints",
			modify: func(p *v1.Pod) {
				p.Spec.TopologySpreadConstraints = []v1.TopologySpreadConstraint{
					{MaxSkew: 0, TopologyKey: "zone", WhenUnsatisfiable: v1.DoNotSchedule},
					{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: v1.DoNotSchedule},
				}
			},
			want: []string{
				"spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero",
				`spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}: Duplicate value: "{zone, DoNotSchedule}"`,
			},
		},
		{
			name:   "the deletion cost is a 32-bit integer",
			modify: func(p *v1.Pod) { p.Annotations = map[string]string{v1.PodDeletionCost: "1e10"} },
			want:   []string{`metadata.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: "1e10": must be a 32bit integer`},
		},
		{
			name:   "the termination grace period is required",
			modify: func(p *v1.Pod) { p.Spec.TerminationGracePeriodSeconds = nil },
			want:   []string{"spec.terminationGracePeriodSeconds: Required value"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pod := validPod()
			tc.modify(pod)
			assertErrors(t, core.ValidatePod(pod), tc.want)
		})
	}
}

func addTokenVolume(p *v1.Pod) {
	p.Spec.Volumes = append(p.Spec.Volumes, v1.Volume{Name: "token", VolumeSource: v1.VolumeSource{Projected: &v1.ProjectedVolumeSource{
		Sources: []v1.VolumeProjection{{ServiceAccountToken: &v1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: ptr(int64(3600))}}},
	}}})
}

func debugContainer() v1.EphemeralContainer {
	return v1.EphemeralContainer{EphemeralContainerCommon: v1.EphemeralContainerCommon{
		Name: "debug", Image: "busybox", ImagePullPolicy: v1.PullAlways, TerminationMessagePolicy: v1.TerminationMessageReadFile,
	}}
}

func TestValidatePodTemplateSpec(t *testing.T) {
	template := &v1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
		Spec: v1.PodSpec{
			HostNetwork: true,
			// Templates may hold a placeholder image and leave host ports
			// to be defaulted on their pods.
			Containers: []v1.Container{{Name: "web", Image: " ", Ports: []v1.ContainerPort{{ContainerPort: 80}}}},
		},
	}
	core.SetDefaultsPodTemplateSpec(template)
	assertErrors(t, core.ValidatePodTemplateSpec(template, field.NewPath("template")), nil)

	template.Spec.EphemeralContainers = []v1.EphemeralContainer{debugContainer()}
	assertErrors(t, core.ValidatePodTemplateSpec(template, field.NewPath("template")), []string{
		"template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template",
	})
}

// updatableFields is the list kube-apiserver gives in the error of a
// forbidden pod update.
const updatableFields = "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"

func TestValidatePodUpdate(t *testing.T) {
	tests := []struct {
		name   string
		old    func(*v1.Pod)
		modify func(*v1.Pod)
		want   []string
		// wantForbiddenSpec is set when the update changes a field no
		// update may change; the diff in that message is not compared.
		wantForbiddenSpec bool
	}{
		{name: "new image", modify: func(p *v1.Pod) { p.Spec.Containers[0].Image = "nginx:1.28" }},
		{name: "labels", modify: func(p *v1.Pod) { p.Labels = map[string]string{"tier": "front"} }},
		{
			name:   "an added toleration",
			modify: func(p *v1.Pod) { p.Spec.Tolerations = []v1.Toleration{{Key: "k", Operator: v1.TolerationOpExists}} },
		},
		{name: "a shorter deadline", old: func(p *v1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr(int64(100)) }, modify: func(p *v1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr(int64(50)) }},
		{
			name:   "a longer deadline",
			old:    func(p *v1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr(int64(100)) },
			modify: func(p *v1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr(int64(200)) },
			want:   []string{"spec.activeDeadlineSeconds: Invalid value: 200: must be less than or equal to previous value"},
		},
		{
			name: "containers cannot be added",
			modify: func(p *v1.Pod) {
				p.Spec.Containers = append(p.Spec.Containers, v1.Container{
					Name: "b", Image: "b", ImagePullPolicy: v1.PullAlways, TerminationMessagePolicy: v1.TerminationMessageReadFile,
				})
			},
			want: []string{"spec.containers: Forbidden: pod updates may not add or remove containers"},
		},
		{
			name:   "images cannot be removed",
			modify: func(p *v1.Pod) { p.Spec.Containers[0].Image = "" },
			want:   []string{"spec.containers[0].image: Required value", "spec.containers[0].image: Required value"},
		},
		{
			name:              "anything else is forbidden",
			modify:            func(p *v1.Pod) { p.Spec.Containers[0].Ports[0].ContainerPort = 8080 },
			wantForbiddenSpec: true,
		},
		{
			// Resizes go through the resize subresource.
			name: "resources are not updated in place",
			modify: func(p *v1.Pod) {
				p.Spec.Containers[0].Resources.Limits = v1.ResourceList{v1.ResourceMemory: resource.MustParse("1Gi")}
			},
			wantForbiddenSpec: true,
		},
		{
			name:   "gated pods may gain node selectors",
			old:    func(p *v1.Pod) { p.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "example.com/wait"}} },
			modify: func(p *v1.Pod) { p.Spec.NodeSelector = map[string]string{"zone": "a"} },
		},
		{
			// Pods created before the check keep working.
			name:   "an invalid deletion cost that was already there",
			old:    func(p *v1.Pod) { p.Annotations = map[string]string{v1.PodDeletionCost: "high"} },
			modify: func(p *v1.Pod) { p.Labels = map[string]string{"tier": "front"} },
		},
		{
			name:   "scheduling gates can only be removed",
			modify: func(p *v1.Pod) { p.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "example.com/wait"}} },
			want:   []string{"spec.schedulingGates[0].name: Forbidden: only deletion is allowed, but found new scheduling gate 'example.com/wait'"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			oldPod := validPod()
			if tc.old != nil {
				tc.old(oldPod)
			}
			newPod := oldPod.DeepCopy()
			tc.modify(newPod)
			errs := core.ValidatePodUpdate(newPod, oldPod)
			if tc.wantForbiddenSpec {
				const prefix = "spec: Forbidden: pod updates may not change fields other than " + updatableFields + "\n"
				if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), prefix) {
					t.Fatalf("got %v, want one error starting with %q", errs, prefix)
				}
				return
			}
			assertErrors(t, errs, tc.want)
		})
	}
}

func TestValidatePodStatusUpdate(t *testing.T) {
	terminated := v1.ContainerState{Terminated: &v1.ContainerStateTerminated{ExitCode: 0}}
	running := v1.ContainerState{Running: &v1.ContainerStateRunning{}}
	tests := []struct {
		name          string
		restartPolicy v1.RestartPolicy
		old, status   v1.PodStatus
		modify        func(*v1.Pod)
		want          []string
	}{
		{
			name:   "running",
			status: v1.PodStatus{Phase: v1.PodRunning, PodIP: "10.0.0.1", PodIPs: []v1.PodIP{{IP: "10.0.0.1"}}},
		},
		{
			name:   "the node is set by binding, not by status",
			modify: func(p *v1.Pod) { p.Spec.NodeName = "node-1" },
			want:   []string{"status.nodeName: Forbidden: may not be changed directly"},
		},
		{
			name:   "the QoS class never changes",
			old:    v1.PodStatus{QOSClass: v1.PodQOSBestEffort},
			status: v1.PodStatus{QOSClass: v1.PodQOSGuaranteed},
			want:   []string{`status.qosClass: Invalid value: "Guaranteed": field is immutable`},
		},
		{
			name:          "a container that is done stays done when pods do not restart",
			restartPolicy: v1.RestartPolicyNever,
			old:           v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{{Name: "web", State: terminated}}},
			status:        v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{{Name: "web", State: running}}},
			want:          []string{"status.containerStatuses[0].state: Forbidden: may not be transitioned to non-terminated state"},
		},
		{
			name:          "restarting pods restart containers",
			restartPolicy: v1.RestartPolicyAlways,
			old:           v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{{Name: "web", State: terminated}}},
			status:        v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{{Name: "web", State: running}}},
		},
		{
			name:   "one pod IP per family",
			status: v1.PodStatus{PodIP: "10.0.0.1", PodIPs: []v1.PodIP{{IP: "10.0.0.1"}, {IP: "10.0.0.2"}}},
			want:   []string{`status.podIPs: Invalid value: [{"ip":"10.0.0.1"},{"ip":"10.0.0.2"}]: may specify no more than one IP for each IP family`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			oldPod := validPod()
			if tc.restartPolicy != "" {
				oldPod.Spec.RestartPolicy = tc.restartPolicy
			}
			oldPod.Status = tc.old
			newPod := oldPod.DeepCopy()
			newPod.Status = tc.status
			if tc.modify != nil {
				tc.modify(newPod)
			}
			assertErrors(t, core.ValidatePodStatusUpdate(newPod, oldPod), tc.want)
		})
	}
}

func TestValidatePodVolumes(t *testing.T) {
	tests := []struct {
		name   string
		source v1.VolumeSource
		want   []string
	}{
		{name: "configMap", source: v1.VolumeSource{ConfigMap: &v1.ConfigMapVolumeSource{LocalObjectReference: v1.LocalObjectReference{Name: "cfg"}, Items: []v1.KeyToPath{{Key: "a", Path: "conf/a"}}}}},
		{
			name:   "item paths stay inside the volume",
			source: v1.VolumeSource{ConfigMap: &v1.ConfigMapVolumeSource{LocalObjectReference: v1.LocalObjectReference{Name: "cfg"}, Items: []v1.KeyToPath{{Key: "a", Path: "../a"}, {Key: "b", Path: "/b"}, {Key: "c", Path: "..c"}}}},
			want: []string{
				`spec.volumes[0].configMap.items[0].path: Invalid value: "../a": must not contain '..'`,
				`spec.volumes[0].configMap.items[1].path: Invalid value: "/b": must be a relative path`,
				`spec.volumes[0].configMap.items[2].path: Invalid value: "..c": must not start with '..'`,
			},
		},
		{
			name:   "host paths have a known type",
			source: v1.VolumeSource{HostPath: &v1.HostPathVolumeSource{Path: "/var/log", Type: ptr(v1.HostPathType("Pipe"))}},
			want:   []string{`spec.volumes[0].hostPath.type: Unsupported value: "Pipe": supported values: "", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"`},
		},
		{
			name:   "a claim needs a name",
			source: v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{}},
			want:   []string{"spec.volumes[0].persistentVolumeClaim.claimName: Required value"},
		},
		{
			name: "projected sources share one directory",
			source: v1.VolumeSource{Projected: &v1.ProjectedVolumeSource{Sources: []v1.VolumeProjection{
				{ConfigMap: &v1.ConfigMapProjection{LocalObjectReference: v1.LocalObjectReference{Name: "a"}, Items: []v1.KeyToPath{{Key: "k", Path: "same"}}}},
				{Secret: &v1.SecretProjection{LocalObjectReference: v1.LocalObjectReference{Name: "b"}, Items: []v1.KeyToPath{{Key: "k", Path: "same"}}}},
			}}},
			want: []string{`spec.volumes[0].projected: Invalid value: "b": conflicting duplicate paths`},
		},
		{
			name: "tokens live at least ten minutes",
			source: v1.VolumeSource{Projected: &v1.ProjectedVolumeSource{Sources: []v1.VolumeProjection{
				{ServiceAccountToken: &v1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: ptr(int64(60))}},
			}}},
			want: []string{"spec.volumes[0].projected.sources[0].serviceAccountToken.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes"},
		},
		{
			name:   "downward API files refer to a field",
			source: v1.VolumeSource{DownwardAPI: &v1.DownwardAPIVolumeSource{Items: []v1.DownwardAPIVolumeFile{{Path: "labels"}}}},
			want:   []string{"spec.volumes[0].downwardAPI: Required value: one of fieldRef and resourceFieldRef is required"},
		},
		{
			name: "ephemeral volumes need a claim template",
			source: v1.VolumeSource{Ephemeral: &v1.EphemeralVolumeSource{VolumeClaimTemplate: &v1.PersistentVolumeClaimTemplate{
				ObjectMeta: metav1.ObjectMeta{Name: "fixed"},
				Spec: v1.PersistentVolumeClaimSpec{
					AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
					Resources:   v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")}},
				},
			}}},
			want: []string{"spec.volumes[0].ephemeral.volumeClaimTemplate.metadata.name: Forbidden: cannot be set"},
		},
		{
			name:   "CSI drivers are DNS names",
			source: v1.VolumeSource{CSI: &v1.CSIVolumeSource{Driver: "CSI_driver"}},
			want:   []string{`spec.volumes[0].csi.driver: Invalid value: "CSI_driver": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pod := validPod()
			pod.Spec.Volumes[0].VolumeSource = tc.source
			core.SetDefaultsPodSpec(&pod.Spec)
			errs := core.ValidatePod(pod)
			// A mount of an invalid volume is reported too; that is not
			// what these cases are about.
			if len(tc.want) > 0 {
				tc.want = append(tc.want, `spec.containers[0].volumeMounts[0].name: Not found: "data"`)
			}
			assertErrors(t, errs, tc.want)
		})
	}
}

package core

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestPullPolicyForImage(t *testing.T) {
	digest := "sha256:" + strings.Repeat("a", 64)
	tests := []struct {
		image string
		want  v1.PullPolicy
	}{
		// No tag and no digest means "latest", which may change.
		{"nginx", v1.PullAlways},
		{"nginx:latest", v1.PullAlways},
		{"library/nginx", v1.PullAlways},
		{"registry.example.com:5000/team/app", v1.PullAlways},
		{"localhost/app:latest", v1.PullAlways},
		{"[::1]:5000/app", v1.PullAlways},
		{"nginx:latest@" + digest, v1.PullAlways},
		// A fixed tag or a digest pins the image.
		{"nginx:1.27", v1.PullIfNotPresent},
		{"registry.example.com:5000/team/app:v1", v1.PullIfNotPresent},
		{"nginx@" + digest, v1.PullIfNotPresent},
		{"nginx:1.27@" + digest, v1.PullIfNotPresent},
		// References that do not parse are not assumed to float.
		{"", v1.PullIfNotPresent},
		{"Nginx", v1.PullIfNotPresent},
		{"nginx:", v1.PullIfNotPresent},
		{"nginx:latest@sha256:abc", v1.PullIfNotPresent},
		{"nginx:latest@md5:" + strings.Repeat("a", 32), v1.PullIfNotPresent},
		{strings.Repeat("a", 64), v1.PullIfNotPresent},
		{"a___b", v1.PullIfNotPresent},
		{strings.Repeat("a", 256), v1.PullIfNotPresent},
	}
	for _, tc := range tests {
		if got := pullPolicyForImage(tc.image); got != tc.want {
			t.Errorf("pullPolicyForImage(%q) = %s, want %s", tc.image, got, tc.want)
		}
	}
}

func TestSetDefaultsSecret(t *testing.T) {
	tests := []struct {
		name string
		in   v1.Secret
		want v1.Secret
	}{
		{
			name: "stringData is folded into data and wins",
			in: v1.Secret{
				Data:       map[string][]byte{"user": []byte("old"), "keep": []byte("k")},
				StringData: map[string]string{"user": "new"},
			},
			want: v1.Secret{
				Data: map[string][]byte{"user": []byte("new"), "keep": []byte("k")},
				Type: v1.SecretTypeOpaque,
			},
		},
		{
			name: "an explicit type is kept",
			in:   v1.Secret{Type: v1.SecretTypeTLS},
			want: v1.Secret{Type: v1.SecretTypeTLS},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			SetDefaultsSecret(&tc.in)
			if diff := cmp.Diff(tc.want, tc.in); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestSetDefaultsNamespace(t *testing.T) {
	named := &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a", Labels: map[string]string{"owner": "a"}}}
	SetDefaultsNamespace(named)
	if diff := cmp.Diff(map[string]string{"owner": "a", "kubernetes.io/metadata.name": "team-a"}, named.Labels); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
	if named.Status.Phase != v1.NamespaceActive {
		t.Errorf("phase = %q, want Active", named.Status.Phase)
	}

	generated := &v1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "team-"}}
	SetDefaultsNamespace(generated)
	if generated.Labels != nil {
		t.Errorf("a namespace without a name yet got labels %v", generated.Labels)
	}
}

func TestSetDefaultsPodOnlyDefaults(t *testing.T) {
	pod := &v1.Pod{Spec: v1.PodSpec{
		HostNetwork: true,
		Containers: []v1.Container{{
			Name:  "c",
			Ports: []v1.ContainerPort{{ContainerPort: 8080}, {ContainerPort: 9090, HostPort: 9091}},
			Resources: v1.ResourceRequirements{
				Limits:   v1.ResourceList{v1.ResourceCPU: resource.MustParse("1"), v1.ResourceMemory: resource.MustParse("1Gi")},
				Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("500m")},
			},
		}},
	}}
	SetDefaultsPod(pod)
	c := pod.Spec.Containers[0]

	// Requests default to limits, without overriding what is set.
	wantRequests := v1.ResourceList{v1.ResourceCPU: resource.MustParse("500m"), v1.ResourceMemory: resource.MustParse("1Gi")}
	if !equalResources(c.Resources.Requests, wantRequests) {
		t.Errorf("requests = %v, want %v", c.Resources.Requests, wantRequests)
	}
	// Host-network pods use their container ports on the host.
	if c.Ports[0].HostPort != 8080 || c.Ports[1].HostPort != 9091 {
		t.Errorf("host ports = %d, %d; want 8080 and the explicit 9091", c.Ports[0].HostPort, c.Ports[1].HostPort)
	}
	if pod.Spec.EnableServiceLinks == nil || !*pod.Spec.EnableServiceLinks {
		t.Error("service links are not enabled")
	}

	// None of that happens to templates.
	template := &v1.PodTemplateSpec{Spec: v1.PodSpec{Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Limits: v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")}}}}}}
	SetDefaultsPodTemplateSpec(template)
	if template.Spec.Containers[0].Resources.Requests != nil || template.Spec.EnableServiceLinks != nil {
		t.Error("pod-only defaults were applied to a template")
	}
}

func TestSetDefaultsPodSpecServiceAccountAlias(t *testing.T) {
	tests := []struct {
		name, serviceAccountName, deprecated string
		want                                 string
	}{
		{name: "neither", want: ""},
		{name: "only the new field", serviceAccountName: "builder", want: "builder"},
		{name: "only the deprecated alias", deprecated: "builder", want: "builder"},
		{name: "the new field wins", serviceAccountName: "builder", deprecated: "old", want: "builder"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := &v1.PodSpec{ServiceAccountName: tc.serviceAccountName, DeprecatedServiceAccount: tc.deprecated}
			SetDefaultsPodSpec(spec)
			if spec.ServiceAccountName != tc.want || spec.DeprecatedServiceAccount != tc.want {
				t.Errorf("serviceAccountName %q, serviceAccount %q; want both %q", spec.ServiceAccountName, spec.DeprecatedServiceAccount, tc.want)
			}
		})
	}
}

func TestSetDefaultsPodStatusIPs(t *testing.T) {
	tests := []struct {
		name       string
		in         v1.PodStatus
		wantPodIP  string
		wantPodIPs []v1.PodIP
	}{
		{name: "only podIP", in: v1.PodStatus{PodIP: "10.0.0.1"}, wantPodIP: "10.0.0.1", wantPodIPs: []v1.PodIP{{IP: "10.0.0.1"}}},
		{name: "only podIPs", in: v1.PodStatus{PodIPs: []v1.PodIP{{IP: "10.0.0.1"}, {IP: "fd00::1"}}}, wantPodIP: "10.0.0.1", wantPodIPs: []v1.PodIP{{IP: "10.0.0.1"}, {IP: "fd00::1"}}},
		{
			// Old kubelets only know podIP, which is then authoritative.
			name:       "disagreeing fields",
			in:         v1.PodStatus{PodIP: "10.0.0.2", PodIPs: []v1.PodIP{{IP: "10.0.0.1"}}},
			wantPodIP:  "10.0.0.2",
			wantPodIPs: []v1.PodIP{{IP: "10.0.0.2"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pod := &v1.Pod{Status: tc.in}
			SetDefaultsPod(pod)
			if pod.Status.PodIP != tc.wantPodIP {
				t.Errorf("podIP = %q, want %q", pod.Status.PodIP, tc.wantPodIP)
			}
			if diff := cmp.Diff(tc.wantPodIPs, pod.Status.PodIPs); diff != "" {
				t.Errorf("podIPs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSetDefaultsPodSpecNestedFields(t *testing.T) {
	spec := &v1.PodSpec{
		Containers: []v1.Container{{
			Name:  "c",
			Image: "nginx:1.27",
			Ports: []v1.ContainerPort{{ContainerPort: 80}},
			Env:   []v1.EnvVar{{Name: "POD", ValueFrom: &v1.EnvVarSource{FieldRef: &v1.ObjectFieldSelector{FieldPath: "metadata.name"}}}},
			Resources: v1.ResourceRequirements{
				Limits: v1.ResourceList{v1.ResourceCPU: resource.MustParse("0.0001")},
			},
			LivenessProbe:  &v1.Probe{ProbeHandler: v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Port: intstr.FromInt32(80)}}},
			ReadinessProbe: &v1.Probe{ProbeHandler: v1.ProbeHandler{GRPC: &v1.GRPCAction{Port: 9000}}},
			Lifecycle:      &v1.Lifecycle{PreStop: &v1.LifecycleHandler{HTTPGet: &v1.HTTPGetAction{Port: intstr.FromInt32(80)}}},
		}},
		Volumes: []v1.Volume{
			{Name: "scratch"},
			{Name: "creds", VolumeSource: v1.VolumeSource{Secret: &v1.SecretVolumeSource{SecretName: "creds"}}},
			{Name: "token", VolumeSource: v1.VolumeSource{Projected: &v1.ProjectedVolumeSource{Sources: []v1.VolumeProjection{
				{ServiceAccountToken: &v1.ServiceAccountTokenProjection{Path: "token"}},
				{DownwardAPI: &v1.DownwardAPIProjection{Items: []v1.DownwardAPIVolumeFile{{Path: "ns", FieldRef: &v1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}}}},
			}}}},
			{Name: "host", VolumeSource: v1.VolumeSource{HostPath: &v1.HostPathVolumeSource{Path: "/var/log"}}},
		},
	}
	SetDefaultsPodSpec(spec)
	c := spec.Containers[0]
	mode := int32(0o644)
	checks := []struct {
		what      string
		got, want any
	}{
		{"dnsPolicy", spec.DNSPolicy, v1.DNSClusterFirst},
		{"restartPolicy", spec.RestartPolicy, v1.RestartPolicyAlways},
		{"schedulerName", spec.SchedulerName, "default-scheduler"},
		{"terminationGracePeriodSeconds", *spec.TerminationGracePeriodSeconds, int64(30)},
		{"securityContext", *spec.SecurityContext, v1.PodSecurityContext{}},
		{"imagePullPolicy", c.ImagePullPolicy, v1.PullIfNotPresent},
		{"terminationMessagePath", c.TerminationMessagePath, "/dev/termination-log"},
		{"terminationMessagePolicy", c.TerminationMessagePolicy, v1.TerminationMessageReadFile},
		{"port protocol", c.Ports[0].Protocol, v1.ProtocolTCP},
		{"env fieldRef apiVersion", c.Env[0].ValueFrom.FieldRef.APIVersion, "v1"},
		{"cpu limit rounded up to milli units", c.Resources.Limits.Cpu().String(), "1m"},
		{"probe timeout", c.LivenessProbe.TimeoutSeconds, int32(1)},
		{"probe period", c.LivenessProbe.PeriodSeconds, int32(10)},
		{"probe success threshold", c.LivenessProbe.SuccessThreshold, int32(1)},
		{"probe failure threshold", c.LivenessProbe.FailureThreshold, int32(3)},
		{"probe http path", c.LivenessProbe.HTTPGet.Path, "/"},
		{"probe http scheme", c.LivenessProbe.HTTPGet.Scheme, v1.URISchemeHTTP},
		{"grpc service", *c.ReadinessProbe.GRPC.Service, ""},
		{"preStop http path", c.Lifecycle.PreStop.HTTPGet.Path, "/"},
		{"volume without source", *spec.Volumes[0].EmptyDir, v1.EmptyDirVolumeSource{}},
		{"secret volume mode", *spec.Volumes[1].Secret.DefaultMode, mode},
		{"projected volume mode", *spec.Volumes[2].Projected.DefaultMode, mode},
		{"token expiration", *spec.Volumes[2].Projected.Sources[0].ServiceAccountToken.ExpirationSeconds, int64(3600)},
		{"projected fieldRef apiVersion", spec.Volumes[2].Projected.Sources[1].DownwardAPI.Items[0].FieldRef.APIVersion, "v1"},
		{"host path type", *spec.Volumes[3].HostPath.Type, v1.HostPathUnset},
	}
	for _, check := range checks {
		if diff := cmp.Diff(check.want, check.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", check.what, diff)
		}
	}
}

func TestSetDefaultsService(t *testing.T) {
	cluster, local := v1.ServiceInternalTrafficPolicyCluster, v1.ServiceInternalTrafficPolicyLocal
	timeout := v1.DefaultClientIPServiceAffinitySeconds
	allocate := true
	vip := v1.LoadBalancerIPModeVIP
	tests := []struct {
		name string
		in   v1.ServiceSpec
		want v1.ServiceSpec
	}{
		{
			name: "ClusterIP",
			in:   v1.ServiceSpec{Ports: []v1.ServicePort{{Port: 80}, {Port: 53, Protocol: v1.ProtocolUDP, TargetPort: intstr.FromString("dns")}}},
			want: v1.ServiceSpec{
				Type: v1.ServiceTypeClusterIP, SessionAffinity: v1.ServiceAffinityNone, InternalTrafficPolicy: &cluster,
				Ports: []v1.ServicePort{
					{Port: 80, Protocol: v1.ProtocolTCP, TargetPort: intstr.FromInt32(80)},
					{Port: 53, Protocol: v1.ProtocolUDP, TargetPort: intstr.FromString("dns")},
				},
			},
		},
		{
			name: "external IPs make a ClusterIP service externally accessible",
			in:   v1.ServiceSpec{ExternalIPs: []string{"192.0.2.10"}, InternalTrafficPolicy: &local},
			want: v1.ServiceSpec{
				Type: v1.ServiceTypeClusterIP, SessionAffinity: v1.ServiceAffinityNone, InternalTrafficPolicy: &local,
				ExternalIPs: []string{"192.0.2.10"}, ExternalTrafficPolicy: v1.ServiceExternalTrafficPolicyCluster,
			},
		},
		{
			name: "ClientIP affinity gets a timeout",
			in:   v1.ServiceSpec{SessionAffinity: v1.ServiceAffinityClientIP},
			want: v1.ServiceSpec{
				Type: v1.ServiceTypeClusterIP, SessionAffinity: v1.ServiceAffinityClientIP, InternalTrafficPolicy: &cluster,
				SessionAffinityConfig: &v1.SessionAffinityConfig{ClientIP: &v1.ClientIPConfig{TimeoutSeconds: &timeout}},
			},
		},
		{
			name: "no affinity drops its configuration",
			in:   v1.ServiceSpec{SessionAffinityConfig: &v1.SessionAffinityConfig{}},
			want: v1.ServiceSpec{Type: v1.ServiceTypeClusterIP, SessionAffinity: v1.ServiceAffinityNone, InternalTrafficPolicy: &cluster},
		},
		{
			name: "LoadBalancer",
			in:   v1.ServiceSpec{Type: v1.ServiceTypeLoadBalancer},
			want: v1.ServiceSpec{
				Type: v1.ServiceTypeLoadBalancer, SessionAffinity: v1.ServiceAffinityNone, InternalTrafficPolicy: &cluster,
				ExternalTrafficPolicy: v1.ServiceExternalTrafficPolicyCluster, AllocateLoadBalancerNodePorts: &allocate,
			},
		},
		{
			name: "ExternalName has no traffic policies",
			in:   v1.ServiceSpec{Type: v1.ServiceTypeExternalName, ExternalName: "db.example.com"},
			want: v1.ServiceSpec{Type: v1.ServiceTypeExternalName, ExternalName: "db.example.com", SessionAffinity: v1.ServiceAffinityNone},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			svc := &v1.Service{Spec: tc.in}
			SetDefaultsService(svc)
			if diff := cmp.Diff(tc.want, svc.Spec); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}

	lb := &v1.Service{
		Spec:   v1.ServiceSpec{Type: v1.ServiceTypeLoadBalancer},
		Status: v1.ServiceStatus{LoadBalancer: v1.LoadBalancerStatus{Ingress: []v1.LoadBalancerIngress{{IP: "192.0.2.1"}, {Hostname: "lb.example.com"}}}},
	}
	SetDefaultsService(lb)
	want := []v1.LoadBalancerIngress{{IP: "192.0.2.1", IPMode: &vip}, {Hostname: "lb.example.com"}}
	if diff := cmp.Diff(want, lb.Status.LoadBalancer.Ingress); diff != "" {
		t.Errorf("load balancer ingress (-want +got):\n%s", diff)
	}
}

func TestSetDefaultsNode(t *testing.T) {
	tests := []struct {
		name                  string
		podCIDR               string
		podCIDRs              []string
		wantCIDR              string
		wantCIDRs             []string
		capacity, allocatable v1.ResourceList
		wantAllocatable       v1.ResourceList
	}{
		{name: "podCIDR only", podCIDR: "10.244.0.0/24", wantCIDR: "10.244.0.0/24", wantCIDRs: []string{"10.244.0.0/24"}},
		{name: "podCIDRs only", podCIDRs: []string{"10.244.0.0/24", "fd00::/64"}, wantCIDR: "10.244.0.0/24", wantCIDRs: []string{"10.244.0.0/24", "fd00::/64"}},
		{name: "podCIDR wins", podCIDR: "10.244.1.0/24", podCIDRs: []string{"10.244.0.0/24"}, wantCIDR: "10.244.1.0/24", wantCIDRs: []string{"10.244.1.0/24"}},
		{
			name:            "allocatable defaults to capacity",
			capacity:        v1.ResourceList{v1.ResourceCPU: resource.MustParse("4")},
			wantAllocatable: v1.ResourceList{v1.ResourceCPU: resource.MustParse("4")},
		},
		{
			name:            "an explicit allocatable is kept",
			capacity:        v1.ResourceList{v1.ResourceCPU: resource.MustParse("4")},
			allocatable:     v1.ResourceList{v1.ResourceCPU: resource.MustParse("3")},
			wantAllocatable: v1.ResourceList{v1.ResourceCPU: resource.MustParse("3")},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			node := &v1.Node{
				Spec:   v1.NodeSpec{PodCIDR: tc.podCIDR, PodCIDRs: tc.podCIDRs},
				Status: v1.NodeStatus{Capacity: tc.capacity, Allocatable: tc.allocatable},
			}
			SetDefaultsNode(node)
			if node.Spec.PodCIDR != tc.wantCIDR || !cmp.Equal(node.Spec.PodCIDRs, tc.wantCIDRs) {
				t.Errorf("podCIDR %q, podCIDRs %v; want %q, %v", node.Spec.PodCIDR, node.Spec.PodCIDRs, tc.wantCIDR, tc.wantCIDRs)
			}
			if !equalResources(node.Status.Allocatable, tc.wantAllocatable) {
				t.Errorf("allocatable = %v, want %v", node.Status.Allocatable, tc.wantAllocatable)
			}
		})
	}
}

func TestAddDefaultsCoversLists(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := v1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := AddDefaults(scheme); err != nil {
		t.Fatal(err)
	}
	list := &v1.ServiceList{Items: []v1.Service{{}, {}}}
	scheme.Default(list)
	for i, svc := range list.Items {
		if svc.Spec.Type != v1.ServiceTypeClusterIP {
			t.Errorf("item %d was not defaulted", i)
		}
	}
}

func equalResources(a, b v1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for name, q := range a {
		other, ok := b[name]
		if !ok || q.Cmp(other) != 0 {
			return false
		}
	}
	return true
}

func TestPodQOSClass(t *testing.T) {
	resources := func(requests, limits string) v1.ResourceRequirements {
		parse := func(spec string) v1.ResourceList {
			if spec == "" {
				return nil
			}
			list := v1.ResourceList{}
			for _, item := range strings.Split(spec, ",") {
				name, value, _ := strings.Cut(item, "=")
				list[v1.ResourceName(name)] = resource.MustParse(value)
			}
			return list
		}
		return v1.ResourceRequirements{Requests: parse(requests), Limits: parse(limits)}
	}
	tests := []struct {
		name       string
		containers []v1.ResourceRequirements
		podLevel   *v1.ResourceRequirements
		want       v1.PodQOSClass
	}{
		{name: "nothing stated", containers: []v1.ResourceRequirements{{}}, want: v1.PodQOSBestEffort},
		{name: "only other resources", containers: []v1.ResourceRequirements{resources("ephemeral-storage=1Gi", "")}, want: v1.PodQOSBestEffort},
		{name: "equal cpu and memory everywhere", containers: []v1.ResourceRequirements{resources("cpu=1,memory=1Gi", "cpu=1,memory=1Gi"), resources("cpu=2,memory=1Gi", "cpu=2,memory=1Gi")}, want: v1.PodQOSGuaranteed},
		{name: "a container without memory limit", containers: []v1.ResourceRequirements{resources("cpu=1,memory=1Gi", "cpu=1,memory=1Gi"), resources("cpu=1", "cpu=1")}, want: v1.PodQOSBurstable},
		{name: "requests below limits", containers: []v1.ResourceRequirements{resources("cpu=500m,memory=1Gi", "cpu=1,memory=1Gi")}, want: v1.PodQOSBurstable},
		{name: "pod-level resources decide", containers: []v1.ResourceRequirements{{}}, podLevel: ptr(resources("cpu=1,memory=1Gi", "cpu=1,memory=1Gi")), want: v1.PodQOSGuaranteed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pod := &v1.Pod{Spec: v1.PodSpec{Resources: tc.podLevel}}
			for i, r := range tc.containers {
				pod.Spec.Containers = append(pod.Spec.Containers, v1.Container{Name: fmt.Sprint("c", i), Resources: r})
			}
			if got := PodQOSClass(pod); got != tc.want {
				t.Errorf("PodQOSClass = %s, want %s", got, tc.want)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

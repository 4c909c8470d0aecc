package core_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kapi-dev/kapi/pkg/apis/core"
)

// allocatedService returns a defaulted service of the given type, with
// the IP fields the registry would have allocated on an IPv4 cluster.
func allocatedService(serviceType v1.ServiceType) *v1.Service {
	svc := &v1.Service{
		ObjectMeta: meta("web"),
		Spec: v1.ServiceSpec{
			Type:     serviceType,
			Selector: map[string]string{"app": "web"},
			Ports:    []v1.ServicePort{{Name: "http", Port: 80}},
		},
	}
	core.SetDefaultsService(svc)
	if errs := core.DefaultServiceIPFamilies(svc, nil, []v1.IPFamily{v1.IPv4Protocol}); len(errs) > 0 {
		panic(errs)
	}
	svc.Spec.ClusterIP, svc.Spec.ClusterIPs = "10.96.0.10", []string{"10.96.0.10"}
	if serviceType == v1.ServiceTypeNodePort || serviceType == v1.ServiceTypeLoadBalancer {
		svc.Spec.Ports[0].NodePort = 30080
	}
	return svc
}

func TestValidateService(t *testing.T) {
	tests := []struct {
		name   string
		svc    *v1.Service
		modify func(*v1.Service)
		want   []string
	}{
		{name: "ClusterIP", svc: allocatedService(v1.ServiceTypeClusterIP)},
		{name: "NodePort", svc: allocatedService(v1.ServiceTypeNodePort)},
		{name: "LoadBalancer", svc: allocatedService(v1.ServiceTypeLoadBalancer)},
		{
			name: "headless",
			svc:  allocatedService(v1.ServiceTypeClusterIP),
			modify: func(s *v1.Service) {
				s.Spec.ClusterIP, s.Spec.ClusterIPs, s.Spec.Ports = v1.ClusterIPNone, []string{v1.ClusterIPNone}, nil
			},
		},
		{
			name:   "names are DNS-1035 labels",
			svc:    allocatedService(v1.ServiceTypeClusterIP),
			modify: func(s *v1.Service) { s.Name = "1web" },
			want:   []string{`metadata.name: Invalid value: "1web": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`},
		},
		{
			name:   "ports are required",
			svc:    allocatedService(v1.ServiceTypeClusterIP),
			modify: func(s *v1.Service) { s.Spec.Ports = nil },
			want:   []string{"spec.ports: Required value"},
		},
		{
			name: "several ports need names",
			svc:  allocatedService(v1.ServiceTypeClusterIP),
			modify: func(s *v1.Service) {
				s.Spec.Ports = append(s.Spec.Ports, v1.ServicePort{Port: 443, Protocol: v1.ProtocolTCP, TargetPort: intstr.FromInt32(443)})
			},
			want: []string{"spec.ports[1].name: Required value"},
		},
		{
			// The duplicate is shown with the field names of
			// kube-apiserver's internal type.
			name: "a port is used once per protocol",
			svc:  allocatedService(v1.ServiceTypeClusterIP),
			modify: func(s *v1.Service) {
				s.Spec.Ports = append(s.Spec.Ports, v1.ServicePort{Name: "alt", Port: 80, Protocol: v1.ProtocolTCP, TargetPort: intstr.FromInt32(8080)})
			},
			want: []string{`spec.ports[1]: Duplicate value: {"Name":"","Protocol":"TCP","AppProtocol":null,"Port":80,"TargetPort":0,"NodePort":0}`},
		},
		{
			name:   "ClusterIP services have no node ports",
			svc:    allocatedService(v1.ServiceTypeClusterIP),
			modify: func(s *v1.Service) { s.Spec.Ports[0].NodePort = 30080 },
			want:   []string{"spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"},
		},
		{
			name: "NodePort services are not headless",
			svc:  allocatedService(v1.ServiceTypeNodePort),
			modify: func(s *v1.Service) {
				s.Spec.ClusterIP, s.Spec.ClusterIPs = v1.ClusterIPNone, []string{v1.ClusterIPNone}
			},
			want: []string{`spec.clusterIPs[0]: Invalid value: "None": may not be set to 'None' for NodePort services`},
		},
		{
			name:   "clusterIPs starts with clusterIP",
			svc:    allocatedService(v1.ServiceTypeClusterIP),
			modify: func(s *v1.Service) { s.Spec.ClusterIPs = []string{"10.96.0.11"} },
			want:   []string{`spec.clusterIPs: Invalid value: ["10.96.0.11"]: first value must match ` + "`clusterIP`"},
		},
		{
			name:   "cluster IPs match their families",
			svc:    allocatedService(v1.ServiceTypeClusterIP),
			modify: func(s *v1.Service) { s.Spec.ClusterIP, s.Spec.ClusterIPs = "fd00::10", []string{"fd00::10"} },
			want:   []string{`spec.clusterIPs[0]: Invalid value: "fd00::10": expected an IPv4 value as indicated by ` + "`ipFamilies[0]`"},
		},
		{
			name: "ExternalName",
			svc:  allocatedService(v1.ServiceTypeClusterIP),
			modify: func(s *v1.Service) {
				s.Spec = v1.ServiceSpec{Type: v1.ServiceTypeExternalName, ExternalName: "db.example.com.", SessionAffinity: v1.ServiceAffinityNone}
			},
		},
		{
			name: "ExternalName services have no cluster IPs",
			svc:  allocatedService(v1.ServiceTypeClusterIP),
			modify: func(s *v1.Service) {
				s.Spec.Type = v1.ServiceTypeExternalName
				s.Spec.InternalTrafficPolicy = nil
			},
			want: []string{
				"spec.clusterIPs: Forbidden: may not be set for ExternalName services",
				"spec.ipFamilies: Forbidden: may not be set for ExternalName services",
				"spec.ipFamilyPolicy: Forbidden: may not be set for ExternalName services",
				"spec.externalName: Required value",
			},
		},
		{
			name: "ClientIP affinity timeout",
			svc:  allocatedService(v1.ServiceTypeClusterIP),
			modify: func(s *v1.Service) {
				s.Spec.SessionAffinity = v1.ServiceAffinityClientIP
				s.Spec.SessionAffinityConfig = &v1.SessionAffinityConfig{ClientIP: &v1.ClientIPConfig{TimeoutSeconds: ptr(int32(86401))}}
			},
			want: []string{"spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 86401: must be greater than 0 and less than 86400"},
		},
		{
			name:   "load balancers allocate node ports or not",
			svc:    allocatedService(v1.ServiceTypeLoadBalancer),
			modify: func(s *v1.Service) { s.Spec.AllocateLoadBalancerNodePorts = nil },
			want:   []string{"allocateLoadBalancerNodePorts: Required value"},
		},
		{
			name:   "source ranges are for load balancers",
			svc:    allocatedService(v1.ServiceTypeNodePort),
			modify: func(s *v1.Service) { s.Spec.LoadBalancerSourceRanges = []string{"10.0.0.0/8"} },
			want:   []string{"spec.LoadBalancerSourceRanges: Forbidden: may only be used when `type` is 'LoadBalancer'"},
		},
		{
			name: "local traffic needs a health check port",
			svc:  allocatedService(v1.ServiceTypeLoadBalancer),
			modify: func(s *v1.Service) {
				s.Spec.ExternalTrafficPolicy = v1.ServiceExternalTrafficPolicyLocal
			},
			want: []string{"spec.healthCheckNodePort: Required value"},
		},
		{
			name:   "external traffic policy is for externally accessible services",
			svc:    allocatedService(v1.ServiceTypeClusterIP),
			modify: func(s *v1.Service) { s.Spec.ExternalTrafficPolicy = v1.ServiceExternalTrafficPolicyLocal },
			want:   []string{`spec.externalTrafficPolicy: Invalid value: "Local": may only be set for externally-accessible services`},
		},
		{
			name:   "selectors are label sets",
			svc:    allocatedService(v1.ServiceTypeClusterIP),
			modify: func(s *v1.Service) { s.Spec.Selector = map[string]string{"app": "a b"} },
			want:   []string{`spec.selector: Invalid value: "a b": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.modify != nil {
				tc.modify(tc.svc)
			}
			assertErrors(t, core.ValidateService(tc.svc), tc.want)
		})
	}
}

func TestValidateServiceUpdate(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*v1.Service)
		want   []string
	}{
		{name: "new selector", modify: func(s *v1.Service) { s.Spec.Selector = map[string]string{"app": "web2"} }},
		{
			name:   "the cluster IP never changes",
			modify: func(s *v1.Service) { s.Spec.ClusterIP, s.Spec.ClusterIPs = "10.96.0.11", []string{"10.96.0.11"} },
			want:   []string{`spec.clusterIPs[0]: Invalid value: ["10.96.0.11"]: may not change once set`},
		},
		{
			name:   "the primary cluster IP cannot be unset",
			modify: func(s *v1.Service) { s.Spec.ClusterIP, s.Spec.ClusterIPs = "", nil },
			want:   []string{"spec.clusterIPs[0]: Invalid value: null: primary clusterIP can not be unset"},
		},
		{
			name:   "the IP family never changes",
			modify: func(s *v1.Service) { s.Spec.IPFamilies = []v1.IPFamily{v1.IPv6Protocol} },
			want: []string{
				`spec.ipFamilies[0]: Invalid value: ["IPv6"]: may not change once set`,
				`spec.clusterIPs[0]: Invalid value: "10.96.0.10": expected an IPv6 value as indicated by ` + "`ipFamilies[0]`",
			},
		},
		{
			name: "to ExternalName and back are free",
			modify: func(s *v1.Service) {
				s.Spec = v1.ServiceSpec{Type: v1.ServiceTypeExternalName, ExternalName: "db.example.com", SessionAffinity: v1.ServiceAffinityNone}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			oldSvc := allocatedService(v1.ServiceTypeClusterIP)
			newSvc := oldSvc.DeepCopy()
			tc.modify(newSvc)
			assertErrors(t, core.ValidateServiceUpdate(newSvc, oldSvc), tc.want)
		})
	}
}

func TestValidateServiceStatusUpdate(t *testing.T) {
	vip := v1.LoadBalancerIPModeVIP
	tests := []struct {
		name    string
		svcType v1.ServiceType
		ingress []v1.LoadBalancerIngress
		want    []string
	}{
		{name: "a load balancer address", svcType: v1.ServiceTypeLoadBalancer, ingress: []v1.LoadBalancerIngress{{IP: "192.0.2.1", IPMode: &vip}}},
		{
			name: "only load balancers have addresses", svcType: v1.ServiceTypeClusterIP,
			ingress: []v1.LoadBalancerIngress{{IP: "192.0.2.1", IPMode: &vip}},
			want:    []string{"status.loadBalancer.ingress: Forbidden: may only be used when `spec.type` is 'LoadBalancer'"},
		},
		{
			name: "an IP has a mode", svcType: v1.ServiceTypeLoadBalancer,
			ingress: []v1.LoadBalancerIngress{{IP: "192.0.2.1"}},
			want:    []string{"status.loadBalancer.ingress[0].ipMode: Required value: must be specified when `ip` is set"},
		},
		{
			name: "hostnames are names", svcType: v1.ServiceTypeLoadBalancer,
			ingress: []v1.LoadBalancerIngress{{Hostname: "192.0.2.1"}},
			want:    []string{`status.loadBalancer.ingress[0].hostname: Invalid value: "192.0.2.1": must be a DNS name, not an IP address`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			oldSvc := allocatedService(tc.svcType)
			newSvc := oldSvc.DeepCopy()
			newSvc.Status.LoadBalancer.Ingress = tc.ingress
			assertErrors(t, core.ValidateServiceStatusUpdate(newSvc, oldSvc), tc.want)
		})
	}
}

func TestDefaultServiceIPFamilies(t *testing.T) {
	ipv4Only := []v1.IPFamily{v1.IPv4Protocol}
	dualStack := []v1.IPFamily{v1.IPv4Protocol, v1.IPv6Protocol}
	policy := func(p v1.IPFamilyPolicy) *v1.IPFamilyPolicy { return &p }
	tests := []struct {
		name         string
		spec         v1.ServiceSpec
		cluster      []v1.IPFamily
		wantPolicy   *v1.IPFamilyPolicy
		wantFamilies []v1.IPFamily
		wantErrors   []string
	}{
		{
			name:         "single-stack by default",
			spec:         v1.ServiceSpec{Type: v1.ServiceTypeClusterIP, Selector: map[string]string{"app": "web"}},
			cluster:      dualStack,
			wantPolicy:   policy(v1.IPFamilyPolicySingleStack),
			wantFamilies: []v1.IPFamily{v1.IPv4Protocol},
		},
		{
			name:         "the family of a chosen IP",
			spec:         v1.ServiceSpec{Type: v1.ServiceTypeClusterIP, ClusterIP: "fd00::10", ClusterIPs: []string{"fd00::10"}},
			cluster:      dualStack,
			wantPolicy:   policy(v1.IPFamilyPolicySingleStack),
			wantFamilies: []v1.IPFamily{v1.IPv6Protocol},
		},
		{
			name:         "PreferDualStack on a dual-stack cluster",
			spec:         v1.ServiceSpec{Type: v1.ServiceTypeClusterIP, IPFamilyPolicy: policy(v1.IPFamilyPolicyPreferDualStack)},
			cluster:      dualStack,
			wantPolicy:   policy(v1.IPFamilyPolicyPreferDualStack),
			wantFamilies: []v1.IPFamily{v1.IPv4Protocol, v1.IPv6Protocol},
		},
		{
			name:         "PreferDualStack on a single-stack cluster",
			spec:         v1.ServiceSpec{Type: v1.ServiceTypeClusterIP, IPFamilyPolicy: policy(v1.IPFamilyPolicyPreferDualStack)},
			cluster:      ipv4Only,
			wantPolicy:   policy(v1.IPFamilyPolicyPreferDualStack),
			wantFamilies: []v1.IPFamily{v1.IPv4Protocol},
		},
		{
			name:       "RequireDualStack on a single-stack cluster",
			spec:       v1.ServiceSpec{Type: v1.ServiceTypeClusterIP, IPFamilyPolicy: policy(v1.IPFamilyPolicyRequireDualStack)},
			cluster:    ipv4Only,
			wantPolicy: policy(v1.IPFamilyPolicyRequireDualStack),
			wantErrors: []string{`spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services`},
		},
		{
			name:       "a family the cluster does not have",
			spec:       v1.ServiceSpec{Type: v1.ServiceTypeClusterIP, IPFamilies: []v1.IPFamily{v1.IPv6Protocol}},
			cluster:    ipv4Only,
			wantPolicy: policy(v1.IPFamilyPolicySingleStack),
			wantErrors: []string{`spec.ipFamilies[0]: Invalid value: "IPv6": not configured on this cluster`},
		},
		{
			name:         "headless without selector accepts endpoints of both families",
			spec:         v1.ServiceSpec{Type: v1.ServiceTypeClusterIP, ClusterIP: v1.ClusterIPNone, ClusterIPs: []string{v1.ClusterIPNone}},
			cluster:      ipv4Only,
			wantPolicy:   policy(v1.IPFamilyPolicyRequireDualStack),
			wantFamilies: []v1.IPFamily{v1.IPv4Protocol, v1.IPv6Protocol},
		},
		{
			name: "ExternalName services have no families",
			spec: v1.ServiceSpec{Type: v1.ServiceTypeExternalName},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			svc := &v1.Service{ObjectMeta: meta("web"), Spec: tc.spec}
			errs := core.DefaultServiceIPFamilies(svc, nil, tc.cluster)
			assertErrors(t, errs, tc.wantErrors)
			if diff := cmp.Diff(tc.wantPolicy, svc.Spec.IPFamilyPolicy); diff != "" {
				t.Errorf("ipFamilyPolicy (-want +got):\n%s", diff)
			}
			if len(tc.wantErrors) == 0 {
				if diff := cmp.Diff(tc.wantFamilies, svc.Spec.IPFamilies); diff != "" {
					t.Errorf("ipFamilies (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestDefaultServiceIPFamiliesOnUpdate(t *testing.T) {
	oldSvc := allocatedService(v1.ServiceTypeClusterIP)
	oldSvc.Spec.IPFamilyPolicy = ptr(v1.IPFamilyPolicyPreferDualStack)
	oldSvc.Spec.IPFamilies = []v1.IPFamily{v1.IPv4Protocol, v1.IPv6Protocol}
	oldSvc.Spec.ClusterIPs = []string{"10.96.0.10", "fd00::10"}
	dualStack := []v1.IPFamily{v1.IPv4Protocol, v1.IPv6Protocol}

	// A PUT without a policy keeps the old one.
	kept := oldSvc.DeepCopy()
	kept.Spec.IPFamilyPolicy = nil
	assertErrors(t, core.DefaultServiceIPFamilies(kept, oldSvc, dualStack), nil)
	if *kept.Spec.IPFamilyPolicy != v1.IPFamilyPolicyPreferDualStack {
		t.Errorf("policy = %s, want the old PreferDualStack", *kept.Spec.IPFamilyPolicy)
	}

	// Switching to SingleStack releases the secondary IP and family.
	downgraded := oldSvc.DeepCopy()
	downgraded.Spec.IPFamilyPolicy = ptr(v1.IPFamilyPolicySingleStack)
	assertErrors(t, core.DefaultServiceIPFamilies(downgraded, oldSvc, dualStack), nil)
	if diff := cmp.Diff([]string{"10.96.0.10"}, downgraded.Spec.ClusterIPs); diff != "" {
		t.Errorf("clusterIPs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]v1.IPFamily{v1.IPv4Protocol}, downgraded.Spec.IPFamilies); diff != "" {
		t.Errorf("ipFamilies (-want +got):\n%s", diff)
	}

	// Dropping the secondary IP needs SingleStack.
	dropped := oldSvc.DeepCopy()
	dropped.Spec.IPFamilyPolicy = ptr(v1.IPFamilyPolicyRequireDualStack)
	dropped.Spec.ClusterIPs = dropped.Spec.ClusterIPs[:1]
	dropped.Spec.IPFamilies = dropped.Spec.IPFamilies[:1]
	assertErrors(t, core.DefaultServiceIPFamilies(dropped, oldSvc, dualStack), []string{
		`spec.ipFamilyPolicy: Invalid value: "RequireDualStack": must be 'SingleStack' to release the secondary cluster IP`,
		`spec.ipFamilyPolicy: Invalid value: "RequireDualStack": must be 'SingleStack' to release the secondary IP family`,
	})
}

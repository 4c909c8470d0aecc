package printers

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func objectMeta(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: "ns", CreationTimestamp: ago(3 * time.Hour)}
}

// TestCoreKinds renders one object of each simple core kind: its columns
// and its cells.
func TestCoreKinds(t *testing.T) {
	tests := []struct {
		name        string
		obj         runtime.Object
		wantColumns []string
		wantCells   []any
	}{{
		name:        "namespace",
		obj:         &corev1.Namespace{ObjectMeta: objectMeta("team-a"), Status: corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating}},
		wantColumns: []string{"Name", "Status", "Age"},
		wantCells:   []any{"team-a", "Terminating", "3h"},
	}, {
		name: "configmap counts data and binary data keys",
		obj: &corev1.ConfigMap{
			ObjectMeta: objectMeta("settings"),
			Data:       map[string]string{"a": "1", "b": "2"},
			BinaryData: map[string][]byte{"c": {3}},
		},
		wantColumns: []string{"Name", "Data", "Age"},
		wantCells:   []any{"settings", int64(3), "3h"},
	}, {
		name: "secret",
		obj: &corev1.Secret{
			ObjectMeta: objectMeta("tls"),
			Type:       corev1.SecretTypeTLS,
			Data:       map[string][]byte{"tls.crt": nil, "tls.key": nil},
		},
		wantColumns: []string{"Name", "Type", "Data", "Age"},
		wantCells:   []any{"tls", "kubernetes.io/tls", int64(2), "3h"},
	}, {
		name:        "service account",
		obj:         &corev1.ServiceAccount{ObjectMeta: objectMeta("builder"), Secrets: []corev1.ObjectReference{{Name: "builder-token"}}},
		wantColumns: []string{"Name", "Age"},
		wantCells:   []any{"builder", "3h"},
	}, {
		name: "replication controller",
		obj: &corev1.ReplicationController{
			ObjectMeta: objectMeta("web"),
			Spec: corev1.ReplicationControllerSpec{
				Replicas: ptr(int32(3)),
				Selector: map[string]string{"app": "web"},
				Template: &corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{
					{Name: "web", Image: "nginx"}, {Name: "log", Image: "fluentd"},
				}}},
			},
			Status: corev1.ReplicationControllerStatus{Replicas: 2, ReadyReplicas: 1},
		},
		wantColumns: []string{"Name", "Desired", "Current", "Ready", "Age", "Containers*", "Images*", "Selector*"},
		wantCells:   []any{"web", int64(3), int64(2), int64(1), "3h", "web,log", "nginx,fluentd", "app=web"},
	}, {
		name:        "replication controller without a template",
		obj:         &corev1.ReplicationController{ObjectMeta: objectMeta("empty")},
		wantColumns: []string{"Name", "Desired", "Current", "Ready", "Age", "Containers*", "Images*", "Selector*"},
		wantCells:   []any{"empty", int64(0), int64(0), int64(0), "3h", "", "", "<none>"},
	}, {
		name: "pod template",
		obj: &corev1.PodTemplate{
			ObjectMeta: objectMeta("tpl"),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web", "tier": "front"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}},
			},
		},
		wantColumns: []string{"Name", "Containers", "Images", "Pod Labels"},
		wantCells:   []any{"tpl", "web", "nginx", "app=web,tier=front"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			table := convert(t, tt.obj)
			if diff := cmp.Diff(tt.wantColumns, columnNames(table)); diff != "" {
				t.Errorf("columns (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantCells, table.Rows[0].Cells); diff != "" {
				t.Errorf("cells (-want +got):\n%s", diff)
			}
		})
	}
}

func TestService(t *testing.T) {
	tcp80 := corev1.ServicePort{Port: 80, Protocol: corev1.ProtocolTCP}
	tests := []struct {
		name string
		spec corev1.ServiceSpec
		lb   []corev1.LoadBalancerIngress
		// The Type, Cluster-IP, External-IP and Port(s) cells.
		want []any
	}{{
		name: "cluster IP",
		spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: "10.96.0.10", ClusterIPs: []string{"10.96.0.10", "fd00::10"}, Ports: []corev1.ServicePort{tcp80, {Port: 53, Protocol: corev1.ProtocolUDP}}},
		want: []any{"ClusterIP", "10.96.0.10", "<none>", "80/TCP,53/UDP"},
	}, {
		name: "headless, without ports",
		spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: "None", ClusterIPs: []string{"None"}},
		want: []any{"ClusterIP", "None", "<none>", "<none>"},
	}, {
		name: "clusterIP stands in for clusterIPs",
		spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: "10.96.0.11", Ports: []corev1.ServicePort{tcp80}},
		want: []any{"ClusterIP", "10.96.0.11", "<none>", "80/TCP"},
	}, {
		name: "cluster IP with external IPs",
		spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIPs: []string{"10.96.0.12"}, ExternalIPs: []string{"192.0.2.1", "192.0.2.2"}, Ports: []corev1.ServicePort{tcp80}},
		want: []any{"ClusterIP", "10.96.0.12", "192.0.2.1,192.0.2.2", "80/TCP"},
	}, {
		name: "node port",
		spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, ClusterIPs: []string{"10.96.0.13"}, Ports: []corev1.ServicePort{{Port: 80, NodePort: 30080, Protocol: corev1.ProtocolTCP}}},
		want: []any{"NodePort", "10.96.0.13", "<none>", "80:30080/TCP"},
	}, {
		name: "load balancer not provisioned yet",
		spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, ClusterIPs: []string{"10.96.0.14"}, Ports: []corev1.ServicePort{{Port: 443, NodePort: 31443, Protocol: corev1.ProtocolTCP}}},
		want: []any{"LoadBalancer", "10.96.0.14", "<pending>", "443:31443/TCP"},
	}, {
		name: "load balancer addresses, sorted and unique, IP before hostname, never shortened",
		spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, ClusterIPs: []string{"10.96.0.15"}, Ports: []corev1.ServicePort{tcp80}},
		lb:   []corev1.LoadBalancerIngress{{IP: "203.0.113.9"}, {Hostname: "a-long-load-balancer-name.example.com"}, {IP: "203.0.113.1", Hostname: "ignored"}, {IP: "203.0.113.9"}},
		want: []any{"LoadBalancer", "10.96.0.15", "203.0.113.1,203.0.113.9,a-long-load-balancer-name.example.com", "80/TCP"},
	}, {
		name: "load balancer addresses come before external IPs",
		spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, ClusterIPs: []string{"10.96.0.16"}, ExternalIPs: []string{"192.0.2.1"}, Ports: []corev1.ServicePort{tcp80}},
		lb:   []corev1.LoadBalancerIngress{{IP: "203.0.113.1"}},
		want: []any{"LoadBalancer", "10.96.0.16", "203.0.113.1,192.0.2.1", "80/TCP"},
	}, {
		name: "load balancer with external IPs only",
		spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, ClusterIPs: []string{"10.96.0.17"}, ExternalIPs: []string{"192.0.2.1"}, Ports: []corev1.ServicePort{tcp80}},
		want: []any{"LoadBalancer", "10.96.0.17", "192.0.2.1", "80/TCP"},
	}, {
		name: "external name",
		spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "db.example.com"},
		want: []any{"ExternalName", "<none>", "db.example.com", "<none>"},
	}, {
		name: "unknown type",
		spec: corev1.ServiceSpec{ClusterIPs: []string{"10.96.0.18"}},
		want: []any{"", "10.96.0.18", "<unknown>", "<none>"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := &corev1.Service{ObjectMeta: objectMeta("svc"), Spec: tt.spec}
			svc.Status.LoadBalancer.Ingress = tt.lb
			got := rowCells(t, svc)[1:5]
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Type, Cluster-IP, External-IP, Port(s) (-want +got):\n%s", diff)
			}
		})
	}
}

func TestServiceSelector(t *testing.T) {
	tests := []struct {
		selector map[string]string
		want     string
	}{
		{nil, "<none>"},
		{map[string]string{"tier": "db", "app": "shop"}, "app=shop,tier=db"},
	}
	for _, tt := range tests {
		svc := &corev1.Service{ObjectMeta: objectMeta("svc"), Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, Selector: tt.selector}}
		if got := rowCells(t, svc)[6]; got != tt.want {
			t.Errorf("selector %v: got %q, want %q", tt.selector, got, tt.want)
		}
	}
}

func TestEndpoints(t *testing.T) {
	addrs := func(ips ...string) []corev1.EndpointAddress {
		var a []corev1.EndpointAddress
		for _, ip := range ips {
			a = append(a, corev1.EndpointAddress{IP: ip})
		}
		return a
	}
	tests := []struct {
		name    string
		subsets []corev1.EndpointSubset
		want    string
	}{{
		name: "no subsets",
		want: "<none>",
	}, {
		name:    "a subset without addresses",
		subsets: []corev1.EndpointSubset{{Ports: []corev1.EndpointPort{{Port: 80}}}},
		want:    "",
	}, {
		name:    "an address per port",
		subsets: []corev1.EndpointSubset{{Addresses: addrs("10.0.0.1", "10.0.0.2"), Ports: []corev1.EndpointPort{{Port: 80}}}},
		want:    "10.0.0.1:80,10.0.0.2:80",
	}, {
		name:    "IPv6 addresses are bracketed",
		subsets: []corev1.EndpointSubset{{Addresses: addrs("fd00::1"), Ports: []corev1.EndpointPort{{Port: 443}}}},
		want:    "[fd00::1]:443",
	}, {
		name:    "a headless service's subset without ports lists bare addresses",
		subsets: []corev1.EndpointSubset{{Addresses: addrs("10.0.0.1", "10.0.0.2")}},
		want:    "10.0.0.1,10.0.0.2",
	}, {
		name: "beyond three, the rest are counted",
		subsets: []corev1.EndpointSubset{
			{Addresses: addrs("10.0.0.1", "10.0.0.2"), Ports: []corev1.EndpointPort{{Port: 80}, {Port: 443}}},
			{Addresses: addrs("10.0.1.1")},
		},
		want: "10.0.0.1:80,10.0.0.2:80,10.0.0.1:443 + 2 more...",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ep := &corev1.Endpoints{ObjectMeta: objectMeta("svc"), Subsets: tt.subsets}
			cells := rowCells(t, ep)
			if diff := cmp.Diff([]any{"svc", tt.want, "3h"}, cells); diff != "" {
				t.Errorf("cells (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNode(t *testing.T) {
	ready := func(s corev1.ConditionStatus) corev1.NodeCondition {
		return corev1.NodeCondition{Type: corev1.NodeReady, Status: s}
	}
	tests := []struct {
		name string
		node corev1.Node
		// The Status, Roles and Version cells, then the wide cells.
		want []any
	}{{
		name: "a registered node the kubelet has not reported on",
		want: []any{"Unknown", "<none>", "", "<none>", "<none>", "<unknown>", "<unknown>", "<unknown>"},
	}, {
		name: "a ready node with roles and system info",
		node: corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{
				"node-role.kubernetes.io/worker":        "",
				"node-role.kubernetes.io/control-plane": "",
				"node-role.kubernetes.io/":              "ignored",
				"kubernetes.io/role":                    "worker",
				"kubernetes.io/hostname":                "node-1",
			}},
			Status: corev1.NodeStatus{
				Conditions: []corev1.NodeCondition{{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse}, ready(corev1.ConditionTrue)},
				Addresses: []corev1.NodeAddress{
					{Type: corev1.NodeHostName, Address: "node-1"},
					{Type: corev1.NodeInternalIP, Address: "10.0.0.1"},
					{Type: corev1.NodeInternalIP, Address: "fd00::1"},
					{Type: corev1.NodeExternalIP, Address: "203.0.113.1"},
				},
				NodeInfo: corev1.NodeSystemInfo{KubeletVersion: "v1.37.1", OSImage: "Debian GNU/Linux 13", KernelVersion: "6.12.0", ContainerRuntimeVersion: "containerd://2.1.0"},
			},
		},
		want: []any{"Ready", "control-plane,worker", "v1.37.1", "10.0.0.1", "203.0.113.1", "Debian GNU/Linux 13", "6.12.0", "containerd://2.1.0"},
	}, {
		name: "a node not ready",
		node: corev1.Node{Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{ready(corev1.ConditionFalse)}}},
		want: []any{"NotReady", "<none>", "", "<none>", "<none>", "<unknown>", "<unknown>", "<unknown>"},
	}, {
		name: "a cordoned node",
		node: corev1.Node{
			Spec:   corev1.NodeSpec{Unschedulable: true},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{ready(corev1.ConditionUnknown)}},
		},
		want: []any{"NotReady,SchedulingDisabled", "<none>", "", "<none>", "<none>", "<unknown>", "<unknown>", "<unknown>"},
	}, {
		name: "a cordoned node never reported on",
		node: corev1.Node{Spec: corev1.NodeSpec{Unschedulable: true}},
		want: []any{"Unknown,SchedulingDisabled", "<none>", "", "<none>", "<none>", "<unknown>", "<unknown>", "<unknown>"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			node := tt.node
			node.Name, node.CreationTimestamp = "node-1", ago(50*time.Hour)
			cells := rowCells(t, &node)
			if cells[0] != "node-1" || cells[3] != "2d2h" {
				t.Errorf("Name, Age: got %v, %v", cells[0], cells[3])
			}
			got := append(cells[1:3:3], cells[4:]...)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Status, Roles, Version, Internal-IP, External-IP, OS-Image, Kernel-Version, Container-Runtime (-want +got):\n%s", diff)
			}
		})
	}
}

package service_test

import (
	"context"
	"encoding/json"
	"net/netip"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/kubernetes"

	"github.com/kapi-dev/kapi/internal/required"
	"github.com/kapi-dev/kapi/pkg/testserver"
)

func readReference(t *testing.T, name string) []byte {
	t.Helper()
	return required.ReadReference(t, name)
}

// Services created through a whole kapi, started with its own node port
// range, come back shaped as kube-apiserver shapes them, and conflicts are
// refused with its messages.
func TestServicesMatchKubeAPIServer(t *testing.T) {
	clusterIPIn := readReference(t, "defaulting/service-clusterip.input.json")
	srv := testserver.Start(t, testserver.Options{ServiceNodePortRange: utilnet.PortRange{Base: 31000, Size: 100}})
	client := kubernetes.NewForConfigOrDie(srv.ClientConfig)
	ctx := context.Background()
	if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "defaulting"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	serviceCIDR := netip.MustParsePrefix("10.96.0.0/12")

	for _, name := range []string{"service-clusterip", "service-nodeport"} {
		t.Run(name, func(t *testing.T) {
			in := clusterIPIn
			if name != "service-clusterip" {
				in = readReference(t, "defaulting/"+name+".input.json")
			}
			var svc corev1.Service
			if err := json.Unmarshal(in, &svc); err != nil {
				t.Fatal(err)
			}
			out, err := client.CoreV1().Services(svc.Namespace).Create(ctx, &svc, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if ip, err := netip.ParseAddr(out.Spec.ClusterIP); err != nil || !serviceCIDR.Contains(ip) {
				t.Errorf("clusterIP %q is not in %s", out.Spec.ClusterIP, serviceCIDR)
			}
			for _, p := range out.Spec.Ports {
				if out.Spec.Type == corev1.ServiceTypeNodePort && (p.NodePort < 31000 || p.NodePort > 31099) {
					t.Errorf("nodePort %d is not in --service-node-port-range 31000-31099", p.NodePort)
				}
			}
			got, err := json.Marshal(out)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := comparable(t, got), comparable(t, readReference(t, "defaulting/"+name+".output.json")); !reflect.DeepEqual(g, w) {
				gj, _ := json.MarshalIndent(g, "", "  ")
				wj, _ := json.MarshalIndent(w, "", "  ")
				t.Errorf("got\n%s\nwant (as kube-apiserver)\n%s", gj, wj)
			}
		})
	}

	taken, err := client.CoreV1().Services("defaulting").Get(ctx, "svc-np", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	port := taken.Spec.Ports[0].NodePort
	for _, tc := range []struct {
		nodePort int32
		want     string
	}{
		{port, `Service "conflict" is invalid: spec.ports[0].nodePort: Invalid value: ` + itoa(port) + `: provided port is already allocated`},
		{30080, `Service "conflict" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is not in the valid range. The range of valid ports is 31000-31099`},
	} {
		svc := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: "conflict"},
			Spec: corev1.ServiceSpec{
				Type:  corev1.ServiceTypeNodePort,
				Ports: []corev1.ServicePort{{Port: 80, NodePort: tc.nodePort}},
			},
		}
		_, err := client.CoreV1().Services("defaulting").Create(ctx, svc, metav1.CreateOptions{})
		if err == nil || err.Error() != tc.want {
			t.Errorf("node port %d: got %v\nwant %s", tc.nodePort, err, tc.want)
		}
	}
}

// comparable is a Service as JSON without what differs between any two
// creations: identity, timestamps and the allocated values.
func comparable(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	m["apiVersion"], m["kind"] = "v1", "Service" // typed clients drop them
	meta := m["metadata"].(map[string]any)
	for _, k := range []string{"uid", "resourceVersion", "creationTimestamp", "managedFields"} {
		delete(meta, k)
	}
	spec := m["spec"].(map[string]any)
	spec["clusterIP"] = "<allocated>"
	spec["clusterIPs"] = []any{"<allocated>"}
	for _, p := range spec["ports"].([]any) {
		if port := p.(map[string]any); port["nodePort"] != nil {
			port["nodePort"] = "<allocated>"
		}
	}
	return m
}

func itoa(n int32) string {
	b, _ := json.Marshal(n)
	return string(b)
}

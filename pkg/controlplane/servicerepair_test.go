package controlplane

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kapi-dev/kapi/pkg/apis/events"
	"github.com/kapi-dev/kapi/pkg/client"
	"github.com/kapi-dev/kapi/pkg/registry/core/service/portallocator"
)

// The event the node port repair records for a port the bitmap lacked is
// kube-apiserver's: testdata/nodeport-repair-event.json is the event a
// kube-apiserver 1.37.1 recorded when its repair found the bit of
// default/np-30000's node port cleared in etcd (kubectl get events -o
// json --show-managed-fields).
func TestTheNodePortRepairRecordsKubeAPIServersEvent(t *testing.T) {
	data, err := os.ReadFile("testdata/nodeport-repair-event.json")
	if err != nil {
		t.Fatal(err)
	}
	var want corev1.Event
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	svc := want.InvolvedObject
	fakes := fake.NewClientset()
	e := newNodePortEvents(func(namespace string) client.Interface[*eventsv1.Event, *eventsv1.EventList] {
		return fakes.EventsV1().Events(namespace)
	})
	e.instance = want.ReportingInstance // the oracle's host name
	e.now = func() time.Time { return want.EventTime.Time }
	e.record(context.Background(), []portallocator.Problem{{
		Service: portallocator.Holder{Namespace: svc.Namespace, Name: svc.Name, UID: svc.UID, ResourceVersion: svc.ResourceVersion, Ports: []int{30000}},
		Port:    30000, Reason: "PortNotAllocated", Message: "Port 30000 is not allocated; repairing",
	}})

	list, err := fakes.EventsV1().Events("default").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 {
		t.Fatalf("%d events recorded, want 1", len(list.Items))
	}
	got := events.ToCoreEvent(&list.Items[0])
	if wantName := fmt.Sprintf("np-30000.%x", want.EventTime.UnixNano()); got.Name != wantName {
		t.Errorf("event named %q, want %q (the Service's name and the time)", got.Name, wantName)
	}
	// What the server fills in is not the recorder's.
	want.ObjectMeta = metav1.ObjectMeta{Namespace: want.Namespace}
	want.TypeMeta = metav1.TypeMeta{}
	got.ObjectMeta = metav1.ObjectMeta{Namespace: got.Namespace}
	if diff := cmp.Diff(&want, got); diff != "" {
		t.Errorf("event (-kube-apiserver +kapi):\n%s", diff)
	}
}

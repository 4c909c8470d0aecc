package printers

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestEventColumns(t *testing.T) {
	want := []string{"Last Seen", "Type", "Reason", "Object", "Subobject*", "Source*", "Message", "First Seen*", "Count*", "Name*"}
	for _, list := range []runtime.Object{&corev1.EventList{}, &eventsv1.EventList{}} {
		if diff := cmp.Diff(want, columnNames(convert(t, list))); diff != "" {
			t.Errorf("%T columns (-want +got):\n%s", list, diff)
		}
	}
}

// TestEvent renders events of both shapes; an events.k8s.io/v1 Event
// prints as the v1 Event it is stored as.
func TestEvent(t *testing.T) {
	micro := func(d time.Duration) metav1.MicroTime { return metav1.NewMicroTime(testNow.Add(-d)) }
	pod := corev1.ObjectReference{Kind: "Pod", Name: "web-0", FieldPath: "spec.containers{web}"}
	tests := []struct {
		name string
		core *corev1.Event
		new  *eventsv1.Event
		// Last Seen, Type, Reason, Object, Subobject, Source, Message,
		// First Seen, Count, Name.
		want []any
	}{{
		name: "an event recorded by the old API, seen several times",
		core: &corev1.Event{
			ObjectMeta:     metav1.ObjectMeta{Name: "web-0.1"},
			InvolvedObject: pod,
			Reason:         "BackOff",
			Message:        "  Back-off restarting failed container\n",
			Type:           corev1.EventTypeWarning,
			Source:         corev1.EventSource{Component: "kubelet", Host: "node-1"},
			FirstTimestamp: ago(10 * time.Minute),
			LastTimestamp:  ago(30 * time.Second),
			Count:          7,
		},
		want: []any{"30s", "Warning", "BackOff", "pod/web-0", "spec.containers{web}", "kubelet, node-1", "Back-off restarting failed container", "10m", int64(7), "web-0.1"},
	}, {
		name: "a singleton event of the new API, seen once",
		new: &eventsv1.Event{
			ObjectMeta:          metav1.ObjectMeta{Name: "web-0.2"},
			EventTime:           micro(5 * time.Second),
			ReportingController: "default-scheduler",
			ReportingInstance:   "scheduler-1",
			Action:              "Binding",
			Reason:              "Scheduled",
			Regarding:           pod,
			Note:                "Successfully assigned ns/web-0 to node-1",
			Type:                corev1.EventTypeNormal,
		},
		want: []any{"5s", "Normal", "Scheduled", "pod/web-0", "spec.containers{web}", "default-scheduler, scheduler-1", "Successfully assigned ns/web-0 to node-1", "5s", int64(1), "web-0.2"},
	}, {
		name: "an event series counts its occurrences up to the last observed",
		new: &eventsv1.Event{
			ObjectMeta:          metav1.ObjectMeta{Name: "web-0.3"},
			EventTime:           micro(time.Hour),
			Series:              &eventsv1.EventSeries{Count: 12, LastObservedTime: micro(2 * time.Minute)},
			ReportingController: "kubelet",
			Reason:              "Unhealthy",
			Regarding:           corev1.ObjectReference{Kind: "Node"},
			Type:                corev1.EventTypeWarning,
		},
		want: []any{"2m", "Warning", "Unhealthy", "node", "", "kubelet", "", "60m", int64(12), "web-0.3"},
	}, {
		name: "the deprecated fields of the new API are the old API's",
		new: &eventsv1.Event{
			ObjectMeta:               metav1.ObjectMeta{Name: "web-0.4"},
			Reason:                   "Pulled",
			Regarding:                pod,
			DeprecatedSource:         corev1.EventSource{Component: "kubelet"},
			DeprecatedFirstTimestamp: ago(3 * time.Hour),
			DeprecatedLastTimestamp:  ago(time.Hour),
			DeprecatedCount:          2,
			ReportingController:      "ignored",
			ReportingInstance:        "node-9",
		},
		want: []any{"60m", "", "Pulled", "pod/web-0", "spec.containers{web}", "kubelet, node-9", "", "3h", int64(2), "web-0.4"},
	}, {
		name: "an event with no time at all",
		core: &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "odd"}, Series: &corev1.EventSeries{Count: 3}},
		want: []any{"<unknown>", "", "", "", "", "", "", "<unknown>", int64(3), "odd"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var obj runtime.Object = tt.core
			if tt.new != nil {
				obj = tt.new
			}
			if diff := cmp.Diff(tt.want, rowCells(t, obj)); diff != "" {
				t.Errorf("cells (-want +got):\n%s", diff)
			}
		})
	}
}

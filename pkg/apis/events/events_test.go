package events_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/events"
)

var eventTime = metav1.NewMicroTime(time.Date(2026, 11, 22, 3, 41, 56, 0, time.UTC))

func validEvent() *eventsv1.Event {
	return &eventsv1.Event{
		ObjectMeta:          metav1.ObjectMeta{Name: "web.1", Namespace: "default", ResourceVersion: "1"},
		EventTime:           eventTime,
		ReportingController: "example.com/controller",
		ReportingInstance:   "controller-1",
		Action:              "Scale",
		Reason:              "ScaledUp",
		Regarding:           corev1.ObjectReference{Kind: "Deployment", Namespace: "default", Name: "web"},
		Note:                "scaled up to 3",
		Type:                corev1.EventTypeNormal,
	}
}

func TestValidateEvent(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*eventsv1.Event)
		want   []string
	}{
		{name: "valid", modify: func(*eventsv1.Event) {}},
		{
			name:   "event time is required",
			modify: func(e *eventsv1.Event) { e.EventTime = metav1.MicroTime{} },
			want:   []string{"eventTime: Required value"},
		},
		{
			name:   "the reporter is required",
			modify: func(e *eventsv1.Event) { e.ReportingController = ""; e.ReportingInstance = "" },
			want: []string{
				"reportingController: Required value",
				`reportingController: Invalid value: "": name part must be non-empty`,
				`reportingController: Invalid value: "": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
				"reportingInstance: Required value",
			},
		},
		{
			// Errors name the core/v1 fields: note is "message".
			name:   "note is limited to 1 KiB",
			modify: func(e *eventsv1.Event) { e.Note = strings.Repeat("x", 1025) },
			want:   []string{`message: Invalid value: "": can have at most 1024 characters`},
		},
		{
			name: "events about cluster-scoped objects live in default or kube-system",
			modify: func(e *eventsv1.Event) {
				e.Namespace = "apps"
				e.Regarding = corev1.ObjectReference{Kind: "Node", Name: "node-1"}
			},
			want: []string{`involvedObject.namespace: Invalid value: "": does not match event.namespace`},
		},
		{
			name:   "type is Normal or Warning",
			modify: func(e *eventsv1.Event) { e.Type = "Info" },
			want:   []string{`type: Invalid value: "": has invalid value: Info`},
		},
		{
			name: "deprecated fields must be unset",
			modify: func(e *eventsv1.Event) {
				e.DeprecatedCount = 2
				e.DeprecatedSource = corev1.EventSource{Component: "kubelet"}
			},
			want: []string{`count: Invalid value: "": needs to be unset`, `source: Invalid value: "": needs to be unset`},
		},
		{
			name:   "a series has at least two events",
			modify: func(e *eventsv1.Event) { e.Series = &eventsv1.EventSeries{Count: 1} },
			want:   []string{`series.count: Invalid value: "": should be at least 2`, "series.lastObservedTime: Required value"},
		},
		{
			name:   "metadata is validated",
			modify: func(e *eventsv1.Event) { e.Name = "" },
			want:   []string{"metadata.name: Required value: name or generateName is required"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := validEvent()
			tc.modify(e)
			assertErrors(t, events.ValidateEvent(e), tc.want)
		})
	}
}

func TestValidateEventUpdate(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*eventsv1.Event)
		want   []string
	}{
		{
			name:   "a series may grow",
			modify: func(e *eventsv1.Event) { e.Series = &eventsv1.EventSeries{Count: 2, LastObservedTime: eventTime} },
		},
		{
			name:   "the note is immutable",
			modify: func(e *eventsv1.Event) { e.Note = "something else" },
			want:   []string{`message: Invalid value: "something else": field is immutable`},
		},
		{
			name:   "the reason is immutable, and reported twice",
			modify: func(e *eventsv1.Event) { e.Reason = "ScaledDown" },
			want:   []string{`reason: Invalid value: "ScaledDown": field is immutable`, `reason: Invalid value: "ScaledDown": field is immutable`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			oldEvent := validEvent()
			newEvent := oldEvent.DeepCopy()
			tc.modify(newEvent)
			assertErrors(t, events.ValidateEventUpdate(newEvent, oldEvent), tc.want)
		})
	}
}

func TestConversionRoundTrip(t *testing.T) {
	e := validEvent()
	e.Series = &eventsv1.EventSeries{Count: 3, LastObservedTime: eventTime}
	e.Related = &corev1.ObjectReference{Kind: "ReplicaSet", Name: "web-1"}
	e.DeprecatedSource = corev1.EventSource{Component: "c", Host: "h"}
	e.DeprecatedFirstTimestamp = metav1.NewTime(eventTime.Time)
	e.DeprecatedLastTimestamp = metav1.NewTime(eventTime.Time)
	e.DeprecatedCount = 3

	scheme := runtime.NewScheme()
	if err := events.AddConversions(scheme); err != nil {
		t.Fatal(err)
	}
	core := &corev1.Event{}
	if err := scheme.Convert(e, core, nil); err != nil {
		t.Fatal(err)
	}
	if core.Message != e.Note || core.InvolvedObject != e.Regarding || core.Count != 3 || core.Series.Count != 3 {
		t.Errorf("core event lost fields: %+v", core)
	}
	back := &eventsv1.Event{}
	if err := scheme.Convert(core, back, nil); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(e, back); diff != "" {
		t.Errorf("round trip changed the event (-want +got):\n%s", diff)
	}
}

func assertErrors(t *testing.T, errs field.ErrorList, want []string) {
	t.Helper()
	var got []string
	for _, err := range errs {
		got = append(got, err.Error())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors differ (-want +got):\n%s", diff)
	}
}

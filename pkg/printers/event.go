package printers

import (
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var eventDoc = corev1.Event{}.SwaggerDoc()

// eventColumns are those of both v1 and events.k8s.io/v1 Events, which
// are one resource in two shapes. Their descriptions are the v1 fields'.
var eventColumns = []metav1.TableColumnDefinition{
	column("Last Seen", "string", eventDoc["lastTimestamp"]),
	column("Type", "string", eventDoc["type"]),
	column("Reason", "string", eventDoc["reason"]),
	column("Object", "string", eventDoc["involvedObject"]),
	wide(column("Subobject", "string", corev1.ObjectReference{}.SwaggerDoc()["fieldPath"])),
	wide(column("Source", "string", eventDoc["source"])),
	column("Message", "string", eventDoc["message"]),
	wide(column("First Seen", "string", eventDoc["firstTimestamp"])),
	wide(column("Count", "string", eventDoc["count"])),
	wide(nameColumn),
}

// event is what the event columns show, taken from either shape of an
// Event.
type event struct {
	name           string
	firstTimestamp metav1.Time
	lastTimestamp  metav1.Time
	eventTime      metav1.MicroTime
	count          int32
	series         *eventsv1.EventSeries
	eventType      string
	reason         string
	message        string
	regarding      corev1.ObjectReference
	source         corev1.EventSource
	// reportingController and reportingInstance stand in for the
	// source's component and host when those are empty.
	reportingController string
	reportingInstance   string
}

func printCoreEvent(e *corev1.Event, now time.Time) []any {
	ev := event{
		name:                e.Name,
		firstTimestamp:      e.FirstTimestamp,
		lastTimestamp:       e.LastTimestamp,
		eventTime:           e.EventTime,
		count:               e.Count,
		eventType:           e.Type,
		reason:              e.Reason,
		message:             e.Message,
		regarding:           e.InvolvedObject,
		source:              e.Source,
		reportingController: e.ReportingController,
		reportingInstance:   e.ReportingInstance,
	}
	if e.Series != nil {
		ev.series = &eventsv1.EventSeries{Count: e.Series.Count, LastObservedTime: e.Series.LastObservedTime}
	}
	return ev.cells(now)
}

func printEventsEvent(e *eventsv1.Event, now time.Time) []any {
	ev := event{
		name:                e.Name,
		firstTimestamp:      e.DeprecatedFirstTimestamp,
		lastTimestamp:       e.DeprecatedLastTimestamp,
		eventTime:           e.EventTime,
		count:               e.DeprecatedCount,
		series:              e.Series,
		eventType:           e.Type,
		reason:              e.Reason,
		message:             e.Note,
		regarding:           e.Regarding,
		source:              e.DeprecatedSource,
		reportingController: e.ReportingController,
		reportingInstance:   e.ReportingInstance,
	}
	return ev.cells(now)
}

// cells renders an event. The first time falls back to eventTime, the
// last time to the first (or to the series' last observation), and the
// count to 1 for a singleton event of the new API, which sets none.
func (e *event) cells(now time.Time) []any {
	first := since(e.firstTimestamp, now)
	if e.firstTimestamp.IsZero() {
		first = sinceMicro(e.eventTime, now)
	}
	last := since(e.lastTimestamp, now)
	if e.lastTimestamp.IsZero() {
		last = first
	}
	count := e.count
	if e.series != nil {
		last = sinceMicro(e.series.LastObservedTime, now)
		count = e.series.Count
	} else if count == 0 {
		count = 1
	}

	object := strings.ToLower(e.regarding.Kind)
	if e.regarding.Name != "" {
		object += "/" + e.regarding.Name
	}

	return []any{
		last,
		e.eventType,
		e.reason,
		object,
		e.regarding.FieldPath,
		eventSource(firstNonEmpty(e.source.Component, e.reportingController), firstNonEmpty(e.source.Host, e.reportingInstance)),
		strings.TrimSpace(e.message),
		first,
		int64(count),
		e.name,
	}
}

// eventSource is "component, host", or "component" without a host.
func eventSource(component, host string) string {
	if host == "" {
		return component
	}
	return component + ", " + host
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

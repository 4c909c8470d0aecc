package events

import (
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"
)

// ToCoreEvent returns the core/v1 form of an events.k8s.io/v1 Event. The
// result shares no memory with e.
func ToCoreEvent(e *eventsv1.Event) *corev1.Event {
	e = e.DeepCopy()
	out := &corev1.Event{
		ObjectMeta:          e.ObjectMeta,
		InvolvedObject:      e.Regarding,
		Reason:              e.Reason,
		Message:             e.Note,
		Source:              e.DeprecatedSource,
		FirstTimestamp:      e.DeprecatedFirstTimestamp,
		LastTimestamp:       e.DeprecatedLastTimestamp,
		Count:               e.DeprecatedCount,
		Type:                e.Type,
		EventTime:           e.EventTime,
		Action:              e.Action,
		Related:             e.Related,
		ReportingController: e.ReportingController,
		ReportingInstance:   e.ReportingInstance,
	}
	if e.Series != nil {
		out.Series = &corev1.EventSeries{Count: e.Series.Count, LastObservedTime: e.Series.LastObservedTime}
	}
	return out
}

// FromCoreEvent returns the events.k8s.io/v1 form of a core/v1 Event. The
// result shares no memory with e.
func FromCoreEvent(e *corev1.Event) *eventsv1.Event {
	e = e.DeepCopy()
	out := &eventsv1.Event{
		ObjectMeta:               e.ObjectMeta,
		EventTime:                e.EventTime,
		ReportingController:      e.ReportingController,
		ReportingInstance:        e.ReportingInstance,
		Action:                   e.Action,
		Reason:                   e.Reason,
		Regarding:                e.InvolvedObject,
		Related:                  e.Related,
		Note:                     e.Message,
		Type:                     e.Type,
		DeprecatedSource:         e.Source,
		DeprecatedFirstTimestamp: e.FirstTimestamp,
		DeprecatedLastTimestamp:  e.LastTimestamp,
		DeprecatedCount:          e.Count,
	}
	if e.Series != nil {
		out.Series = &eventsv1.EventSeries{Count: e.Series.Count, LastObservedTime: e.Series.LastObservedTime}
	}
	return out
}

// AddConversions registers the conversions between events.k8s.io/v1 and
// core/v1 Events in scheme, so that scheme.Convert works between them.
func AddConversions(scheme *runtime.Scheme) error {
	if err := scheme.AddConversionFunc((*eventsv1.Event)(nil), (*corev1.Event)(nil), func(a, b any, _ conversion.Scope) error {
		*b.(*corev1.Event) = *ToCoreEvent(a.(*eventsv1.Event))
		return nil
	}); err != nil {
		return err
	}
	if err := scheme.AddConversionFunc((*corev1.Event)(nil), (*eventsv1.Event)(nil), func(a, b any, _ conversion.Scope) error {
		*b.(*eventsv1.Event) = *FromCoreEvent(a.(*corev1.Event))
		return nil
	}); err != nil {
		return err
	}
	// Lists are converted item by item: both APIs list the same objects.
	if err := scheme.AddConversionFunc((*eventsv1.EventList)(nil), (*corev1.EventList)(nil), func(a, b any, _ conversion.Scope) error {
		in, out := a.(*eventsv1.EventList), b.(*corev1.EventList)
		out.ListMeta = in.ListMeta
		out.Items = make([]corev1.Event, len(in.Items))
		for i := range in.Items {
			out.Items[i] = *ToCoreEvent(&in.Items[i])
		}
		return nil
	}); err != nil {
		return err
	}
	return scheme.AddConversionFunc((*corev1.EventList)(nil), (*eventsv1.EventList)(nil), func(a, b any, _ conversion.Scope) error {
		in, out := a.(*corev1.EventList), b.(*eventsv1.EventList)
		out.ListMeta = in.ListMeta
		out.Items = make([]eventsv1.Event, len(in.Items))
		for i := range in.Items {
			out.Items[i] = *FromCoreEvent(&in.Items[i])
		}
		return nil
	})
}

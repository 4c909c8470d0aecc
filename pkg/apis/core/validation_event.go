package core

import (
	"fmt"
	"reflect"

	v1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Length limits of event fields.
const (
	eventReportingInstanceMaxLength = 128
	eventActionMaxLength            = 128
	eventReasonMaxLength            = 128
	eventNoteMaxLength              = 1024
)

// ValidateEvent validates an Event created through core/v1. Events are
// validated loosely there, for the many old clients that write them: not
// even the metadata is checked. See ValidateEventStrict for events written
// through events.k8s.io.
func ValidateEvent(e *v1.Event) field.ErrorList {
	var allErrs field.ErrorList
	if e.EventTime.IsZero() {
		// An old-style event: it must be in its object's namespace (or, for
		// cluster-scoped objects, in no namespace or "default").
		if e.InvolvedObject.Namespace == "" {
			if e.Namespace != metav1.NamespaceNone && e.Namespace != metav1.NamespaceDefault {
				allErrs = append(allErrs, involvedNamespaceMismatch(e))
			}
		} else if e.Namespace != e.InvolvedObject.Namespace {
			allErrs = append(allErrs, involvedNamespaceMismatch(e))
		}
	} else {
		// A new-style event: it must say who reported what.
		if e.InvolvedObject.Namespace == "" && e.Namespace != metav1.NamespaceDefault && e.Namespace != metav1.NamespaceSystem {
			allErrs = append(allErrs, involvedNamespaceMismatch(e))
		}
		if e.ReportingController == "" {
			allErrs = append(allErrs, field.Required(field.NewPath("reportingController"), ""))
		}
		allErrs = append(allErrs, validateQualifiedName(e.ReportingController, field.NewPath("reportingController"))...)
		allErrs = append(allErrs, validateEventString(e.ReportingInstance, "reportingInstance", true, eventReportingInstanceMaxLength)...)
		allErrs = append(allErrs, validateEventString(e.Action, "action", true, eventActionMaxLength)...)
		allErrs = append(allErrs, validateEventString(e.Reason, "reason", true, eventReasonMaxLength)...)
		allErrs = append(allErrs, validateEventString(e.Message, "message", false, eventNoteMaxLength)...)
	}
	return append(allErrs, messagesToErrors(validation.IsDNS1123Subdomain(e.Namespace), e.Namespace, field.NewPath("namespace"))...)
}

func involvedNamespaceMismatch(e *v1.Event) *field.Error {
	return field.Invalid(field.NewPath("involvedObject", "namespace"), e.InvolvedObject.Namespace, "does not match event.namespace")
}

// validateEventString checks that a string field is set (when required)
// and not longer than maxLength. The value is not echoed back.
func validateEventString(value, name string, required bool, maxLength int) field.ErrorList {
	var allErrs field.ErrorList
	if required && value == "" {
		allErrs = append(allErrs, field.Required(field.NewPath(name), ""))
	}
	if len(value) > maxLength {
		allErrs = append(allErrs, field.Invalid(field.NewPath(name), "", fmt.Sprintf("can have at most %v characters", maxLength)))
	}
	return allErrs
}

// ValidateEventUpdate validates an update of an Event through core/v1,
// with the same loose rules as on create.
func ValidateEventUpdate(newEvent, _ *v1.Event) field.ErrorList {
	return ValidateEvent(newEvent)
}

// ValidateEventStrict validates an Event created through events.k8s.io/v1
// (given here in its core/v1 form): the core/v1 rules, plus metadata, an
// event time, a known type, no deprecated fields, and a sound series.
// Errors use the field names of the core/v1 Event, as kube-apiserver's do.
func ValidateEventStrict(e *v1.Event) field.ErrorList {
	allErrs := ValidateEvent(e)
	allErrs = append(allErrs, ValidateObjectMeta(&e.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, metadataPath)...)
	allErrs = append(allErrs, validateEventSeries(e)...)
	if e.EventTime.IsZero() {
		allErrs = append(allErrs, field.Required(field.NewPath("eventTime"), ""))
	}
	if e.Type != v1.EventTypeNormal && e.Type != v1.EventTypeWarning {
		allErrs = append(allErrs, field.Invalid(field.NewPath("type"), "", fmt.Sprintf("has invalid value: %v", e.Type)))
	}
	if !e.FirstTimestamp.IsZero() {
		allErrs = append(allErrs, field.Invalid(field.NewPath("firstTimestamp"), "", "needs to be unset"))
	}
	if !e.LastTimestamp.IsZero() {
		allErrs = append(allErrs, field.Invalid(field.NewPath("lastTimestamp"), "", "needs to be unset"))
	}
	if e.Count != 0 {
		allErrs = append(allErrs, field.Invalid(field.NewPath("count"), "", "needs to be unset"))
	}
	if e.Source.Component != "" || e.Source.Host != "" {
		allErrs = append(allErrs, field.Invalid(field.NewPath("source"), "", "needs to be unset"))
	}
	return allErrs
}

// ValidateEventStrictUpdate validates an update of an Event through
// events.k8s.io/v1: only the series (and metadata) may change.
func ValidateEventStrictUpdate(newEvent, oldEvent *v1.Event) field.ErrorList {
	allErrs := ValidateEvent(newEvent)
	allErrs = append(allErrs, ValidateObjectMetaUpdate(&newEvent.ObjectMeta, &oldEvent.ObjectMeta, metadataPath)...)
	if !reflect.DeepEqual(newEvent.Series, oldEvent.Series) {
		allErrs = append(allErrs, validateEventSeries(newEvent)...)
	}
	for _, f := range []struct {
		name     string
		new, old any
	}{
		// Structs show as kube-apiserver's internal types show them.
		{"involvedObject", internalJSON(newEvent.InvolvedObject), internalJSON(oldEvent.InvolvedObject)},
		{"reason", newEvent.Reason, oldEvent.Reason},
		{"message", newEvent.Message, oldEvent.Message},
		{"source", internalJSON(newEvent.Source), internalJSON(oldEvent.Source)},
		{"firstTimestamp", newEvent.FirstTimestamp, oldEvent.FirstTimestamp},
		{"lastTimestamp", newEvent.LastTimestamp, oldEvent.LastTimestamp},
		{"count", newEvent.Count, oldEvent.Count},
		// reason is checked twice by kube-apiserver; so it is here.
		{"reason", newEvent.Reason, oldEvent.Reason},
		{"type", newEvent.Type, oldEvent.Type},
		{"eventTime", newEvent.EventTime, oldEvent.EventTime},
		{"action", newEvent.Action, oldEvent.Action},
		{"related", internalJSON(newEvent.Related), internalJSON(oldEvent.Related)},
		{"reportingController", newEvent.ReportingController, oldEvent.ReportingController},
		{"reportingInstance", newEvent.ReportingInstance, oldEvent.ReportingInstance},
	} {
		allErrs = append(allErrs, apivalidation.ValidateImmutableField(f.new, f.old, field.NewPath(f.name))...)
	}
	return allErrs
}

func validateEventSeries(e *v1.Event) field.ErrorList {
	if e.Series == nil {
		return nil
	}
	var allErrs field.ErrorList
	if e.Series.Count < 2 {
		allErrs = append(allErrs, field.Invalid(field.NewPath("series.count"), "", "should be at least 2"))
	}
	if e.Series.LastObservedTime.IsZero() {
		allErrs = append(allErrs, field.Required(field.NewPath("series.lastObservedTime"), ""))
	}
	return allErrs
}

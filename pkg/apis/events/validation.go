package events

import (
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
)

// ValidateEvent validates an events.k8s.io/v1 Event on create, with the
// strict rules of that API (see core.ValidateEventStrict).
func ValidateEvent(e *eventsv1.Event) field.ErrorList {
	return core.ValidateEventStrict(ToCoreEvent(e))
}

// ValidateEventUpdate validates an update of an events.k8s.io/v1 Event:
// apart from metadata, only the series may change.
func ValidateEventUpdate(newEvent, oldEvent *eventsv1.Event) field.ErrorList {
	return core.ValidateEventStrictUpdate(ToCoreEvent(newEvent), ToCoreEvent(oldEvent))
}

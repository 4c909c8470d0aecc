// Package event is the REST storage of events, served both as core/v1
// Event and as events.k8s.io/v1 Event from the same objects, stored in
// their core/v1 form.
package event

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct{ generic.DefaultStrategy }

// Strategy is the behaviour of events. Which rules apply depends on the
// API the event was written through, as in kube-apiserver, which also
// lets a PUT create a missing event.
var Strategy = strategy{generic.DefaultStrategy{Namespaced: true, CreateOnUpdate: true}}

func (strategy) PrepareForCreate(context.Context, runtime.Object) {}

func (strategy) PrepareForUpdate(context.Context, runtime.Object, runtime.Object) {}

// Events written through events.k8s.io get that API's stricter rules;
// those written through core/v1 keep the legacy ones.
func (strategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	if requestGroup(ctx) == eventsv1.GroupName {
		return core.ValidateEventStrict(obj.(*corev1.Event))
	}
	return core.ValidateEvent(obj.(*corev1.Event))
}

func (strategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	if requestGroup(ctx) == eventsv1.GroupName {
		return core.ValidateEventStrictUpdate(obj.(*corev1.Event), old.(*corev1.Event))
	}
	return core.ValidateEventUpdate(obj.(*corev1.Event), old.(*corev1.Event))
}

// requestGroup is the API group the request addressed: "" or
// "events.k8s.io".
func requestGroup(ctx context.Context) string {
	if info, ok := request.RequestInfoFrom(ctx); ok {
		return info.APIGroup
	}
	return ""
}

// coreFields are the fields events can be selected by through core/v1.
func coreFields(obj runtime.Object) fields.Set {
	e := obj.(*corev1.Event)
	source := e.Source.Component
	if source == "" {
		source = e.ReportingController
	}
	return fields.Set{
		"involvedObject.kind":            e.InvolvedObject.Kind,
		"involvedObject.namespace":       e.InvolvedObject.Namespace,
		"involvedObject.name":            e.InvolvedObject.Name,
		"involvedObject.uid":             string(e.InvolvedObject.UID),
		"involvedObject.apiVersion":      e.InvolvedObject.APIVersion,
		"involvedObject.resourceVersion": e.InvolvedObject.ResourceVersion,
		"involvedObject.fieldPath":       e.InvolvedObject.FieldPath,
		"reason":                         e.Reason,
		"reportingComponent":             e.ReportingController,
		"source":                         source,
		"type":                           e.Type,
	}
}

// eventsFields are the fields events can be selected by through
// events.k8s.io/v1, named as that API names them: regarding is core's
// involvedObject, reportingController its reportingComponent, and there
// is no source.
func eventsFields(obj runtime.Object) fields.Set {
	e := obj.(*corev1.Event)
	return fields.Set{
		"regarding.kind":            e.InvolvedObject.Kind,
		"regarding.namespace":       e.InvolvedObject.Namespace,
		"regarding.name":            e.InvolvedObject.Name,
		"regarding.uid":             string(e.InvolvedObject.UID),
		"regarding.apiVersion":      e.InvolvedObject.APIVersion,
		"regarding.resourceVersion": e.InvolvedObject.ResourceVersion,
		"regarding.fieldPath":       e.InvolvedObject.FieldPath,
		"reason":                    e.Reason,
		"reportingController":       e.ReportingController,
		"type":                      e.Type,
	}
}

// Storage is the REST storage of events.
type Storage struct {
	Event *generic.Store
}

// NewStorage returns the storage of events as the API servedAs serves
// them, core/v1 or events.k8s.io/v1: the same objects under the same
// keys, selectable by the field names of that API.
func NewStorage(opts generic.RESTOptions, servedAs schema.GroupVersion) (*Storage, error) {
	selectable := coreFields
	switch servedAs {
	case corev1.SchemeGroupVersion:
	case eventsv1.SchemeGroupVersion:
		selectable = eventsFields
	default:
		return nil, fmt.Errorf("events are not served in %s", servedAs)
	}
	s := &generic.Store{
		NewFunc:     func() runtime.Object { return &corev1.Event{} },
		NewListFunc: func() runtime.Object { return &corev1.EventList{} },
		// Errors name the resource of the API that serves it:
		// events.events.k8s.io through events.k8s.io/v1.
		DefaultQualifiedResource:  servedAs.WithResource("events").GroupResource(),
		SingularQualifiedResource: servedAs.WithResource("event").GroupResource(),
		// Counted once, as core's (apiserver_resource_objects has no
		// events.k8s.io series; lists of events.k8s.io events cost the
		// minimum seats, as in kube-apiserver).
		CountedResource: schema.GroupResource{Resource: "events"},
		KeyPrefix:       "/events",
		FieldsFunc:      selectable,
		CreateStrategy:  Strategy,
		UpdateStrategy:  Strategy,
		DeleteStrategy:  Strategy,
		ShortNamesList:  []string{"ev"},
	}
	if err := opts.Complete(s, corev1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{Event: s}, nil
}

// Map returns the storage by path: "events".
func (s *Storage) Map() map[string]rest.Storage {
	return map[string]rest.Storage{s.Event.DefaultQualifiedResource.Resource: s.Event}
}

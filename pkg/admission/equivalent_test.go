package admission

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Resources are equivalent when they keep their objects in the same
// storage, across groups (core/v1 and events.k8s.io/v1 events) as across
// versions; a resource without a named storage is equivalent to its own
// versions only. The resource asked about comes first, then its other
// versions, then the other resources.
func TestEquivalentResourcesShareTheirStorage(t *testing.T) {
	r := NewEquivalentResourceRegistry()
	gvr := func(g, v, res string) schema.GroupVersionResource {
		return schema.GroupVersionResource{Group: g, Version: v, Resource: res}
	}
	register := func(res schema.GroupVersionResource, kind string, storage string) {
		r.RegisterKindFor(res, "", schema.GroupVersionKind{Group: res.Group, Version: res.Version, Kind: kind})
		r.RegisterStorage(res.GroupResource(), storage)
	}
	register(gvr("", "v1", "events"), "Event", "/events")
	register(gvr("events.k8s.io", "v1", "events"), "Event", "/events")
	register(gvr("autoscaling", "v2", "horizontalpodautoscalers"), "HorizontalPodAutoscaler", "/horizontalpodautoscalers")
	register(gvr("autoscaling", "v1", "horizontalpodautoscalers"), "HorizontalPodAutoscaler", "/horizontalpodautoscalers")
	r.RegisterKindFor(gvr("autoscaling", "v1", "horizontalpodautoscalers"), "status", schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "HorizontalPodAutoscaler"})
	r.RegisterKindFor(gvr("authentication.k8s.io", "v1", "tokenreviews"), "", schema.GroupVersionKind{Group: "authentication.k8s.io", Version: "v1", Kind: "TokenReview"})
	r.RegisterKindFor(gvr("example.com", "v1", "tokenreviews"), "", schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "TokenReview"})

	cases := []struct {
		resource    schema.GroupVersionResource
		subresource string
		want        []schema.GroupVersionResource
	}{
		{gvr("", "v1", "events"), "", []schema.GroupVersionResource{gvr("", "v1", "events"), gvr("events.k8s.io", "v1", "events")}},
		{gvr("events.k8s.io", "v1", "events"), "", []schema.GroupVersionResource{gvr("events.k8s.io", "v1", "events"), gvr("", "v1", "events")}},
		{gvr("autoscaling", "v2", "horizontalpodautoscalers"), "", []schema.GroupVersionResource{gvr("autoscaling", "v2", "horizontalpodautoscalers"), gvr("autoscaling", "v1", "horizontalpodautoscalers")}},
		// Only v1 serves the subresource.
		{gvr("autoscaling", "v1", "horizontalpodautoscalers"), "status", []schema.GroupVersionResource{gvr("autoscaling", "v1", "horizontalpodautoscalers")}},
		{gvr("authentication.k8s.io", "v1", "tokenreviews"), "", []schema.GroupVersionResource{gvr("authentication.k8s.io", "v1", "tokenreviews")}},
		{gvr("", "v1", "pods"), "", nil},
	}
	for _, c := range cases {
		if got := r.EquivalentResourcesFor(c.resource, c.subresource); !slices.Equal(got, c.want) {
			t.Errorf("EquivalentResourcesFor(%v, %q) = %v, want %v", c.resource, c.subresource, got, c.want)
		}
	}
	if got, want := r.KindFor(gvr("events.k8s.io", "v1", "events"), ""), (schema.GroupVersionKind{Group: "events.k8s.io", Version: "v1", Kind: "Event"}); got != want {
		t.Errorf("KindFor(events.k8s.io/v1 events) = %v, want %v", got, want)
	}
}

package admission

import (
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// EquivalentResources knows which resources are the same objects served
// at another version or in another group (autoscaling/v1 and v2
// horizontalpodautoscalers, the versions of a custom resource, core/v1
// and events.k8s.io/v1 events), and the kind each serves. Webhooks and
// policies with matchPolicy Equivalent are called for a write through any
// of them, with the object converted to the version they registered for.
type EquivalentResources interface {
	// EquivalentResourcesFor are the resources serving the same objects as
	// resource (itself included), with the same subresource; none if the
	// resource is unknown.
	EquivalentResourcesFor(resource schema.GroupVersionResource, subresource string) []schema.GroupVersionResource
	// KindFor is the kind resource (and subresource) serves, empty if
	// unknown.
	KindFor(resource schema.GroupVersionResource, subresource string) schema.GroupVersionKind
}

// EquivalentResourceRegistry is an EquivalentResources the installer of
// the endpoints fills as it installs each resource. As in kube-apiserver,
// resources are equivalent when they keep their objects in the same
// storage: the installer names the storage (its key prefix) of each
// resource that has one, so core/v1 events and events.k8s.io/v1 events,
// both kept below /events, are equivalent. A resource without storage
// (the reviews) is equivalent to its own versions only, as is one whose
// storage is not named.
type EquivalentResourceRegistry struct {
	mu    sync.RWMutex
	kinds map[schema.GroupResource]map[string]map[string]schema.GroupVersionKind // resource -> version -> subresource -> kind
	// storage names the storage of the resources that have one; members
	// are the resources of each storage.
	storage map[schema.GroupResource]string
	members map[string][]schema.GroupResource
}

// NewEquivalentResourceRegistry is an empty registry.
func NewEquivalentResourceRegistry() *EquivalentResourceRegistry {
	return &EquivalentResourceRegistry{
		kinds:   map[schema.GroupResource]map[string]map[string]schema.GroupVersionKind{},
		storage: map[schema.GroupResource]string{},
		members: map[string][]schema.GroupResource{},
	}
}

// RegisterStorage records that resource keeps its objects in storage (a
// storage key prefix): the resources registered with the same storage are
// equivalent.
func (r *EquivalentResourceRegistry) RegisterStorage(resource schema.GroupResource, storage string) {
	if r == nil || storage == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if old, ok := r.storage[resource]; ok {
		if old == storage {
			return
		}
		r.members[old] = slices.DeleteFunc(r.members[old], func(gr schema.GroupResource) bool { return gr == resource })
	}
	r.storage[resource] = storage
	r.members[storage] = append(r.members[storage], resource)
}

// sameStorage are the resources equivalent to resource, itself included.
func (r *EquivalentResourceRegistry) sameStorage(resource schema.GroupResource) []schema.GroupResource {
	if storage, ok := r.storage[resource]; ok {
		return r.members[storage]
	}
	return []schema.GroupResource{resource}
}

// RegisterKindFor records that resource (and subresource) serves kind.
func (r *EquivalentResourceRegistry) RegisterKindFor(resource schema.GroupVersionResource, subresource string, kind schema.GroupVersionKind) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	versions := r.kinds[resource.GroupResource()]
	if versions == nil {
		versions = map[string]map[string]schema.GroupVersionKind{}
		r.kinds[resource.GroupResource()] = versions
	}
	subs := versions[resource.Version]
	if subs == nil {
		subs = map[string]schema.GroupVersionKind{}
		versions[resource.Version] = subs
	}
	subs[subresource] = kind
}

// ForgetVersion removes a version no longer served (of a custom resource
// whose definition changed or went away).
func (r *EquivalentResourceRegistry) ForgetVersion(resource schema.GroupVersionResource) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.kinds[resource.GroupResource()], resource.Version)
}

func (r *EquivalentResourceRegistry) EquivalentResourcesFor(resource schema.GroupVersionResource, subresource string) []schema.GroupVersionResource {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []schema.GroupVersionResource
	for _, gr := range r.sameStorage(resource.GroupResource()) {
		for version, subs := range r.kinds[gr] {
			if _, ok := subs[subresource]; ok {
				out = append(out, gr.WithVersion(version))
			}
		}
	}
	sortResources(out, resource)
	return out
}

func (r *EquivalentResourceRegistry) KindFor(resource schema.GroupVersionResource, subresource string) schema.GroupVersionKind {
	if r == nil {
		return schema.GroupVersionKind{}
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.kinds[resource.GroupResource()][resource.Version][subresource]
}

// sortResources orders the equivalents the same way every time: the
// resource asked about first, then its other versions, then the other
// resources by group and version.
func sortResources(rs []schema.GroupVersionResource, first schema.GroupVersionResource) {
	for i := 1; i < len(rs); i++ {
		for j := i; j > 0 && less(rs[j], rs[j-1], first); j-- {
			rs[j], rs[j-1] = rs[j-1], rs[j]
		}
	}
}

func less(a, b schema.GroupVersionResource, first schema.GroupVersionResource) bool {
	if (a == first) != (b == first) {
		return a == first
	}
	own := first.GroupResource()
	if (a.GroupResource() == own) != (b.GroupResource() == own) {
		return a.GroupResource() == own
	}
	if a.Group != b.Group {
		return a.Group < b.Group
	}
	if a.Resource != b.Resource {
		return a.Resource < b.Resource
	}
	return a.Version < b.Version
}

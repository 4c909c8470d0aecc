package admission

import (
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// EquivalentResources knows which resources are the same objects served
// at another version (autoscaling/v1 and v2 horizontalpodautoscalers, the
// versions of a custom resource), and the kind each serves. Webhooks and
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
// the endpoints fills as it installs each resource. Resources are
// equivalent when they have the same group and name: kapi serves no
// resource under two groups with admission-visible writes to both, but
// the cross-group pairs of kube-apiserver (events and events.k8s.io
// events) are not known to it.
type EquivalentResourceRegistry struct {
	mu    sync.RWMutex
	kinds map[schema.GroupResource]map[string]map[string]schema.GroupVersionKind // resource -> version -> subresource -> kind
}

// NewEquivalentResourceRegistry is an empty registry.
func NewEquivalentResourceRegistry() *EquivalentResourceRegistry {
	return &EquivalentResourceRegistry{kinds: map[schema.GroupResource]map[string]map[string]schema.GroupVersionKind{}}
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
	for version, subs := range r.kinds[resource.GroupResource()] {
		if _, ok := subs[subresource]; ok {
			out = append(out, resource.GroupResource().WithVersion(version))
		}
	}
	sortResources(out, resource.Version)
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
// resource asked about first, then by version.
func sortResources(rs []schema.GroupVersionResource, first string) {
	for i := 1; i < len(rs); i++ {
		for j := i; j > 0 && less(rs[j], rs[j-1], first); j-- {
			rs[j], rs[j-1] = rs[j-1], rs[j]
		}
	}
}

func less(a, b schema.GroupVersionResource, first string) bool {
	if (a.Version == first) != (b.Version == first) {
		return a.Version == first
	}
	return a.Version < b.Version
}

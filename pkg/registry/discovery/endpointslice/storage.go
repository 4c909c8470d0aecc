// Package endpointslice is the REST storage of discovery.k8s.io/v1
// endpointslices.
package endpointslice

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/apis/discovery"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct{ generic.DefaultStrategy }

// Strategy is the behaviour of endpointslices: metadata.generation counts
// changes of anything but the metadata (and of the labels, which say which
// Service a slice belongs to), and the deprecated topology of v1beta1 is
// dropped on every write of the endpoints through v1.
var Strategy = strategy{generic.DefaultStrategy{Namespaced: true}}

func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	es := obj.(*discoveryv1.EndpointSlice)
	es.Generation = 1
	dropDeprecatedTopology(nil, es)
}

func (strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	es, oldES := obj.(*discoveryv1.EndpointSlice), old.(*discoveryv1.EndpointSlice)
	es.Generation = oldES.Generation
	if !apiequality.Semantic.DeepEqual(withoutMeta(es), withoutMeta(oldES)) || !apiequality.Semantic.DeepEqual(es.Labels, oldES.Labels) {
		es.Generation++
	}
	dropDeprecatedTopology(oldES, es)
}

func withoutMeta(es *discoveryv1.EndpointSlice) discoveryv1.EndpointSlice {
	c := *es
	c.ObjectMeta = metav1.ObjectMeta{}
	c.TypeMeta = metav1.TypeMeta{}
	return c
}

// dropDeprecatedTopology clears deprecatedTopology, which only v1beta1
// could write, when the endpoints change. A node name the old slice
// recorded only there moves to nodeName, so that a partial update keeps
// it.
func dropDeprecatedTopology(oldES, es *discoveryv1.EndpointSlice) {
	if oldES != nil && apiequality.Semantic.DeepEqual(oldES.Endpoints, es.Endpoints) {
		return
	}
	oldNodes := map[string]bool{}
	if oldES != nil {
		for _, ep := range oldES.Endpoints {
			if n := ep.DeprecatedTopology[corev1.LabelHostname]; n != "" {
				oldNodes[n] = true
			}
		}
	}
	for i := range es.Endpoints {
		ep := &es.Endpoints[i]
		if n, ok := ep.DeprecatedTopology[corev1.LabelHostname]; ok && ep.NodeName == nil && oldNodes[n] &&
			len(core.ValidateNodeName(n, field.NewPath("nodeName"))) == 0 {
			ep.NodeName = &n
		}
		ep.DeprecatedTopology = nil
	}
}

func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return discovery.ValidateEndpointSlice(obj.(*discoveryv1.EndpointSlice))
}

func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return discovery.ValidateEndpointSliceUpdate(obj.(*discoveryv1.EndpointSlice), old.(*discoveryv1.EndpointSlice))
}

func (strategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	return discovery.WarningsForEndpointSlice(obj.(*discoveryv1.EndpointSlice), true)
}

func (strategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return discovery.WarningsForEndpointSlice(obj.(*discoveryv1.EndpointSlice), false)
}

// Storage is the REST storage of endpointslices.
type Storage struct {
	EndpointSlice *generic.Store
}

// NewStorage returns the storage of endpointslices.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &discoveryv1.EndpointSlice{} },
		NewListFunc:               func() runtime.Object { return &discoveryv1.EndpointSliceList{} },
		DefaultQualifiedResource:  discoveryv1.Resource("endpointslices"),
		SingularQualifiedResource: discoveryv1.Resource("endpointslice"),
		KeyPrefix:                 "/endpointslices",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
	}
	if err := opts.Complete(s, discoveryv1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{EndpointSlice: s}, nil
}

// Map returns the storage by path: "endpointslices".
func (s *Storage) Map() map[string]rest.Storage {
	return map[string]rest.Storage{s.EndpointSlice.DefaultQualifiedResource.Resource: s.EndpointSlice}
}

package server

import (
	"sort"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/openapi"
)

// OpenAPIResources collects the resources of every group version the
// servers of a chain serve, and keeps the OpenAPI documents in step with
// them, as discovery.Registry does for discovery.
type OpenAPIResources struct {
	service *openapi.Service

	mu   sync.Mutex
	byGV map[schema.GroupVersion][]openapi.Resource
}

// NewOpenAPIResources publishes to service.
func NewOpenAPIResources(service *openapi.Service) *OpenAPIResources {
	return &OpenAPIResources{service: service, byGV: map[schema.GroupVersion][]openapi.Resource{}}
}

// Set replaces the resources of a group version.
func (o *OpenAPIResources) Set(gv schema.GroupVersion, resources []openapi.Resource) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.byGV[gv] = resources
	return o.publish()
}

// Remove drops a group version.
func (o *OpenAPIResources) Remove(gv schema.GroupVersion) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.byGV, gv)
	return o.publish()
}

// publish hands the whole set to the service, in a stable order so that
// unchanged documents keep their hashes.
func (o *OpenAPIResources) publish() error {
	gvs := make([]schema.GroupVersion, 0, len(o.byGV))
	for gv := range o.byGV {
		gvs = append(gvs, gv)
	}
	sort.Slice(gvs, func(i, j int) bool { return gvs[i].String() < gvs[j].String() })
	var all []openapi.Resource
	for _, gv := range gvs {
		all = append(all, o.byGV[gv]...)
	}
	return o.service.Update(all)
}

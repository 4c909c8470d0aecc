package server

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/openapi"
)

// OpenAPIResources collects the resources of every group version the
// servers of a chain serve, and keeps the OpenAPI documents in step with
// them, as discovery.Registry does for discovery.
type OpenAPIResources struct {
	service *openapi.Service
}

// NewOpenAPIResources publishes to service.
func NewOpenAPIResources(service *openapi.Service) *OpenAPIResources {
	return &OpenAPIResources{service: service}
}

// Set replaces the resources of a group version. Only that group version
// is described again: setting the resources of one CRD among many is
// cheap.
func (o *OpenAPIResources) Set(gv schema.GroupVersion, resources []openapi.Resource) error {
	return o.service.SetGroupVersion(gv, resources)
}

// Remove drops a group version.
func (o *OpenAPIResources) Remove(gv schema.GroupVersion) error {
	return o.service.SetGroupVersion(gv, nil)
}

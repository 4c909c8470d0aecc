package openapi

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// Resource is one REST resource of a group version, as the OpenAPI documents
// describe it. The server fills it from the storage it installs, the same
// facts it publishes in discovery.
type Resource struct {
	// GVK is the kind of the objects, in the group version that serves them
	// (apps/v1 Deployment).
	GVK schema.GroupVersionKind
	// ListGVK is the kind a list returns (apps/v1 DeploymentList). Required
	// with the list verb.
	ListGVK schema.GroupVersionKind
	// Resource is the plural, lower-case name in the URL ("deployments").
	Resource string
	// Namespaced is set for resources that live in namespaces.
	Namespaced bool
	// Verbs are the discovery verbs of the resource: get, list, watch,
	// create, update, patch, delete and deletecollection.
	Verbs []string
	// DeleteReturnsObject is set when DELETE answers with the object (pods,
	// services) rather than with a Status.
	DeleteReturnsObject bool
	// Subresources are served below an object: /{name}/<subresource>.
	Subresources []Subresource

	// Schema, when set, makes this a custom resource: its kind has no Go
	// type but this definition, and it is described as kube-apiserver
	// describes the custom resources of a CustomResourceDefinition. The
	// definitions of the kind and of its list kind are named after their
	// GVKs (com.example.stable.v1.CronTab); the operations are those of
	// kube-apiserver's CRD handler (no watch paths, JSON and YAML only);
	// and the group version's v3 document is one of custom resources (no
	// resource list, kube-apiserver's CRD title). All resources of a group
	// version are custom resources, or none is.
	Schema *KindSchema
}

// KindSchema is the definition of a kind that has no Go type, as a
// CustomResourceDefinition publishes it (see pkg/apiextensions/openapi).
// Its references to the kinds of the API (ObjectMeta) point into the
// document's definitions: #/definitions/ in V2, #/components/schemas/ in
// V3. The definition of the list kind ("<Kind>List") is built from it: its
// items are of the kind and it shares the kind's selectable fields.
type KindSchema struct {
	// V3 is the definition in the /openapi/v3 documents.
	V3 *spec.Schema
	// V2 is the definition in the Swagger 2.0 document of /openapi/v2.
	V2 *spec.Schema
}

// Subresource is a subresource of a Resource.
type Subresource struct {
	// Name is the path segment after the object's name ("status", "scale",
	// "log", "exec").
	Name string
	// GVK is the kind read and written through the subresource: the
	// parent's kind for status, autoscaling/v1 Scale for scale, policy/v1
	// Eviction for eviction. For a connect subresource it is the kind of
	// its options (PodExecOptions), as discovery has it.
	GVK schema.GroupVersionKind
	// Verbs are the discovery verbs of the subresource: get, update, patch,
	// create and delete. Connect subresources use ConnectMethods instead.
	Verbs []string

	// ConnectMethods makes this a connect subresource (exec, attach,
	// portforward, proxy): a stream to something else, for these HTTP
	// methods, whose query parameters are the fields of GVK.
	ConnectMethods []string
	// ConnectSubpath is set for connect subresources that also serve any
	// path below them (proxy/{path}).
	ConnectSubpath bool

	// GetOptions is the kind whose fields are the query parameters of get
	// (PodLogOptions for pods/log). Zero for none.
	GetOptions schema.GroupVersionKind
	// Produces makes get answer with raw bytes of these media types (pods/log:
	// text/plain) rather than with an object of kind GVK.
	Produces []string
}

// validate reports what would make a resource undescribable.
func (r *Resource) validate() error {
	if r.Resource == "" || r.GVK.Kind == "" || r.GVK.Version == "" {
		return fmt.Errorf("resource %q of kind %v: resource, kind and version are required", r.Resource, r.GVK)
	}
	if slices.Contains(r.Verbs, "list") && r.ListGVK.Kind == "" {
		return fmt.Errorf("resource %q lists but has no list kind", r.Resource)
	}
	for _, sub := range r.Subresources {
		if sub.Name == "" || sub.GVK.Kind == "" {
			return fmt.Errorf("resource %q: subresource %q has no name or kind", r.Resource, sub.Name)
		}
		if r.Schema != nil && len(sub.ConnectMethods) > 0 {
			return fmt.Errorf("resource %q: custom resources have no connect subresource (%q)", r.Resource, sub.Name)
		}
	}
	if r.Schema != nil && (r.Schema.V2 == nil || r.Schema.V3 == nil) {
		return fmt.Errorf("resource %q: a custom resource needs both definitions of its kind", r.Resource)
	}
	return nil
}

func (r *Resource) has(verb string) bool { return slices.Contains(r.Verbs, verb) }

func (s *Subresource) has(verb string) bool { return slices.Contains(s.Verbs, verb) }

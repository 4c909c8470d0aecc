package openapi

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	kapiopenapi "github.com/kapi-dev/kapi/pkg/openapi"
)

// The verbs of custom resources and of their subresources, in the order of
// kube-apiserver's discovery.
var (
	resourceVerbs    = []string{"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"}
	subresourceVerbs = []string{"get", "patch", "update"}
)

// scaleKind is what the scale subresource of every custom resource reads
// and writes.
var scaleKind = schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}

// Resource describes a version of a CustomResourceDefinition to the OpenAPI
// service: its resource, kinds, scope, subresources and the definitions of
// ResourceSchema. The OpenAPI documents of the group version are those of
// all the served versions of CRDs in it.
func Resource(crd *apiextensionsv1.CustomResourceDefinition, version string) (kapiopenapi.Resource, error) {
	v3, v2, err := ResourceSchema(crd, version)
	if err != nil {
		return kapiopenapi.Resource{}, err
	}
	gv := schema.GroupVersion{Group: crd.Spec.Group, Version: version}
	kind := gv.WithKind(crd.Spec.Names.Kind)
	listKind := crd.Spec.Names.ListKind
	if listKind == "" {
		listKind = crd.Spec.Names.Kind + "List" // the API's default
	}
	r := kapiopenapi.Resource{
		GVK:        kind,
		ListGVK:    gv.WithKind(listKind),
		Resource:   crd.Spec.Names.Plural,
		Namespaced: crd.Spec.Scope == apiextensionsv1.NamespaceScoped,
		Verbs:      resourceVerbs,
		Schema:     &kapiopenapi.KindSchema{V3: v3, V2: v2},
	}
	if sub := findVersion(crd, version).Subresources; sub != nil {
		if sub.Status != nil {
			r.Subresources = append(r.Subresources, kapiopenapi.Subresource{Name: "status", GVK: kind, Verbs: subresourceVerbs})
		}
		if sub.Scale != nil {
			r.Subresources = append(r.Subresources, kapiopenapi.Subresource{Name: "scale", GVK: scaleKind, Verbs: subresourceVerbs})
		}
	}
	return r, nil
}

package openapi

import (
	"reflect"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// Custom resources are described as kube-apiserver's CRD server describes
// them (k8s.io/apiextensions-apiserver's controller/openapi/builder), which
// differs from its installer of built-in resources: JSON and YAML only, no
// watch paths, get takes the resourceVersion parameter, deletecollection
// takes no DeleteOptions, patch has no strategic merge and answers 200
// only, and every operation, scale included, has the custom kind.

// The media types of custom resources.
var (
	customMediaTypes      = []string{"application/json", "application/yaml"}
	customPatchMediaTypes = []string{"application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml"}
)

// The metadata of custom resources and their lists.
var (
	objectMetaType = reflect.TypeFor[metav1.ObjectMeta]()
	listMetaType   = reflect.TypeFor[metav1.ListMeta]()
)

// selectableFieldsExtension lists the fields a custom resource's list can
// be filtered by; the list kind has the kind's.
const selectableFieldsExtension = "x-kubernetes-selectable-fields"

// ModelName is the name of the definition of a kind without Go type: its
// group reversed, as domains are in the names of Go types, then its
// version and kind: com.example.stable.v1.CronTab.
func ModelName(gvk schema.GroupVersionKind) string {
	group := strings.Split(gvk.Group, ".")
	slices.Reverse(group)
	return strings.Join(group, ".") + "." + gvk.Version + "." + gvk.Kind
}

// customModels returns the models of a custom resource's kind and list
// kind, built from the kind's definitions.
func customModels(r *Resource) (kind, list model) {
	kindName := ModelName(r.GVK)
	kind = model{custom: &customModel{
		name: kindName,
		v2:   withGVK(r.Schema.V2, r.GVK),
		v3:   withGVK(r.Schema.V3, r.GVK),
		deps: []reflect.Type{objectMetaType},
	}}
	list = model{custom: &customModel{
		name: ModelName(r.ListGVK),
		v2:   customListSchema(v2, r, kindName),
		v3:   customListSchema(v3, r, kindName),
		deps: []reflect.Type{listMetaType},
	}}
	return kind, list
}

// withGVK returns a copy of s whose x-kubernetes-group-version-kind names
// gvk, the extension kubectl finds the definition of a kind by.
func withGVK(s *spec.Schema, gvk schema.GroupVersionKind) *spec.Schema {
	out := *s
	out.Extensions = make(spec.Extensions, len(s.Extensions)+1)
	for k, v := range s.Extensions {
		out.Extensions[k] = v
	}
	out.Extensions["x-kubernetes-group-version-kind"] = gvkExtension([]schema.GroupVersionKind{gvk})
	return &out
}

// customListSchema is the definition of a custom resource's list kind, as
// kube-apiserver writes it: items of the kind, ListMeta, TypeMeta.
func customListSchema(d dialect, r *Resource, kindName string) *spec.Schema {
	items := spec.ArrayProperty(spec.RefSchema(d.refPrefix() + kindName)).
		WithDescription("List of " + r.Resource + ". More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md")
	s := new(spec.Schema).
		Typed("object", "").
		WithDescription(r.ListGVK.Kind+" is a list of "+r.GVK.Kind).
		WithRequired("items").
		SetProperty("apiVersion", typeMetaProperty("apiVersion")).
		SetProperty("kind", typeMetaProperty("kind")).
		SetProperty("items", *items).
		SetProperty("metadata", metaProperty(d, listMetaType, listMetadataDescription))
	s.AddExtension("x-kubernetes-group-version-kind", gvkExtension([]schema.GroupVersionKind{r.ListGVK}))
	if fields, ok := r.Schema.V3.Extensions[selectableFieldsExtension]; ok {
		s.AddExtension(selectableFieldsExtension, fields)
	}
	return s
}

// listMetadataDescription is what kube-apiserver says of the metadata of
// the lists of custom resources: that of PartialObjectMetadataList.
var listMetadataDescription = metav1.PartialObjectMetadataList{}.SwaggerDoc()["metadata"]

// typeMetaProperty is the property apiVersion or kind of TypeMeta.
func typeMetaProperty(name string) spec.Schema {
	return *spec.StringProperty().WithDescription(typeDocs(reflect.TypeFor[metav1.TypeMeta]())[name])
}

// metaProperty is a described reference to a meta type. OpenAPI v3
// ignores the siblings of a $ref: there the reference is wrapped in allOf.
func metaProperty(d dialect, t reflect.Type, description string) spec.Schema {
	ref := spec.RefSchema(d.refPrefix() + definitionName(t))
	if d == v2 {
		return *ref.WithDescription(description)
	}
	return spec.Schema{SchemaProps: spec.SchemaProps{Description: description, AllOf: []spec.Schema{*ref}}}
}

// customResourceOperations returns the operations on a custom resource and
// its subresources.
func customResourceOperations(n gvNaming, r *Resource, types typeResolver) ([]operation, error) {
	if err := r.validate(); err != nil {
		return nil, err
	}
	kindModel, listModel := customModels(r)

	kind := r.GVK.Kind
	scope := ""
	collection := n.prefix + "/" + r.Resource
	var scopeParams []parameter
	if r.Namespaced {
		scope = "Namespaced"
		collection = n.prefix + "/namespaces/{namespace}/" + r.Resource
		scopeParams = []parameter{namespaceParam}
	}
	item := collection + "/{name}"
	itemParams := append(append([]parameter(nil), scopeParams...), parameter{name: "name", in: "path", typ: "string", required: true, description: "name of the " + kind})
	op := func(o operation) operation {
		o.tag = n.tag
		o.gvk = &r.GVK
		if o.consumes == nil {
			o.consumes = customMediaTypes
		}
		o.produces = customMediaTypes
		o.responses = append(o.responses, unauthorized)
		return o
	}
	ok := func(m model) response { return response{code: 200, description: "OK", body: m} }
	created := func(m model) response { return response{code: 201, description: "Created", body: m} }
	accepted := func(m model) response { return response{code: 202, description: "Accepted", body: m} }

	var ops []operation
	if r.has("list") {
		if r.Namespaced {
			ops = append(ops, op(operation{
				method: "GET", path: n.prefix + "/" + r.Resource, id: "list" + n.id + kind + "ForAllNamespaces", description: "list objects of kind " + kind,
				action: "list", params: withParams(nil, prettyParam, queryParams(listOptionsType)), responses: []response{ok(listModel)},
			}))
		}
		ops = append(ops, op(operation{
			method: "GET", path: collection, id: "list" + n.id + scope + kind, description: "list objects of kind " + kind,
			action: "list", params: withParams(scopeParams, prettyParam, queryParams(listOptionsType)), responses: []response{ok(listModel)},
		}))
	}
	if r.has("create") {
		ops = append(ops, op(operation{
			method: "POST", path: collection, id: "create" + n.id + scope + kind, description: "create" + article(kind) + kind,
			action: "post", params: withParams(scopeParams, prettyParam, queryParams(createOptionsType)),
			body: kindModel, bodyRequired: true, responses: []response{ok(kindModel), created(kindModel), accepted(kindModel)},
		}))
	}
	if r.has("deletecollection") {
		ops = append(ops, op(operation{
			method: "DELETE", path: collection, id: "delete" + n.id + "Collection" + scope + kind, description: "delete collection of " + kind,
			action: "deletecollection", params: withParams(scopeParams, prettyParam, queryParams(listOptionsType)),
			responses: []response{ok(statusModel)},
		}))
	}
	if r.has("get") {
		ops = append(ops, op(operation{
			method: "GET", path: item, id: "read" + n.id + scope + kind, description: "read the specified " + kind,
			action: "get", params: withParams(itemParams, prettyParam, queryParams(getOptionsType)), responses: []response{ok(kindModel)},
		}))
	}
	if r.has("update") {
		ops = append(ops, op(operation{
			method: "PUT", path: item, id: "replace" + n.id + scope + kind, description: "replace the specified " + kind,
			action: "put", params: withParams(itemParams, prettyParam, queryParams(updateOptionsType)),
			body: kindModel, bodyRequired: true, responses: []response{ok(kindModel), created(kindModel)},
		}))
	}
	if r.has("delete") {
		ops = append(ops, op(operation{
			method: "DELETE", path: item, id: "delete" + n.id + scope + kind, description: "delete" + article(kind) + kind,
			action: "delete", params: withParams(itemParams, prettyParam, queryParams(deleteOptionsType)),
			body: deleteOptionsModel, responses: []response{ok(statusModel), accepted(statusModel)},
		}))
	}
	if r.has("patch") {
		ops = append(ops, op(operation{
			method: "PATCH", path: item, id: "patch" + n.id + scope + kind, description: "partially update the specified " + kind,
			action: "patch", params: withParams(itemParams, prettyParam, queryParams(patchOptionsType)),
			body: patchModel, bodyRequired: true, consumes: customPatchMediaTypes, responses: []response{ok(kindModel)},
		}))
	}

	// status reads and writes the kind, scale an autoscaling/v1 Scale; both
	// are operations on the custom kind.
	for _, sub := range r.Subresources {
		body := kindModel
		if sub.GVK != r.GVK {
			t, err := types(sub.GVK)
			if err != nil {
				return nil, err
			}
			body = goModel(t)
		}
		path := item + "/" + sub.Name
		id := func(verb string) string { return verb + n.id + scope + kind + title(sub.Name) }
		if sub.has("get") {
			ops = append(ops, op(operation{
				method: "GET", path: path, id: id("read"), description: "read " + sub.Name + " of the specified " + kind,
				action: "get", params: withParams(itemParams, prettyParam, queryParams(getOptionsType)), responses: []response{ok(body)},
			}))
		}
		if sub.has("update") {
			ops = append(ops, op(operation{
				method: "PUT", path: path, id: id("replace"), description: "replace " + sub.Name + " of the specified " + kind,
				action: "put", params: withParams(itemParams, prettyParam, queryParams(updateOptionsType)),
				body: body, bodyRequired: true, responses: []response{ok(body), created(body)},
			}))
		}
		if sub.has("patch") {
			ops = append(ops, op(operation{
				method: "PATCH", path: path, id: id("patch"), description: "partially update " + sub.Name + " of the specified " + kind,
				action: "patch", params: withParams(itemParams, prettyParam, queryParams(patchOptionsType)),
				body: patchModel, bodyRequired: true, consumes: customPatchMediaTypes, responses: []response{ok(body)},
			}))
		}
	}
	return ops, nil
}

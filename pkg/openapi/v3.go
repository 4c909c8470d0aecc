package openapi

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// customResourcesInfo is the info of kube-apiserver's documents of custom
// resources.
var customResourcesInfo = Info{Title: "Kubernetes CRD Swagger", Version: "v0.1.0"}

// v3Flavour says what sets the documents of /openapi/v3 apart.
type v3Flavour struct {
	// gv is the group version the document describes, if any: the kinds
	// of other group versions are left out of the
	// x-kubernetes-group-version-kind of the meta types.
	gv *schema.GroupVersion
	// customResources marks the document of a group version of custom
	// resources. kube-apiserver builds it in its CRD server, which neither
	// narrows the kinds of the meta types nor declares the security
	// scheme, and has its own title.
	customResources bool
}

// buildV3 assembles the OpenAPI 3.0 document of a set of operations.
func buildV3(info Info, ops []operation, kinds kindIndex, flavour v3Flavour) (*spec3.OpenAPI, error) {
	paths := map[string]*spec3.Path{}
	var models documentModels
	for path, pathOps := range byPath(ops) {
		common := commonParams(pathOps)
		item := &spec3.Path{}
		for _, p := range common {
			item.Parameters = append(item.Parameters, v3Param(p))
		}
		for _, o := range pathOps {
			models.addOperation(&o)
			setV3Operation(item, o.method, v3Operation(o, common))
		}
		paths[path] = item
	}

	defs, err := v3Definitions.closure(models.goTypes)
	if err != nil {
		return nil, err
	}
	schemas := make(map[string]*spec.Schema, len(defs)+len(models.custom))
	for name, d := range defs {
		gvks := kinds[d.typ]
		if flavour.gv != nil && !flavour.customResources {
			gvks = localKinds(gvks, *flavour.gv)
		}
		s := withKinds(d, gvks)
		schemas[name] = &s
	}
	for name, c := range models.custom {
		schemas[name] = c.v3
	}

	doc := &spec3.OpenAPI{
		Version: "3.0.0",
		Info:    &spec.Info{InfoProps: spec.InfoProps{Title: info.Title, Version: info.Version}},
		Paths:   &spec3.Paths{Paths: paths},
		Components: &spec3.Components{
			Schemas: schemas,
			SecuritySchemes: spec3.SecuritySchemes{bearerToken: &spec3.SecurityScheme{SecuritySchemeProps: spec3.SecuritySchemeProps{
				Type: "apiKey", Name: "authorization", In: "header", Description: "Bearer Token authentication",
			}}},
		},
	}
	if flavour.customResources {
		doc.Info.Title, doc.Info.Version = customResourcesInfo.Title, customResourcesInfo.Version
		doc.Components.SecuritySchemes = nil
	}
	return doc, nil
}

func v3Param(p parameter) *spec3.Parameter {
	return &spec3.Parameter{ParameterProps: spec3.ParameterProps{
		Name: p.name, In: p.in, Description: p.description, Required: p.required,
		Schema: &spec.Schema{
			SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{p.typ}, UniqueItems: true},
		},
	}}
}

// content is the same schema under each media type.
func content(mediaTypes []string, s *spec.Schema) map[string]*spec3.MediaType {
	c := make(map[string]*spec3.MediaType, len(mediaTypes))
	for _, mt := range mediaTypes {
		c[mt] = &spec3.MediaType{MediaTypeProps: spec3.MediaTypeProps{Schema: s}}
	}
	return c
}

func v3Operation(o operation, common []parameter) *spec3.Operation {
	op := &spec3.Operation{OperationProps: spec3.OperationProps{
		Tags:        []string{o.tag},
		Description: o.description,
		OperationId: o.id,
		Responses:   &spec3.Responses{ResponsesProps: spec3.ResponsesProps{StatusCodeResponses: map[int]*spec3.Response{}}},
	}}
	for _, p := range ownParams(o, common) {
		op.Parameters = append(op.Parameters, v3Param(p))
	}
	if !o.body.isZero() {
		op.RequestBody = &spec3.RequestBody{RequestBodyProps: spec3.RequestBodyProps{
			Content:  content(o.consumes, o.body.ref(v3)),
			Required: o.bodyRequired,
		}}
	}
	for _, r := range o.responses {
		resp := &spec3.Response{ResponseProps: spec3.ResponseProps{Description: r.description}}
		if r.code != unauthorized.code {
			resp.Content = content(o.produces, r.body.ref(v3))
		}
		op.Responses.StatusCodeResponses[r.code] = resp
	}
	addOperationExtensions(&op.VendorExtensible, o)
	return op
}

func setV3Operation(item *spec3.Path, method string, op *spec3.Operation) {
	switch method {
	case "GET":
		item.Get = op
	case "PUT":
		item.Put = op
	case "POST":
		item.Post = op
	case "DELETE":
		item.Delete = op
	case "OPTIONS":
		item.Options = op
	case "HEAD":
		item.Head = op
	case "PATCH":
		item.Patch = op
	}
}

package openapi

import (
	"reflect"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// buildV3 assembles the OpenAPI 3.0 document of a set of operations. gv,
// when set, is the group version the document describes: kinds of other
// group versions are left out of x-kubernetes-group-version-kind.
func buildV3(info Info, ops []operation, kinds kindIndex, gv *schema.GroupVersion) (*spec3.OpenAPI, error) {
	paths := map[string]*spec3.Path{}
	var bodies []reflect.Type
	for path, pathOps := range byPath(ops) {
		common := commonParams(pathOps)
		item := &spec3.Path{}
		for _, p := range common {
			item.Parameters = append(item.Parameters, v3Param(p))
		}
		for _, o := range pathOps {
			if o.body != nil {
				bodies = append(bodies, o.body)
			}
			for _, r := range o.responses {
				if r.body != nil {
					bodies = append(bodies, r.body)
				}
			}
			setV3Operation(item, o.method, v3Operation(o, common))
		}
		paths[path] = item
	}

	defs, err := v3Definitions.closure(bodies)
	if err != nil {
		return nil, err
	}
	schemas := make(map[string]*spec.Schema, len(defs))
	for name, d := range defs {
		gvks := kinds[d.typ]
		if gv != nil {
			gvks = localKinds(gvks, *gv)
		}
		s := withKinds(d, gvks)
		schemas[name] = &s
	}

	return &spec3.OpenAPI{
		Version: "3.0.0",
		Info:    &spec.Info{InfoProps: spec.InfoProps{Title: info.Title, Version: info.Version}},
		Paths:   &spec3.Paths{Paths: paths},
		Components: &spec3.Components{
			Schemas: schemas,
			SecuritySchemes: spec3.SecuritySchemes{bearerToken: &spec3.SecurityScheme{SecuritySchemeProps: spec3.SecuritySchemeProps{
				Type: "apiKey", Name: "authorization", In: "header", Description: "Bearer Token authentication",
			}}},
		},
	}, nil
}

func v3Param(p parameter) *spec3.Parameter {
	return &spec3.Parameter{ParameterProps: spec3.ParameterProps{
		Name: p.name, In: p.in, Description: p.description, Required: p.required,
		Schema: &spec.Schema{
			SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{p.typ}, UniqueItems: true},
		},
	}}
}

func v3Ref(t reflect.Type) *spec.Schema {
	if t == nil {
		return &spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{"string"}}}
	}
	return &spec.Schema{SchemaProps: spec.SchemaProps{Ref: spec.MustCreateRef("#/components/schemas/" + definitionName(t))}}
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
	if o.body != nil {
		op.RequestBody = &spec3.RequestBody{RequestBodyProps: spec3.RequestBodyProps{
			Content:  content(o.consumes, v3Ref(o.body)),
			Required: o.bodyRequired,
		}}
	}
	for _, r := range o.responses {
		resp := &spec3.Response{ResponseProps: spec3.ResponseProps{Description: r.description}}
		if r.code != unauthorized.code {
			resp.Content = content(o.produces, v3Ref(r.body))
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

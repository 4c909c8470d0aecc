package openapi

import (
	"encoding/base64"
	"encoding/json"
	"hash/fnv"
	"sort"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// bearerToken is the security scheme kube-apiserver declares.
const bearerToken = "BearerToken"

// buildV2 builds the Swagger 2.0 document of a set of operations.
func buildV2(info Info, ops []operation, kinds kindIndex) (*spec.Swagger, error) {
	doc := &v2Document{info: info, sources: []*v3Source{{ops: ops}}, defs: newV2DefinitionCache(kinds)}
	return doc.Swagger()
}

func v2Param(p parameter) spec.Parameter {
	return spec.Parameter{
		ParamProps:   spec.ParamProps{Name: p.name, In: p.in, Description: p.description, Required: p.required},
		SimpleSchema: spec.SimpleSchema{Type: p.typ},
		// Every parameter is a single value.
		CommonValidations: spec.CommonValidations{UniqueItems: true},
	}
}

func v2Operation(o operation, common []parameter, shared *sharedParams) *spec.Operation {
	op := &spec.Operation{OperationProps: spec.OperationProps{
		Description: o.description,
		Consumes:    o.consumes,
		Produces:    o.produces,
		Schemes:     []string{"https"},
		Tags:        []string{o.tag},
		ID:          o.id,
		Parameters:  []spec.Parameter{},
		Responses:   &spec.Responses{ResponsesProps: spec.ResponsesProps{StatusCodeResponses: map[int]spec.Response{}}},
	}}
	params := ownParams(o, common)
	if !o.body.isZero() {
		params = append(params, parameter{name: "body", in: "body", required: o.bodyRequired})
		sortParams(params)
	}
	for _, p := range params {
		if p.in == "body" {
			op.Parameters = append(op.Parameters, shared.body(o.body, p.required))
			continue
		}
		op.Parameters = append(op.Parameters, shared.param(p))
	}
	for _, r := range o.responses {
		resp := spec.Response{ResponseProps: spec.ResponseProps{Description: r.description}}
		if r.code != unauthorized.code {
			resp.Schema = r.body.ref(v2)
		}
		op.Responses.StatusCodeResponses[r.code] = resp
	}
	addOperationExtensions(&op.VendorExtensible, o)
	return op
}

func addOperationExtensions(ext *spec.VendorExtensible, o operation) {
	if o.action != "" {
		ext.AddExtension("x-kubernetes-action", o.action)
	}
	if o.gvk != nil {
		ext.AddExtension("x-kubernetes-group-version-kind", metav1.GroupVersionKind{Group: o.gvk.Group, Version: o.gvk.Version, Kind: o.gvk.Kind})
	}
}

func setOperation(item *spec.PathItem, method string, op *spec.Operation) {
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

// sharedParams declares the parameters once, in the document's parameters
// section, and has operations refer to them, as kube-apiserver does to keep
// its 2 MB document from growing by half. Names end with a hash of the
// parameter: "pretty-tJGM1-ng". Some parameters are never shared: name,
// whose description names the kind; fieldValidation and dryRun, which old
// kubectl versions look for in place to detect server features; and bodies,
// but for those of meta types (DeleteOptions, Patch).
type sharedParams struct {
	byName map[string]spec.Parameter
	params map[parameter]string // name of each shared parameter
	bodies map[bodyKey]string   // name of each shared body
}

type bodyKey struct {
	body     model
	required bool
}

func shareable(p parameter) bool {
	switch {
	case p.name == "name" && (p.in == "path" || p.in == "query"):
		return false
	case p.in == "query" && (p.name == "fieldValidation" || p.name == "dryRun"):
		return false
	}
	return true
}

func shareableBody(m model) bool {
	return strings.HasPrefix(m.name(), "io.k8s.apimachinery")
}

func newSharedParams(ops []operation) (*sharedParams, error) {
	s := &sharedParams{byName: map[string]spec.Parameter{}, params: map[parameter]string{}, bodies: map[bodyKey]string{}}
	// Each distinct parameter is named by its JSON encoding: a hash of it,
	// and the order of the encodings on a collision.
	encoded := map[string]spec.Parameter{}
	var encodings []string
	name := map[string]*string{}
	add := func(p spec.Parameter) (*string, error) {
		b, err := json.Marshal(p)
		if err != nil {
			return nil, err
		}
		if _, ok := encoded[string(b)]; !ok {
			encoded[string(b)] = p
			encodings = append(encodings, string(b))
			name[string(b)] = new(string)
		}
		return name[string(b)], nil
	}
	names := map[parameter]*string{}
	bodyNames := map[bodyKey]*string{}
	for _, o := range ops {
		for _, p := range o.params {
			if _, done := names[p]; done || !shareable(p) {
				continue
			}
			n, err := add(v2Param(p))
			if err != nil {
				return nil, err
			}
			names[p] = n
		}
		key := bodyKey{o.body, o.bodyRequired}
		if _, done := bodyNames[key]; o.body.isZero() || done || !shareableBody(o.body) {
			continue
		}
		n, err := add(v2Body(o.body, o.bodyRequired))
		if err != nil {
			return nil, err
		}
		bodyNames[key] = n
	}

	sort.Strings(encodings)
	for _, enc := range encodings {
		p := encoded[enc]
		n := p.Name + "-" + contentHash(enc)
		for i := 1; ; i++ {
			if _, taken := s.byName[n]; !taken {
				break
			}
			n = p.Name + "-" + strconv.Itoa(i)
		}
		s.byName[n] = p
		*name[enc] = n
	}
	for p, n := range names {
		s.params[p] = *n
	}
	for b, n := range bodyNames {
		s.bodies[b] = *n
	}
	return s, nil
}

func refParam(name string) spec.Parameter {
	return spec.Parameter{Refable: spec.Refable{Ref: spec.MustCreateRef("#/parameters/" + name)}}
}

// param is a parameter, or a reference to it when shared.
func (s *sharedParams) param(p parameter) spec.Parameter {
	if name, ok := s.params[p]; ok {
		return refParam(name)
	}
	return v2Param(p)
}

// body is a body parameter, or a reference to it when shared.
func (s *sharedParams) body(m model, required bool) spec.Parameter {
	if name, ok := s.bodies[bodyKey{m, required}]; ok {
		return refParam(name)
	}
	return v2Body(m, required)
}

func v2Body(m model, required bool) spec.Parameter {
	return spec.Parameter{ParamProps: spec.ParamProps{Name: "body", In: "body", Required: required, Schema: m.ref(v2)}}
}

// contentHash is 8 URL-safe characters of the FNV-64 hash of s.
func contentHash(s string) string {
	h := fnv.New64()
	h.Write([]byte(s))
	return base64.URLEncoding.EncodeToString(h.Sum(nil)[:6])
}

// Package serializer decodes, converts and encodes the custom resources of
// one CRD. Custom resources have no Go types: they are
// unstructured.Unstructured objects, decoded from JSON or YAML, pruned and
// defaulted by their version's schema, and converted between versions by
// the CRD's converter. The meta types a response can also carry (Status,
// Table, PartialObjectMetadata, DeleteOptions) go through the scheme.
package serializer

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/runtime/serializer/versioning"
	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/apiextensions/conversion"
)

// Schema is what decoding needs of one version's schema.
type Schema interface {
	// Prune removes the fields the schema does not declare and returns
	// their paths, as unknown-field warnings name them (".spec.foo").
	Prune(obj map[string]interface{}) []string
	// Default sets the schema's defaults of missing fields.
	Default(obj map[string]interface{})
}

// Config describes the custom resources of one CRD.
type Config struct {
	Group    string
	Kind     string
	ListKind string
	// Schemas are the schemas of the versions objects are decoded in (the
	// served versions and the storage version), by version name. A
	// version without an entry is neither pruned nor defaulted.
	Schemas   map[string]Schema
	Converter conversion.Converter
}

// Codecs are the runtime interfaces the handlers of one CRD's resources
// use in place of the scheme.
type Codecs struct {
	cfg Config

	json, pretty, yaml, strictJSON, strictYAML *decoder
	typedJSON, typedPretty, typedYAML          *json.Serializer
}

var (
	_ runtime.NegotiatedSerializer = negotiated{}
	_ runtime.ObjectConvertor      = &Codecs{}
	_ runtime.ObjectCreater        = &Codecs{}
	_ runtime.ObjectTyper          = &Codecs{}
	_ runtime.ObjectDefaulter      = &Codecs{}
)

// New returns the codecs of the CRD cfg describes.
func New(cfg Config) *Codecs {
	c := &Codecs{cfg: cfg}
	c.typedJSON = json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme.Scheme, scheme.Scheme, json.SerializerOptions{})
	c.typedPretty = json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme.Scheme, scheme.Scheme, json.SerializerOptions{Pretty: true})
	c.typedYAML = json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme.Scheme, scheme.Scheme, json.SerializerOptions{Yaml: true})
	c.json = &decoder{codecs: c, encoder: c.typedJSON, typed: c.typedJSON}
	c.pretty = &decoder{codecs: c, encoder: c.typedPretty, typed: c.typedJSON}
	c.yaml = &decoder{codecs: c, encoder: c.typedYAML, typed: c.typedYAML, yaml: true}
	c.strictJSON = &decoder{codecs: c, encoder: c.typedJSON, typed: c.typedJSON, strict: true}
	c.strictYAML = &decoder{codecs: c, encoder: c.typedYAML, typed: c.typedYAML, yaml: true, strict: true}
	return c
}

// Serializer negotiates JSON and YAML; custom resources have no protobuf
// encoding.
func (c *Codecs) Serializer() runtime.NegotiatedSerializer { return negotiated{c, false} }

// StrictSerializer decodes reporting the fields the schema prunes, for
// fieldValidation Strict and Warn.
func (c *Codecs) StrictSerializer() runtime.NegotiatedSerializer { return negotiated{c, true} }

type negotiated struct {
	c      *Codecs
	strict bool
}

func (n negotiated) SupportedMediaTypes() []runtime.SerializerInfo {
	j, y := n.c.json, n.c.yaml
	if n.strict {
		j, y = n.c.strictJSON, n.c.strictYAML
	}
	return []runtime.SerializerInfo{
		{
			MediaType:        runtime.ContentTypeJSON,
			MediaTypeType:    "application",
			MediaTypeSubType: "json",
			EncodesAsText:    true,
			Serializer:       j,
			PrettySerializer: n.c.pretty,
			StrictSerializer: n.c.strictJSON,
			StreamSerializer: &runtime.StreamSerializerInfo{
				EncodesAsText: true,
				Serializer:    n.c.typedJSON,
				Framer:        json.Framer,
			},
		},
		{
			MediaType:        runtime.ContentTypeYAML,
			MediaTypeType:    "application",
			MediaTypeSubType: "yaml",
			EncodesAsText:    true,
			Serializer:       y,
			StrictSerializer: n.c.strictYAML,
		},
	}
}

// EncoderForVersion converts objects to gv before encoding them.
func (n negotiated) EncoderForVersion(enc runtime.Encoder, gv runtime.GroupVersioner) runtime.Encoder {
	return versioning.NewCodec(enc, nil, n.c, n.c, n.c, n.c, gv, nil, "crd:"+n.c.cfg.Group+"/"+n.c.cfg.Kind)
}

// DecoderToVersion decodes objects and converts them to gv.
func (n negotiated) DecoderToVersion(dec runtime.Decoder, gv runtime.GroupVersioner) runtime.Decoder {
	return versioning.NewCodec(nil, dec, n.c, n.c, n.c, n.c, nil, gv, "crd:"+n.c.cfg.Group+"/"+n.c.cfg.Kind)
}

// isOwn reports whether gvk is the CRD's kind or list kind.
func (c *Codecs) isOwn(gvk schema.GroupVersionKind) bool {
	return gvk.Group == c.cfg.Group && (gvk.Kind == c.cfg.Kind || gvk.Kind == c.cfg.ListKind)
}

// New returns an empty custom resource (or list) of kind, or a scheme
// object for the meta kinds.
func (c *Codecs) New(kind schema.GroupVersionKind) (runtime.Object, error) {
	if !c.isOwn(kind) {
		return scheme.Scheme.New(kind)
	}
	if kind.Kind == c.cfg.ListKind {
		l := &unstructured.UnstructuredList{Object: map[string]interface{}{}}
		l.SetGroupVersionKind(kind)
		return l, nil
	}
	u := &unstructured.Unstructured{Object: map[string]interface{}{}}
	u.SetGroupVersionKind(kind)
	return u, nil
}

// ObjectKinds of a custom resource is the kind it names.
func (c *Codecs) ObjectKinds(obj runtime.Object) ([]schema.GroupVersionKind, bool, error) {
	if _, ok := obj.(runtime.Unstructured); ok {
		gvk := obj.GetObjectKind().GroupVersionKind()
		if gvk.Kind == "" {
			return nil, false, runtime.NewMissingKindErr("unstructured object has no kind")
		}
		if gvk.Version == "" {
			return nil, false, runtime.NewMissingVersionErr("unstructured object has no version")
		}
		return []schema.GroupVersionKind{gvk}, false, nil
	}
	return scheme.Scheme.ObjectKinds(obj)
}

func (c *Codecs) Recognizes(gvk schema.GroupVersionKind) bool {
	if c.isOwn(gvk) {
		_, ok := c.cfg.Schemas[gvk.Version]
		return ok
	}
	return scheme.Scheme.Recognizes(gvk)
}

// Default sets the defaults of a custom resource's version.
func (c *Codecs) Default(obj runtime.Object) {
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		c.defaultObject(o)
	case *unstructured.UnstructuredList:
		for i := range o.Items {
			c.defaultObject(&o.Items[i])
		}
	default:
		scheme.Scheme.Default(obj)
	}
}

func (c *Codecs) defaultObject(u *unstructured.Unstructured) {
	if s := c.cfg.Schemas[u.GroupVersionKind().Version]; s != nil {
		s.Default(u.Object)
	}
}

// Convert is used for the meta types only.
func (c *Codecs) Convert(in, out, context interface{}) error {
	return scheme.Scheme.Convert(in, out, context)
}

func (c *Codecs) ConvertFieldLabel(gvk schema.GroupVersionKind, label, value string) (string, string, error) {
	return scheme.Scheme.ConvertFieldLabel(gvk, label, value)
}

// ConvertToVersion converts custom resources with the CRD's converter
// and everything else with the scheme.
func (c *Codecs) ConvertToVersion(in runtime.Object, target runtime.GroupVersioner) (runtime.Object, error) {
	switch o := in.(type) {
	case *unstructured.Unstructured:
		gvk, ok := target.KindForGroupVersionKinds([]schema.GroupVersionKind{o.GroupVersionKind()})
		if !ok {
			return nil, runtime.NewNotRegisteredGVKErrForTarget("crd", o.GroupVersionKind(), target)
		}
		out, err := c.cfg.Converter.Convert(context.TODO(), []*unstructured.Unstructured{o}, gvk.GroupVersion())
		if err != nil {
			return nil, err
		}
		return out[0], nil
	case *unstructured.UnstructuredList:
		return c.convertList(o, target)
	}
	return scheme.Scheme.ConvertToVersion(in, target)
}

func (c *Codecs) convertList(in *unstructured.UnstructuredList, target runtime.GroupVersioner) (runtime.Object, error) {
	listGVK := in.GroupVersionKind()
	if listGVK.Kind == "" {
		listGVK = schema.GroupVersionKind{Group: c.cfg.Group, Kind: c.cfg.ListKind}
	}
	gvk, ok := target.KindForGroupVersionKinds([]schema.GroupVersionKind{listGVK})
	if !ok {
		return nil, runtime.NewNotRegisteredGVKErrForTarget("crd", listGVK, target)
	}
	items := make([]*unstructured.Unstructured, len(in.Items))
	for i := range in.Items {
		items[i] = &in.Items[i]
	}
	converted, err := c.cfg.Converter.Convert(context.TODO(), items, gvk.GroupVersion())
	if err != nil {
		return nil, err
	}
	out := &unstructured.UnstructuredList{Object: map[string]interface{}{}}
	for k, v := range in.Object {
		out.Object[k] = v
	}
	out.SetGroupVersionKind(gvk)
	out.Items = make([]unstructured.Unstructured, len(converted))
	for i, u := range converted {
		out.Items[i] = *u
	}
	return out, nil
}

// decoder decodes custom resources from JSON or YAML and encodes any
// object. Decoding prunes the fields the schema does not declare; a
// strict decoder reports them as a strict decoding error, which the
// handlers turn into a 400 or warnings as fieldValidation asks.
type decoder struct {
	codecs  *Codecs
	encoder runtime.Encoder
	// typed decodes the meta types (DeleteOptions).
	typed  runtime.Decoder
	yaml   bool
	strict bool
}

func (d *decoder) Identifier() runtime.Identifier { return d.encoder.Identifier() }

func (d *decoder) Encode(obj runtime.Object, w io.Writer) error { return d.encoder.Encode(obj, w) }

func (d *decoder) Decode(data []byte, defaults *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	switch into.(type) {
	case nil, *unstructured.Unstructured, *unstructured.UnstructuredList:
	default:
		return d.typed.Decode(data, defaults, into)
	}
	if d.yaml {
		j, err := yaml.YAMLToJSON(data)
		if err != nil {
			return nil, nil, err
		}
		data = j
	}
	u := &unstructured.Unstructured{}
	obj, gvk, err := unstructured.UnstructuredJSONScheme.Decode(data, defaults, u)
	if err != nil {
		return nil, gvk, err
	}
	if into != nil {
		if _, ok := obj.(*unstructured.Unstructured); ok && !d.codecs.isOwn(*gvk) {
			// The wrong kind: the handler reports the mismatch.
			return obj, gvk, nil
		}
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return obj, gvk, nil
	}
	var pruned []string
	if s := d.codecs.cfg.Schemas[gvk.Version]; s != nil && d.codecs.isOwn(*gvk) {
		pruned = s.Prune(u.Object)
	}
	if d.strict && len(pruned) > 0 {
		errs := make([]error, len(pruned))
		for i, p := range pruned {
			errs[i] = fmt.Errorf("unknown field %s", strconv.Quote(p))
		}
		return u, gvk, runtime.NewStrictDecodingError(errs)
	}
	return u, gvk, nil
}

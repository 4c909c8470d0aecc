package serializer

import (
	"bytes"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/apiextensions/conversion"
)

// knownFields prunes every field of spec but "size" and defaults
// spec.color to blue.
type knownFields struct{}

func (knownFields) Prune(obj map[string]interface{}) []string {
	spec, _ := obj["spec"].(map[string]interface{})
	var pruned []string
	for k := range spec {
		if k != "size" && k != "color" {
			delete(spec, k)
			pruned = append(pruned, "spec."+k)
		}
	}
	return pruned
}

func (knownFields) Default(obj map[string]interface{}) {
	if spec, ok := obj["spec"].(map[string]interface{}); ok {
		if _, ok := spec["color"]; !ok {
			spec["color"] = "blue"
		}
	}
}

func newCodecs() *Codecs {
	return New(Config{
		Group: "example.com", Kind: "Widget", ListKind: "WidgetList",
		Schemas:   map[string]Schema{"v1": knownFields{}, "v2": knownFields{}},
		Converter: conversion.None{},
	})
}

var widgetV1 = schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}

func serializerFor(t *testing.T, ns runtime.NegotiatedSerializer, mediaType string) runtime.Serializer {
	t.Helper()
	info, ok := runtime.SerializerInfoForMediaType(ns.SupportedMediaTypes(), mediaType)
	if !ok {
		t.Fatalf("no %s serializer", mediaType)
	}
	return info.Serializer
}

func TestDecodePrunesUnknownFields(t *testing.T) {
	c := newCodecs()
	body := []byte(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":1,"bogus":true}}`)

	obj, _, err := serializerFor(t, c.Serializer(), runtime.ContentTypeJSON).Decode(body, &widgetV1, &unstructured.Unstructured{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := obj.(*unstructured.Unstructured).Object["spec"].(map[string]interface{})["bogus"]; ok {
		t.Error("the lenient decoder kept spec.bogus")
	}

	obj, _, err = serializerFor(t, c.StrictSerializer(), runtime.ContentTypeJSON).Decode(body, &widgetV1, &unstructured.Unstructured{})
	if !runtime.IsStrictDecodingError(err) || !strings.Contains(err.Error(), `unknown field "spec.bogus"`) {
		t.Fatalf("strict decoding: %v", err)
	}
	if obj == nil {
		t.Error("a strict decoding error must come with the pruned object, for fieldValidation=Warn")
	}
}

func TestDecodeYAMLAndMetaTypes(t *testing.T) {
	c := newCodecs()
	obj, gvk, err := serializerFor(t, c.Serializer(), runtime.ContentTypeYAML).Decode(
		[]byte("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {size: 2}\n"), &widgetV1, &unstructured.Unstructured{})
	if err != nil || *gvk != widgetV1 || obj.(*unstructured.Unstructured).GetName() != "w" {
		t.Fatalf("YAML: %v %v %v", obj, gvk, err)
	}
	opts := &metav1.DeleteOptions{}
	dec := c.Serializer().DecoderToVersion(serializerFor(t, c.Serializer(), runtime.ContentTypeJSON), metav1.SchemeGroupVersion)
	deleteGVK := metav1.SchemeGroupVersion.WithKind("DeleteOptions")
	if _, _, err := dec.Decode([]byte(`{"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":3}`), &deleteGVK, opts); err != nil {
		t.Fatal(err)
	}
	if opts.GracePeriodSeconds == nil || *opts.GracePeriodSeconds != 3 {
		t.Errorf("DeleteOptions decoded as %+v", opts)
	}
}

func TestEncodeConvertsToTheRequestedVersion(t *testing.T) {
	c := newCodecs()
	list := &unstructured.UnstructuredList{Object: map[string]interface{}{"apiVersion": "example.com/v1", "kind": "WidgetList"}}
	list.Items = []unstructured.Unstructured{{Object: map[string]interface{}{
		"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]interface{}{"name": "w"}}}}
	enc := c.Serializer().EncoderForVersion(serializerFor(t, c.Serializer(), runtime.ContentTypeJSON), schema.GroupVersion{Group: "example.com", Version: "v2"})
	var buf bytes.Buffer
	if err := enc.Encode(list, &buf); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); strings.Count(got, `"apiVersion":"example.com/v2"`) != 2 {
		t.Errorf("the list and its item in v2: %s", got)
	}
	if list.Items[0].GetAPIVersion() != "example.com/v1" {
		t.Error("encoding modified the object")
	}
}

func TestStorageCodecDefaultsOnRead(t *testing.T) {
	c := newCodecs()
	codec := c.StorageCodec("v2", "v1")
	var buf bytes.Buffer
	in := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "example.com/v2", "kind": "Widget", "metadata": map[string]interface{}{"name": "w"},
		"spec": map[string]interface{}{"size": int64(1)}}}
	if err := codec.Encode(in, &buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"apiVersion":"example.com/v1"`) {
		t.Errorf("stored as %s, want the storage version", buf.String())
	}
	out, _, err := codec.Decode(buf.Bytes(), nil, &unstructured.Unstructured{})
	if err != nil {
		t.Fatal(err)
	}
	u := out.(*unstructured.Unstructured)
	if u.GetAPIVersion() != "example.com/v2" || u.Object["spec"].(map[string]interface{})["color"] != "blue" {
		t.Errorf("read back %v", u.Object)
	}
}

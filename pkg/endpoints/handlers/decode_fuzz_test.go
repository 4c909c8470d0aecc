package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/apiextensions/conversion"
	crdopenapi "github.com/kapi-dev/kapi/pkg/apiextensions/openapi"
	crdschema "github.com/kapi-dev/kapi/pkg/apiextensions/schema"
	crddefaulting "github.com/kapi-dev/kapi/pkg/apiextensions/schema/defaulting"
	crdpruning "github.com/kapi-dev/kapi/pkg/apiextensions/schema/pruning"
	crserializer "github.com/kapi-dev/kapi/pkg/apiextensions/serializer"
	apiapps "github.com/kapi-dev/kapi/pkg/apis/apps"
	apicore "github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/endpoints/fieldmanager"
	"github.com/kapi-dev/kapi/pkg/endpoints/warning"
)

// maxFuzzBody bounds the bodies and patches the fuzz targets try. The
// server's own limit is 3 MiB; what matters to a decoder or a patch is
// the shape of its input, which a few KiB already has, and the fuzzer's
// workers must not be able to take the machine's memory.
const maxFuzzBody = 64 << 10

// fuzzEndpoint is one resource endpoint, as the installer makes it, for
// the fuzz targets: its scope, and an object of it as kube-apiserver
// 1.37.1 stored it (testdata/objects, from ../shared/reference), to patch.
type fuzzEndpoint struct {
	scope   *RequestScope
	current string // file in testdata/objects; "" for none
	// validate is the create validation of the endpoint's storage
	// strategy, for the objects protobuf can carry and JSON cannot say.
	validate func(runtime.Object) field.ErrorList
}

// fuzzEndpoints returns the endpoints the fuzz targets decode and patch
// for, indexed by the first byte of their inputs: built-in kinds served in
// their storage version, one served in another version than it is stored
// in (events.k8s.io/v1 Events are core/v1 Events), and the custom
// resource of ../shared/reference's CRD, with its schema's pruning and
// defaulting. Each scope is built the way installResource builds it.
func fuzzEndpoints(tb testing.TB) []fuzzEndpoint {
	strict := serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict)
	builtin := func(kind, hub schema.GroupVersionKind, resource string, namespaced bool) *RequestScope {
		s := &RequestScope{
			Serializer: scheme.Codecs, StrictSerializer: strict, ParameterCodec: scheme.ParameterCodec,
			Creater: scheme.Scheme, Convertor: scheme.Scheme, Defaulter: scheme.Scheme, Typer: scheme.Scheme,
			Resource: kind.GroupVersion().WithResource(resource), Kind: kind, HubGroupVersion: hub.GroupVersion(),
			Namespaced: namespaced,
		}
		s.FieldManager = fuzzFieldManager(tb, s, fieldmanager.SchemeTypeConverter(scheme.Scheme, nil))
		return s
	}
	core := corev1.SchemeGroupVersion
	return []fuzzEndpoint{
		{builtin(core.WithKind("ConfigMap"), core.WithKind("ConfigMap"), "configmaps", true), "configmap.json",
			func(obj runtime.Object) field.ErrorList { return apicore.ValidateConfigMap(obj.(*corev1.ConfigMap)) }},
		{builtin(core.WithKind("Pod"), core.WithKind("Pod"), "pods", true), "pod.json",
			func(obj runtime.Object) field.ErrorList { return apicore.ValidatePod(obj.(*corev1.Pod)) }},
		{builtin(appsv1.SchemeGroupVersion.WithKind("Deployment"), appsv1.SchemeGroupVersion.WithKind("Deployment"), "deployments", true), "deployment.json",
			func(obj runtime.Object) field.ErrorList { return apiapps.ValidateDeployment(obj.(*appsv1.Deployment)) }},
		{builtin(core.WithKind("Service"), core.WithKind("Service"), "services", true), "service.json",
			func(obj runtime.Object) field.ErrorList { return apicore.ValidateService(obj.(*corev1.Service)) }},
		// events.k8s.io/v1 writes are validated strictly.
		{builtin(eventsv1.SchemeGroupVersion.WithKind("Event"), core.WithKind("Event"), "events", true), "",
			func(obj runtime.Object) field.ErrorList { return apicore.ValidateEventStrict(obj.(*corev1.Event)) }},
		{customResourceScope(tb), "customresource.json", nil},
	}
}

// customResourceScope is the scope of the widgets of
// testdata/objects/customresourcedefinition.json, served and stored as
// example.com/v1, decoded by the custom resource codecs with the CRD's
// schema (as pkg/apiextensions compiles it: structural, defaults pruned).
func customResourceScope(tb testing.TB) *RequestScope {
	var crd apiextensionsv1.CustomResourceDefinition
	if err := json.Unmarshal(readTestObject(tb, "customresourcedefinition.json"), &crd); err != nil {
		tb.Fatal(err)
	}
	v := crd.Spec.Versions[0]
	structural, err := crdschema.NewStructural(v.Schema.OpenAPIV3Schema)
	if err != nil {
		tb.Fatal(err)
	}
	if err := crddefaulting.PruneDefaults(structural); err != nil {
		tb.Fatal(err)
	}
	codecs := crserializer.New(crserializer.Config{
		Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind, ListKind: crd.Spec.Names.Kind + "List",
		Schemas:   map[string]crserializer.Schema{v.Name: widgetSchema{structural}},
		Converter: conversion.None{},
	})
	kind := schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}
	s := &RequestScope{
		Serializer: codecs.Serializer(), StrictSerializer: codecs.StrictSerializer(), ParameterCodec: scheme.ParameterCodec,
		Creater: codecs, Convertor: codecs, Defaulter: codecs, Typer: codecs,
		Resource: kind.GroupVersion().WithResource(crd.Spec.Names.Plural), Kind: kind, HubGroupVersion: kind.GroupVersion(),
		Namespaced: true,
	}
	s.FieldManager = fuzzFieldManager(tb, s, crdopenapi.TypeConverter(&crd, nil))
	return s
}

// widgetSchema prunes and defaults with a structural schema, as
// pkg/apiextensions does for every CRD version.
type widgetSchema struct{ s *crdschema.Structural }

func (w widgetSchema) Prune(obj map[string]any) []string { return crdpruning.Prune(obj, w.s, true) }
func (w widgetSchema) Default(obj map[string]any) {
	crddefaulting.PruneNonNullableNullsWithoutDefaults(obj, w.s)
	crddefaulting.Default(obj, w.s)
}

func fuzzFieldManager(tb testing.TB, s *RequestScope, tc managedfields.TypeConverter) *managedfields.FieldManager {
	fm, err := fieldmanager.New(fieldmanager.Config{
		TypeConverter: tc, Convertor: s.Convertor, Defaulter: s.Defaulter, Creater: s.Creater, Typer: s.Typer,
		Kind: s.Kind, Hub: s.HubGroupVersion,
	})
	if err != nil {
		tb.Fatal(err)
	}
	return fm
}

func readTestObject(tb testing.TB, name string) []byte {
	data, err := os.ReadFile("testdata/objects/" + name)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// bodyMediaTypes are the Content-Types of create and update bodies, indexed
// by the second byte of the decode target's input.
var bodyMediaTypes = []string{runtime.ContentTypeJSON, runtime.ContentTypeYAML, runtime.ContentTypeProtobuf}

// Whatever body a client sends to create or update, in JSON, YAML or
// protobuf, the handlers' decoding either refuses it with a 4xx Status, or
// yields an object of the endpoint's storage kind whose JSON (the form a
// patch is applied to, and clients read) decodes strictly, with no unknown
// or duplicate field, to an object with the same JSON: decoding and
// encoding lose nothing of what the JSON carries. (The first encoding may
// lose what JSON cannot say, as in kube-apiserver: a protobuf timestamp's
// nanoseconds, a quantity's spelling.)
//
// Protobuf can carry what JSON cannot say (an IntOrString of a third
// type, a time beyond year 9999); such an object must be one its create
// validation refuses, once what a create sets itself (status, server-set
// metadata) is cleared: otherwise it would be stored and every JSON read
// of it would fail.
func FuzzDecodeBody(f *testing.F) {
	endpoints := fuzzEndpoints(f)
	f.Fuzz(func(t *testing.T, endpoint, mediaType uint8, body []byte) {
		if len(body) > maxFuzzBody {
			return
		}
		e := endpoints[int(endpoint)%len(endpoints)]
		s := e.scope
		contentType := bodyMediaTypes[int(mediaType)%len(bodyMediaTypes)]
		for _, validation := range []string{metav1.FieldValidationStrict, metav1.FieldValidationWarn, metav1.FieldValidationIgnore} {
			r, err := http.NewRequest(http.MethodPost, "/?fieldValidation="+validation, bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			r.Header.Set("Content-Type", contentType)
			ctx := warning.WithRecorder(context.Background(), warning.NewRecorder(http.Header{}))
			obj, err := s.decodeBody(ctx, r)
			if err != nil {
				requireClientError(t, err)
				continue
			}
			if contentType != runtime.ContentTypeProtobuf {
				requireJSONFixedPoint(t, ctx, s, obj)
				continue
			}
			clearSetByCreate(obj)
			if err := jsonFixedPoint(ctx, s, obj); err != nil && len(e.validate(obj)) == 0 {
				t.Fatalf("a valid object is not a fixed point of JSON: %v", err)
			}
		}
	})
}

// requireClientError fails unless err is a Status with a 4xx code: bad
// input is the client's mistake, never the server's.
func requireClientError(t *testing.T, err error) {
	t.Helper()
	status, ok := err.(apierrors.APIStatus)
	if !ok {
		t.Fatalf("error is not a Status: %T %v", err, err)
	}
	if code := status.Status().Code; code < 400 || code > 499 {
		t.Fatalf("error is a %d, want a 4xx: %v", code, err)
	}
}

// requireJSONFixedPoint fails unless jsonFixedPoint holds of obj.
func requireJSONFixedPoint(t *testing.T, ctx context.Context, s *RequestScope, obj runtime.Object) {
	t.Helper()
	if err := jsonFixedPoint(ctx, s, obj); err != nil {
		t.Fatal(err)
	}
}

// jsonFixedPoint checks that obj, a hub object, is of the storage kind,
// encodes as JSON, and that this JSON decodes strictly into an object
// that encodes to the same JSON value.
func jsonFixedPoint(ctx context.Context, s *RequestScope, obj runtime.Object) error {
	kinds, _, err := s.Typer.ObjectKinds(obj)
	if err != nil || kinds[0].GroupVersion() != s.HubGroupVersion || kinds[0].Kind != s.Kind.Kind {
		return fmt.Errorf("decoded %T of kinds %v, %v; want %s in %s", obj, kinds, err, s.Kind.Kind, s.HubGroupVersion)
	}
	first, err := s.encodeJSON(obj)
	if err != nil {
		return fmt.Errorf("encoding %#v: %v", obj, err)
	}
	if !json.Valid(first) {
		return fmt.Errorf("encoded as invalid JSON: %s", first)
	}
	again, err := s.decodeWith(ctx, s.jsonDecoder(metav1.FieldValidationStrict), first, metav1.FieldValidationStrict, s.strictBodyError, nil)
	if err != nil {
		return fmt.Errorf("its JSON does not decode strictly: %v\n%s", err, first)
	}
	if again, err = s.toHub(again); err != nil {
		return fmt.Errorf("its JSON decodes to an object that does not convert: %v\n%s", err, first)
	}
	second, err := s.encodeJSON(again)
	if err != nil {
		return fmt.Errorf("encoding %#v: %v", again, err)
	}
	if !sameJSON(first, second) {
		return fmt.Errorf("JSON changes when decoded and encoded again:\n%s\n%s", first, second)
	}
	return nil
}

// sameJSON reports whether a and b are the same JSON value. (Not the same
// bytes: a string that is not UTF-8, which protobuf carries, is first
// written with "\ufffd" escapes, then with the character itself.)
func sameJSON(a, b []byte) bool {
	va, erra := decodeJSONValue(a)
	vb, errb := decodeJSONValue(b)
	return erra == nil && errb == nil && reflect.DeepEqual(va, vb)
}

// clearSetByCreate clears what a create sets itself whatever the client
// sent: the status, and the metadata the server owns.
func clearSetByCreate(obj runtime.Object) {
	if status := reflect.ValueOf(obj).Elem().FieldByName("Status"); status.IsValid() && status.CanSet() {
		status.Set(reflect.Zero(status.Type()))
	}
	if m, ok := obj.(metav1.Object); ok {
		m.SetCreationTimestamp(metav1.Time{})
		m.SetDeletionTimestamp(nil)
		m.SetDeletionGracePeriodSeconds(nil)
		m.SetUID("")
		m.SetGeneration(0)
		m.SetResourceVersion("")
	}
}

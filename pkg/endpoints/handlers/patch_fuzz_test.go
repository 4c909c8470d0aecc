package handlers

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kapi-dev/kapi/pkg/endpoints/warning"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// The patch targets apply what a client sends as a PATCH body to an
// object kube-apiserver stored, through the handler's own steps: the
// syntax check, the patch (or the apply patch's decoding and the field
// manager's merge), the tracking of the writer in managedFields, the
// decoding of the result, and the check that the patch did not rename the
// object. Whatever the patch, the answer is a 4xx Status or an object of
// the endpoint's kind whose JSON is a fixed point of decoding (see
// FuzzDecodeBody), and the current object, which the watch cache shares
// with every reader, is left as it was.

func FuzzJSONPatch(f *testing.F) { fuzzPatch(f, types.JSONPatchType) }

func FuzzMergePatch(f *testing.F) { fuzzPatch(f, types.MergePatchType) }

func FuzzStrategicMergePatch(f *testing.F) { fuzzPatch(f, types.StrategicMergePatchType) }

func FuzzApplyPatch(f *testing.F) { fuzzPatch(f, types.ApplyYAMLPatchType) }

var fieldValidations = []string{metav1.FieldValidationStrict, metav1.FieldValidationWarn, metav1.FieldValidationIgnore}

// fuzzPatch fuzzes patches of type pt. The first byte of an input picks
// the endpoint (its low bits) and the fieldValidation (its high bits).
func fuzzPatch(f *testing.F, pt types.PatchType) {
	var endpoints []fuzzEndpoint
	for _, e := range fuzzEndpoints(f) {
		obj, err := e.scope.Creater.New(e.scope.Kind)
		if err != nil {
			f.Fatal(err)
		}
		_, unstructured := obj.(runtime.Unstructured)
		// Strategic merge needs Go types; the handler answers 415 to it
		// for custom resources before any patching.
		if e.current != "" && !(pt == types.StrategicMergePatchType && unstructured) {
			endpoints = append(endpoints, e)
		}
	}
	current := make([][]byte, len(endpoints))
	for i, e := range endpoints {
		current[i] = readTestObject(f, e.current)
	}
	f.Fuzz(func(t *testing.T, choice uint8, patch []byte) {
		if len(patch) > maxFuzzBody {
			return
		}
		i := int(choice%16) % len(endpoints)
		s := endpoints[i].scope
		validation := fieldValidations[int(choice/16)%len(fieldValidations)]
		ctx := warning.WithRecorder(context.Background(), warning.NewRecorder(http.Header{}))

		old := decodeCurrent(t, ctx, s, current[i])
		before, err := s.encodeJSON(old)
		if err != nil {
			t.Fatal(err)
		}
		name := old.(metav1.Object).GetName()

		obj, err := patchObject(ctx, s, pt, name, patch, validation, old)
		if after, err := s.encodeJSON(old); err != nil || !bytes.Equal(before, after) {
			t.Fatalf("the patch changed the current object (%v):\n%s\n%s", err, before, after)
		}
		if err != nil {
			if pt == types.ApplyYAMLPatchType && untypablePatch(err) {
				return
			}
			requireClientError(t, err)
			return
		}
		requireJSONFixedPoint(t, ctx, s, obj)
	})
}

// untypablePatch reports whether err is kube-apiserver's answer to an
// apply patch the field manager cannot type: a 500, as it answers, with
// no reason.
func untypablePatch(err error) bool {
	status, ok := err.(apierrors.APIStatus)
	return ok && status.Status().Code == http.StatusInternalServerError && status.Status().Reason == metav1.StatusReasonUnknown &&
		strings.HasPrefix(status.Status().Message, "failed to create typed patch object")
}

// patchObject computes the object a PATCH of body makes of old, the way
// PatchResource hands it to the storage.
func patchObject(ctx context.Context, s *RequestScope, pt types.PatchType, name string, body []byte, validation string, old runtime.Object) (runtime.Object, error) {
	var next rest.UpdatedObjectInfo
	if pt == types.ApplyYAMLPatchType {
		applied, err := decodeApplyPatch(ctx, body, validation)
		if err != nil {
			return nil, err
		}
		next = &appliedObject{scope: s, name: name, patch: applied, options: &metav1.PatchOptions{FieldManager: "fuzz"}}
	} else {
		if err := checkPatchSyntax(body); err != nil {
			return nil, err
		}
		next = &trackedUpdate{scope: s, manager: "fuzz",
			next: &patchedObject{scope: s, patchType: pt, patch: body, validation: validation, maxCopyBytes: s.maxRequestBodyBytes()}}
	}
	info := &admittedUpdate{scope: s, name: name, opts: updateWriteOptions(&metav1.UpdateOptions{}), next: next}
	return info.UpdatedObject(ctx, old)
}

// decodeCurrent decodes a stored object into the endpoint's hub kind.
func decodeCurrent(t *testing.T, ctx context.Context, s *RequestScope, data []byte) runtime.Object {
	t.Helper()
	obj, err := s.decodeWith(ctx, s.jsonDecoder(metav1.FieldValidationStrict), data, metav1.FieldValidationStrict, s.strictBodyError, nil)
	if err == nil {
		obj, err = s.toHub(obj)
	}
	if err != nil {
		t.Fatalf("decoding the current object: %v", err)
	}
	return obj
}

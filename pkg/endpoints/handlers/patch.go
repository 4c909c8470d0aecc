package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"

	jsonpatch "github.com/evanphx/json-patch/v5"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/endpoints/auditcontext"
	"github.com/kapi-dev/kapi/pkg/endpoints/fieldmanager"
	"github.com/kapi-dev/kapi/pkg/endpoints/negotiation"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// maxJSONPatchOperations bounds the work one JSON patch can ask for, as
// kube-apiserver does.
const maxJSONPatchOperations = 10000

// A JSON patch is small but its copy operations are not: each copies a
// value the patch may itself have doubled, so that some twenty copies in a
// 2 KB patch would build gigabytes. kube-apiserver bounds the bytes the
// copies of one patch may add (its JSONPatchMaxCopyBytes, 3 MiB, the
// default request body limit) and answers 422 beyond; kapi bounds them by
// the scope's request body limit: no patch may grow an object by more
// than a client could have sent.

// PatchResource serves PATCH of one object: a JSON patch, a JSON merge
// patch or a strategic merge patch applied to the current object in the
// addressed version, or a server-side apply (application/apply-patch+yaml)
// merged into it by the field manager, which creates the object if it
// does not exist.
func PatchResource(patcher rest.Patcher, s *RequestScope, supportsStrategicMerge bool) http.HandlerFunc {
	return s.serve(false, func(ctx context.Context, name string, _ http.ResponseWriter, r *http.Request) (runtime.Object, int, error) {
		pt, err := patchType(r, supportsStrategicMerge, s.FieldManager != nil)
		if err != nil {
			return nil, 0, err
		}
		opts := &metav1.PatchOptions{}
		if err := s.queryOptions(r, opts, func() field.ErrorList { return metav1validation.ValidatePatchOptions(opts, pt) }); err != nil {
			return nil, 0, err
		}
		patch, err := s.readBody(r)
		if err != nil {
			return nil, 0, err
		}
		auditcontext.LogRequestPatch(ctx, patch)
		validation, err := fieldValidation(r)
		if err != nil {
			return nil, 0, err
		}
		dryRun := len(opts.DryRun) > 0
		var next rest.UpdatedObjectInfo
		forceAllowCreate := false
		if pt == types.ApplyYAMLPatchType {
			applied, err := decodeApplyPatch(ctx, patch, validation)
			if err != nil {
				return nil, 0, err
			}
			next = &appliedObject{scope: s, name: name, patch: applied, options: opts}
			forceAllowCreate = true
		} else {
			if err := checkPatchSyntax(patch); err != nil {
				return nil, 0, err
			}
			next = &trackedUpdate{scope: s, manager: fieldmanager.ManagerName(opts.FieldManager, r.UserAgent()),
				next: &patchedObject{scope: s, name: name, patchType: pt, patch: patch, validation: validation, maxCopyBytes: s.maxRequestBodyBytes()}}
		}
		updateOpts := &metav1.UpdateOptions{DryRun: opts.DryRun, FieldManager: opts.FieldManager, FieldValidation: opts.FieldValidation}
		wo := updateWriteOptions(updateOpts)
		info := &admittedUpdate{scope: s, name: name, opts: wo, next: next}
		out, created, err := patcher.Update(ctx, name, info, s.validateCreate(name, wo.create, dryRun), s.validateUpdate(name, wo.update, dryRun), forceAllowCreate, updateOpts)
		return out, createdOrOK(created), err
	})
}

// patchType returns the request's patch type, or kube-apiserver's 415.
// Strategic merge needs the patch strategies of Go types; apply needs a
// field manager.
func patchType(r *http.Request, supportsStrategicMerge, supportsApply bool) (types.PatchType, error) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		return "", negotiation.NewUnsupportedPatchTypeError()
	}
	switch pt := types.PatchType(mt); pt {
	case types.JSONPatchType, types.MergePatchType:
		return pt, nil
	case types.StrategicMergePatchType:
		if supportsStrategicMerge {
			return pt, nil
		}
	case types.ApplyYAMLPatchType:
		if supportsApply {
			return pt, nil
		}
	}
	return "", negotiation.NewUnsupportedPatchTypeError()
}

// checkPatchSyntax rejects a JSON, merge or strategic merge patch that is
// not JSON before anything is done with it, as kube-apiserver does.
func checkPatchSyntax(patch []byte) error {
	if !json.Valid(patch) {
		return apierrors.NewBadRequest("invalid JSON patch")
	}
	return nil
}

// patchedObject computes the new object of a PATCH from the current one.
type patchedObject struct {
	scope *RequestScope
	// name is the patched object's, for the NotFound of a missing one.
	name       string
	patchType  types.PatchType
	patch      []byte
	validation string
	// maxCopyBytes bounds what the copy operations of a JSON patch add.
	maxCopyBytes int64
}

func (p *patchedObject) UpdatedObject(ctx context.Context, old runtime.Object) (runtime.Object, error) {
	if old == nil {
		// A patch never creates.
		return nil, apierrors.NewNotFound(p.scope.qualifiedResource(), p.name)
	}
	s := p.scope
	current, err := s.encodeJSON(old)
	if err != nil {
		return nil, err
	}
	patched, err := p.apply(current)
	if err != nil {
		return nil, err
	}
	obj, err := s.decodeWith(ctx, s.jsonDecoder(p.validation), patched, p.validation, p.strictError(patched), p.undecodable(patched))
	if err != nil {
		return nil, err
	}
	return s.toHub(obj)
}

// strictError is kube-apiserver's answer to a patch that leaves unknown
// fields under fieldValidation=Strict: 422 on the field "patch", whose
// value is the patched object for JSON and merge patches and the patch
// for strategic merge patches.
func (p *patchedObject) strictError(patched []byte) func(*schema.GroupVersionKind, error) error {
	return func(_ *schema.GroupVersionKind, err error) error {
		value := string(patched)
		if p.patchType == types.StrategicMergePatchType {
			var patchMap map[string]any
			if jerr := json.Unmarshal(p.patch, &patchMap); jerr == nil {
				value = fmt.Sprintf("%+v", patchMap)
			}
		}
		return apierrors.NewInvalid(schema.GroupKind{}, "", field.ErrorList{field.Invalid(field.NewPath("patch"), value, err.Error())})
	}
}

// undecodable is kube-apiserver's answer to a patch whose result does not
// decode (a string where the kind has a number): 422 on the field
// "patch", as for unknown fields under Strict. A strategic merge patch's
// result is decoded from its map form there, and the message is that
// decoder's.
func (p *patchedObject) undecodable(patched []byte) func(*schema.GroupVersionKind, error) error {
	return func(_ *schema.GroupVersionKind, err error) error {
		value := string(patched)
		if p.patchType == types.StrategicMergePatchType {
			var patchMap map[string]any
			if jerr := utiljson.Unmarshal(p.patch, &patchMap); jerr == nil {
				value = fmt.Sprintf("%+v", patchMap)
			}
			var patchedMap map[string]any
			if into, cerr := p.scope.Creater.New(p.scope.Kind); cerr == nil && utiljson.Unmarshal(patched, &patchedMap) == nil {
				if uerr := runtime.DefaultUnstructuredConverter.FromUnstructured(patchedMap, into); uerr != nil {
					err = uerr
				}
			}
		}
		return apierrors.NewInvalid(schema.GroupKind{}, "", field.ErrorList{field.Invalid(field.NewPath("patch"), value, err.Error())})
	}
}

// apply applies the patch to the JSON of the current object.
func (p *patchedObject) apply(current []byte) ([]byte, error) {
	switch p.patchType {
	case types.JSONPatchType:
		ops, err := jsonpatch.DecodePatch(p.patch)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		if err := checkTestOperations(ops); err != nil {
			return nil, err
		}
		if len(ops) > maxJSONPatchOperations {
			return nil, apierrors.NewRequestEntityTooLargeError(
				fmt.Sprintf("The allowed maximum operations in a JSON patch is %d, got %d", maxJSONPatchOperations, len(ops)))
		}
		opts := jsonpatch.NewApplyOptions()
		opts.AccumulatedCopySizeLimit = p.maxCopyBytes
		out, err := ops.ApplyWithOptions(current, opts)
		if err != nil {
			// kube-apiserver's 422 names neither the resource nor the
			// failed operation.
			return nil, apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "", err.Error(), 0, false)
		}
		return out, nil
	case types.MergePatchType:
		if p.validation != metav1.FieldValidationIgnore {
			// kube-apiserver decodes a merge patch as an object first
			// when it validates fields, and names what else it is.
			if err := json.Unmarshal(p.patch, &map[string]any{}); err != nil {
				return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
			}
		}
		out, err := mergePatch(current, p.patch)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		return out, nil
	case types.StrategicMergePatchType:
		schemaObj, err := p.scope.Creater.New(p.scope.Kind)
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		out, err := strategicpatch.StrategicMergePatch(current, p.patch, schemaObj)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		return out, nil
	}
	return nil, negotiation.NewUnsupportedPatchTypeError()
}

// encodeJSON encodes a hub object as JSON in the addressed version.
func (s *RequestScope) encodeJSON(obj runtime.Object) ([]byte, error) {
	info, ok := runtime.SerializerInfoForMediaType(s.Serializer.SupportedMediaTypes(), runtime.ContentTypeJSON)
	if !ok {
		return nil, apierrors.NewInternalError(fmt.Errorf("no JSON serializer"))
	}
	data, err := runtime.Encode(s.Serializer.EncoderForVersion(info.Serializer, scheme.KindVersioner{GroupVersion: s.Kind.GroupVersion()}), obj)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return data, nil
}

// jsonDecoder is the JSON decoder for a patched object, strict unless
// field validation is off.
func (s *RequestScope) jsonDecoder(validation string) runtime.Decoder {
	ns := s.Serializer
	if validation != metav1.FieldValidationIgnore && s.StrictSerializer != nil {
		ns = s.StrictSerializer
	}
	info, _ := runtime.SerializerInfoForMediaType(ns.SupportedMediaTypes(), runtime.ContentTypeJSON)
	return info.Serializer
}

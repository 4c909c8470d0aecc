package webhook

import (
	"fmt"

	"github.com/kapi-dev/kapi/pkg/admission/plugin/internal/celinput"
	admissionv1 "k8s.io/api/admission/v1"
	admissionv1beta1 "k8s.io/api/admission/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
)

// Response is what a webhook answered, whatever the AdmissionReview
// version, with the v1 patch type.
type Response struct {
	AuditAnnotations map[string]string
	Allowed          bool
	Patch            []byte
	PatchType        admissionv1.PatchType
	Result           *metav1.Status
	Warnings         []string
}

// NewReview is the AdmissionReview a webhook is sent, in the first
// version of its admissionReviewVersions kapi knows, with a new uid, and
// an empty review of the same version to decode its answer into.
func NewReview(inv *Invocation, v *Versioned) (uid types.UID, request, response runtime.Object, err error) {
	for _, version := range inv.Hook.AdmissionReviewVersions {
		switch version {
		case admissionv1.SchemeGroupVersion.Version:
			uid = uuid.NewUUID()
			review := &admissionv1.AdmissionReview{Request: newRequest(uid, inv, v)}
			review.SetGroupVersionKind(admissionv1.SchemeGroupVersion.WithKind("AdmissionReview"))
			return uid, review, &admissionv1.AdmissionReview{}, nil
		case admissionv1beta1.SchemeGroupVersion.Version:
			uid = uuid.NewUUID()
			r := newRequest(uid, inv, v)
			// v1beta1's request has the same fields as v1's.
			review := &admissionv1beta1.AdmissionReview{Request: &admissionv1beta1.AdmissionRequest{
				UID: r.UID, Kind: r.Kind, Resource: r.Resource, SubResource: r.SubResource,
				RequestKind: r.RequestKind, RequestResource: r.RequestResource, RequestSubResource: r.RequestSubResource,
				Name: r.Name, Namespace: r.Namespace, Operation: admissionv1beta1.Operation(r.Operation),
				UserInfo: r.UserInfo, Object: r.Object, OldObject: r.OldObject, DryRun: r.DryRun, Options: r.Options,
			}}
			review.SetGroupVersionKind(admissionv1beta1.SchemeGroupVersion.WithKind("AdmissionReview"))
			return uid, review, &admissionv1beta1.AdmissionReview{}, nil
		}
	}
	return "", nil, nil, fmt.Errorf("webhook does not accept known AdmissionReview versions (v1, v1beta1)")
}

func newRequest(uid types.UID, inv *Invocation, v *Versioned) *admissionv1.AdmissionRequest {
	r := celinput.NewRequest(v.Attributes, inv.Resource, inv.Kind)
	r.UID = uid
	r.SubResource = inv.Subresource
	r.Object = runtime.RawExtension{Object: v.Object}
	r.OldObject = runtime.RawExtension{Object: v.OldObject}
	return r
}

// VerifyResponse checks a webhook's answer to the review with uid, as
// kube-apiserver does: a response for that uid, in the version asked,
// and patches only from mutating webhooks, with their type (v1).
func VerifyResponse(uid types.UID, mutating bool, review runtime.Object) (*Response, error) {
	switch r := review.(type) {
	case *admissionv1.AdmissionReview:
		if r.Response == nil {
			return nil, fmt.Errorf("webhook response was absent")
		}
		if r.Response.UID != uid {
			return nil, fmt.Errorf("expected response.uid=%q, got %q", uid, r.Response.UID)
		}
		want := admissionv1.SchemeGroupVersion.WithKind("AdmissionReview")
		if r.GroupVersionKind() != want {
			return nil, fmt.Errorf("expected webhook response of %v, got %v", want.String(), r.GroupVersionKind().String())
		}
		var patch []byte
		var patchType admissionv1.PatchType
		if mutating {
			if len(r.Response.Patch) > 0 && r.Response.PatchType == nil {
				return nil, fmt.Errorf("webhook returned response.patch but not response.patchType")
			}
			if len(r.Response.Patch) == 0 && r.Response.PatchType != nil {
				return nil, fmt.Errorf("webhook returned response.patchType but not response.patch")
			}
			patch = r.Response.Patch
			if r.Response.PatchType != nil {
				patchType = *r.Response.PatchType
				if patchType == "" {
					return nil, fmt.Errorf("webhook returned invalid response.patchType of %q", patchType)
				}
			}
		} else {
			if len(r.Response.Patch) > 0 {
				return nil, fmt.Errorf("validating webhook may not return response.patch")
			}
			if r.Response.PatchType != nil {
				return nil, fmt.Errorf("validating webhook may not return response.patchType")
			}
		}
		return &Response{
			AuditAnnotations: r.Response.AuditAnnotations, Allowed: r.Response.Allowed,
			Patch: patch, PatchType: patchType, Result: r.Response.Result, Warnings: r.Response.Warnings,
		}, nil
	case *admissionv1beta1.AdmissionReview:
		if r.Response == nil {
			return nil, fmt.Errorf("webhook response was absent")
		}
		// v1beta1 did not check the uid, nor require a patch type.
		var patch []byte
		var patchType admissionv1.PatchType
		if mutating {
			patch = r.Response.Patch
			if len(patch) > 0 {
				patchType = admissionv1.PatchTypeJSONPatch
			}
		}
		return &Response{
			AuditAnnotations: r.Response.AuditAnnotations, Allowed: r.Response.Allowed,
			Patch: patch, PatchType: patchType, Result: r.Response.Result, Warnings: r.Response.Warnings,
		}, nil
	}
	return nil, fmt.Errorf("unexpected response type %T", review)
}

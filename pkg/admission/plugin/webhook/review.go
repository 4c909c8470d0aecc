package webhook

import (
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	admissionv1beta1 "k8s.io/api/admission/v1beta1"
	authenticationv1 "k8s.io/api/authentication/v1"
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
	a := v.Attributes
	userInfo := authenticationv1.UserInfo{Extra: map[string]authenticationv1.ExtraValue{}}
	if a.User != nil {
		userInfo.Username = a.User.GetName()
		userInfo.UID = a.User.GetUID()
		userInfo.Groups = a.User.GetGroups()
		for k, val := range a.User.GetExtra() {
			userInfo.Extra[k] = val
		}
	}
	dryRun := a.DryRun
	var opts runtime.Object
	if a.Options != nil {
		opts = a.Options.DeepCopyObject()
		setOptionsKind(opts)
	}
	return &admissionv1.AdmissionRequest{
		UID:                uid,
		Kind:               metav1.GroupVersionKind(inv.Kind),
		Resource:           metav1.GroupVersionResource(inv.Resource),
		SubResource:        inv.Subresource,
		RequestKind:        &metav1.GroupVersionKind{Group: a.Kind.Group, Version: a.Kind.Version, Kind: a.Kind.Kind},
		RequestResource:    &metav1.GroupVersionResource{Group: a.Resource.Group, Version: a.Resource.Version, Resource: a.Resource.Resource},
		RequestSubResource: a.Subresource,
		Name:               a.Name,
		Namespace:          a.Namespace,
		Operation:          admissionv1.Operation(a.Operation),
		UserInfo:           userInfo,
		Object:             runtime.RawExtension{Object: v.Object},
		OldObject:          runtime.RawExtension{Object: v.OldObject},
		DryRun:             &dryRun,
		Options:            runtime.RawExtension{Object: opts},
	}
}

// setOptionsKind names the write's options as kube-apiserver sends them:
// meta.k8s.io/v1 CreateOptions, UpdateOptions or DeleteOptions; a
// connect's options (PodExecOptions, ...) are core v1's.
func setOptionsKind(opts runtime.Object) {
	var kind string
	switch opts.(type) {
	case *metav1.CreateOptions:
		kind = "CreateOptions"
	case *metav1.UpdateOptions:
		kind = "UpdateOptions"
	case *metav1.DeleteOptions:
		kind = "DeleteOptions"
	case *metav1.PatchOptions:
		kind = "PatchOptions"
	}
	if kind != "" {
		opts.GetObjectKind().SetGroupVersionKind(metav1.SchemeGroupVersion.WithKind(kind))
	}
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

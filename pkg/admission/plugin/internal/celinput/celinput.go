// Package celinput is what the CEL expressions of admission webhooks
// and policies see of a write, as kube-apiserver builds it: the
// AdmissionRequest without its objects, the user, the resource
// authorizer.requestResource checks, and kube-apiserver's authorizer
// behind the authorizer library, one decision per check and write.
package celinput

import (
	"context"
	"fmt"
	"sync"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
	celadmission "github.com/kapi-dev/kapi/pkg/cel/admission"
)

// NewRequest is kube-apiserver's AdmissionRequest of the write a,
// matched as resource and kind, without its uid and objects: the request
// the expressions of webhooks and policies see, and, with those added,
// the one a webhook is sent.
func NewRequest(a *admission.Attributes, resource schema.GroupVersionResource, kind schema.GroupVersionKind) *admissionv1.AdmissionRequest {
	var userInfo authenticationv1.UserInfo
	if a.User != nil {
		userInfo = authenticationv1.UserInfo{Username: a.User.GetName(), UID: a.User.GetUID(), Groups: a.User.GetGroups(),
			Extra: map[string]authenticationv1.ExtraValue{}}
		for k, v := range a.User.GetExtra() {
			userInfo.Extra[k] = v
		}
	}
	dryRun := a.DryRun
	var opts runtime.Object
	if a.Options != nil {
		opts = a.Options.DeepCopyObject()
		setOptionsKind(opts)
	}
	return &admissionv1.AdmissionRequest{
		Kind:               metav1.GroupVersionKind(kind),
		Resource:           metav1.GroupVersionResource(resource),
		SubResource:        a.Subresource,
		RequestKind:        &metav1.GroupVersionKind{Group: a.Kind.Group, Version: a.Kind.Version, Kind: a.Kind.Kind},
		RequestResource:    &metav1.GroupVersionResource{Group: a.Resource.Group, Version: a.Resource.Version, Resource: a.Resource.Resource},
		RequestSubResource: a.Subresource,
		Name:               a.Name,
		Namespace:          a.Namespace,
		Operation:          admissionv1.Operation(a.Operation),
		UserInfo:           userInfo,
		DryRun:             &dryRun,
		Options:            runtime.RawExtension{Object: opts},
	}
}

// setOptionsKind names the write's options as kube-apiserver's handlers
// do: meta.k8s.io/v1 CreateOptions, UpdateOptions, DeleteOptions.
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

// RequestResource is what authorizer.requestResource checks for a.
func RequestResource(a *admission.Attributes) celadmission.RequestResource {
	return celadmission.RequestResource{Group: a.Resource.Group, Resource: a.Resource.Resource, Subresource: a.Subresource,
		Namespace: a.Namespace, Name: a.Name}
}

// UserOf is the user of the write, for the authorizer.
func UserOf(a *admission.Attributes) celadmission.User {
	if a.User == nil {
		return celadmission.User{}
	}
	return celadmission.User{Name: a.User.GetName(), UID: a.User.GetUID(), Groups: a.User.GetGroups(), Extra: a.User.GetExtra()}
}

// Authorizer is the authorizer library's view of kube-apiserver's
// authorizer, for one write: a check asked twice is decided once.
type Authorizer struct {
	Authorizer authorizer.Authorizer

	mu    sync.Mutex
	cache map[string]decision
}

type decision struct {
	allowed bool
	reason  string
	err     error
}

// NewAuthorizer is the authorizer of one write.
func NewAuthorizer(a authorizer.Authorizer) *Authorizer {
	return &Authorizer{Authorizer: a, cache: map[string]decision{}}
}

func (z *Authorizer) Authorize(ctx context.Context, c celadmission.Check) (bool, string, error) {
	key := fmt.Sprintf("%#v", c)
	z.mu.Lock()
	d, ok := z.cache[key]
	z.mu.Unlock()
	if ok {
		return d.allowed, d.reason, d.err
	}
	attrs := authorizer.AttributesRecord{
		User: &user.DefaultInfo{Name: c.User.Name, UID: c.User.UID, Groups: c.User.Groups, Extra: c.User.Extra},
		Verb: c.Verb, Path: c.Path, ResourceRequest: c.ResourceRequest,
		APIGroup: c.APIGroup, Resource: c.Resource, Subresource: c.Subresource, Namespace: c.Namespace, Name: c.Name,
	}
	if c.ResourceRequest {
		attrs.APIVersion = "*"
	}
	if c.FieldSelector != "" {
		if sel, err := fields.ParseSelector(c.FieldSelector); err != nil {
			attrs.FieldSelectorParsingErr = err
		} else {
			attrs.FieldSelectorRequirements = sel.Requirements()
		}
	}
	if c.LabelSelector != "" {
		attrs.LabelSelectorRequirements, attrs.LabelSelectorParsingErr = labels.ParseToRequirements(c.LabelSelector)
	}
	dec, reason, err := z.Authorizer.Authorize(ctx, attrs)
	d = decision{allowed: dec == authorizer.DecisionAllow, reason: reason, err: err}
	z.mu.Lock()
	z.cache[key] = d
	z.mu.Unlock()
	return d.allowed, d.reason, d.err
}

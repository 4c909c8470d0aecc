// Package handlers serves the verbs of a resource: get, list, watch,
// create, update, patch, delete and deletecollection. Each handler decodes
// the request in the version the client addressed, converts it to the
// resource's storage (hub) version, calls the REST storage, and encodes the
// result back in the negotiated media type and version.
package handlers

import (
	"context"
	"net/http"
	"net/url"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// DefaultMaxRequestBodyBytes is kube-apiserver's limit on request bodies:
// 3 MiB, so that an object that fits in etcd's 1.5 MiB limit can still be
// sent in any encoding.
const DefaultMaxRequestBodyBytes = 3 * 1024 * 1024

// RequestScope is what every handler of one resource endpoint shares.
type RequestScope struct {
	// Serializer negotiates the encodings of bodies and responses.
	Serializer runtime.NegotiatedSerializer
	// StrictSerializer decodes bodies reporting unknown and duplicate
	// fields, for fieldValidation Strict and Warn.
	StrictSerializer runtime.NegotiatedSerializer
	ParameterCodec   runtime.ParameterCodec

	Creater   runtime.ObjectCreater
	Convertor runtime.ObjectConvertor
	Defaulter runtime.ObjectDefaulter
	Typer     runtime.ObjectTyper

	// Resource is the resource addressed, in the version addressed.
	Resource schema.GroupVersionResource
	// Kind is the kind the endpoint serves, in the version addressed.
	Kind schema.GroupVersionKind
	// HubGroupVersion is the version the REST storage works in; objects
	// are converted to it after decoding and from it before encoding.
	HubGroupVersion schema.GroupVersion
	Subresource     string
	Namespaced      bool

	TableConvertor rest.TableConvertor
	Admission      admission.Interface
	// FieldManager records the writers of objects in managedFields and
	// merges apply patches. Nil leaves managedFields as clients send them
	// and refuses apply patches.
	FieldManager *managedfields.FieldManager
	// TypeConverter knows the structure of the resource's kinds, for the
	// admission plugins that merge apply configurations; nil if unknown.
	TypeConverter managedfields.TypeConverter

	MaxRequestBodyBytes int64
}

// qualifiedResource names the resource in errors.
func (s *RequestScope) qualifiedResource() schema.GroupResource {
	return s.Resource.GroupResource()
}

// requestContext returns the request's context with its namespace, and the
// name the request addresses.
func (s *RequestScope) requestContext(r *http.Request) (context.Context, string, error) {
	ctx := r.Context()
	info, ok := request.RequestInfoFrom(ctx)
	if !ok {
		return nil, "", apierrors.NewInternalError(errNoRequestInfo)
	}
	ns := ""
	if s.Namespaced {
		ns = info.Namespace
	}
	return request.WithNamespace(ctx, ns), info.Name, nil
}

// decodeParameters decodes query parameters into an options struct.
// The option types of list, get, create, update, patch and delete are
// registered in every group version (optionsGroupVersion stands for them
// all); those of tables only in meta.k8s.io/v1.
func (s *RequestScope) decodeParameters(query url.Values, into runtime.Object) error {
	gv := optionsGroupVersion
	if _, ok := into.(*metav1.TableOptions); ok {
		gv = metav1.SchemeGroupVersion
	}
	if err := s.ParameterCodec.DecodeParameters(query, gv, into); err != nil {
		return apierrors.NewBadRequest(err.Error())
	}
	return nil
}

var optionsGroupVersion = schema.GroupVersion{Version: "v1"}

// toHub converts an object of the served version to the storage version.
func (s *RequestScope) toHub(obj runtime.Object) (runtime.Object, error) {
	if s.HubGroupVersion == s.Kind.GroupVersion() {
		return obj, nil
	}
	out, err := s.Convertor.ConvertToVersion(obj, scheme.KindVersioner{GroupVersion: s.HubGroupVersion})
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	return out, nil
}

// admissionAttributes describes a write to admission plugins.
func (s *RequestScope) admissionAttributes(ctx context.Context, name string, op admission.Operation, obj, old runtime.Object, opts runtime.Object, dryRun bool) *admission.Attributes {
	u, _ := request.UserFrom(ctx)
	ns := request.NamespaceValue(ctx)
	if ns == "" && s.Resource.Group == "" && s.Resource.Resource == "namespaces" {
		// As in kube-apiserver, a namespace is in itself: admission sees
		// its name as the write's namespace (webhooks' requests and
		// policies' request.namespace show it).
		ns = name
	}
	return &admission.Attributes{
		Name:        name,
		Namespace:   ns,
		Resource:    s.Resource,
		Subresource: s.Subresource,
		Kind:        s.Kind,
		Operation:   op,
		Object:      obj,
		OldObject:   old,
		Options:     opts,
		DryRun:      dryRun,
		User:        u,
		Objects: admission.ObjectInterfaces{
			Creater:   s.Creater,
			Convertor: s.Convertor,
			Defaulter: s.Defaulter,
			Typer:     s.Typer,

			TypeConverter: s.TypeConverter,
		},
	}
}

// admit runs the mutating admission plugins on a write.
func (s *RequestScope) admit(ctx context.Context, a *admission.Attributes) error {
	if s.Admission == nil {
		return nil
	}
	return s.Admission.Admit(ctx, a)
}

// validateCreate returns the create check that runs validating admission
// after the strategy validated the object. A name the server generated
// is known by then, and admission sees it.
func (s *RequestScope) validateCreate(name string, opts runtime.Object, dryRun bool) rest.ValidateObjectFunc {
	if s.Admission == nil {
		return nil
	}
	return func(ctx context.Context, obj runtime.Object) error {
		name := name
		if m, err := meta.Accessor(obj); err == nil && name == "" {
			name = m.GetName()
		}
		return s.Admission.Validate(ctx, s.admissionAttributes(ctx, name, admission.Create, obj, nil, opts, dryRun))
	}
}

func (s *RequestScope) validateUpdate(name string, opts runtime.Object, dryRun bool) rest.ValidateObjectUpdateFunc {
	if s.Admission == nil {
		return nil
	}
	return func(ctx context.Context, obj, old runtime.Object) error {
		return s.Admission.Validate(ctx, s.admissionAttributes(ctx, name, admission.Update, obj, old, opts, dryRun))
	}
}

// validateDelete returns the check the storage runs on the object it is
// about to delete: both phases of admission, as kube-apiserver runs them
// for a delete. The storage hands it a copy of the object, so a mutating
// plugin changes nothing that is stored. A delete of a collection admits
// each object with an empty name, as kube-apiserver does.
func (s *RequestScope) validateDelete(name string, opts *metav1.DeleteOptions) rest.ValidateObjectFunc {
	if s.Admission == nil {
		return nil
	}
	dryRun := len(opts.DryRun) > 0
	return func(ctx context.Context, obj runtime.Object) error {
		a := s.admissionAttributes(ctx, name, admission.Delete, nil, obj, opts, dryRun)
		if err := s.Admission.Admit(ctx, a); err != nil {
			return err
		}
		return s.Admission.Validate(ctx, a)
	}
}

// Package podcertificaterequest is the REST storage of
// certificates.k8s.io/v1 podcertificaterequests and their /status.
package podcertificaterequest

import (
	"context"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	certificatesv1beta1 "k8s.io/api/certificates/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kapi-dev/kapi/pkg/apis/certificates"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct{ generic.DefaultStrategy }

// Strategy is the behaviour of pod certificate requests, which the
// kubelet creates and the signer answers through /status: the spec is
// fixed, and a new request has no status.
var Strategy = strategy{generic.DefaultStrategy{Namespaced: true}}

// GetResetFields is the status, written through /status only.
func (strategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("certificates.k8s.io/v1", []string{"status"})
}

func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	obj.(*certificatesv1.PodCertificateRequest).Status = certificatesv1.PodCertificateRequestStatus{}
}

func (strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	obj.(*certificatesv1.PodCertificateRequest).Status = old.(*certificatesv1.PodCertificateRequest).Status
}

func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return certificates.ValidatePodCertificateRequest(obj.(*certificatesv1.PodCertificateRequest))
}

func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return certificates.ValidatePodCertificateRequestUpdate(obj.(*certificatesv1.PodCertificateRequest), old.(*certificatesv1.PodCertificateRequest))
}

type statusStrategy struct{ strategy }

// GetResetFields is what /status keeps: the metadata and the spec.
func (statusStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("certificates.k8s.io/v1", []string{"metadata"}, []string{"spec"})
}

func (statusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	r, oldR := obj.(*certificatesv1.PodCertificateRequest), old.(*certificatesv1.PodCertificateRequest)
	r.Spec = oldR.Spec
	metav1.ResetObjectMetaForStatus(&r.ObjectMeta, &oldR.ObjectMeta)
}

func (statusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return certificates.ValidatePodCertificateRequestStatusUpdate(obj.(*certificatesv1.PodCertificateRequest), old.(*certificatesv1.PodCertificateRequest), time.Now())
}

// selectable are the fields a list may select on besides the name: the
// signer, the pod and the node. kube-apiserver does not let a list of
// pod certificate requests select on metadata.namespace.
func selectable(obj runtime.Object) fields.Set {
	r := obj.(*certificatesv1.PodCertificateRequest)
	return fields.Set{"spec.signerName": r.Spec.SignerName, "spec.podName": r.Spec.PodName, "spec.nodeName": string(r.Spec.NodeName)}
}

// Storage is the REST storage of pod certificate requests and their
// status.
type Storage struct {
	PodCertificateRequest *generic.Store
	Status                *generic.SubresourceREST
}

// NewStorage returns the storage of pod certificate requests.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &certificatesv1.PodCertificateRequest{} },
		NewListFunc:               func() runtime.Object { return &certificatesv1.PodCertificateRequestList{} },
		DefaultQualifiedResource:  certificatesv1.Resource("podcertificaterequests"),
		SingularQualifiedResource: certificatesv1.Resource("podcertificaterequest"),
		KeyPrefix:                 "/podcertificaterequests",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
		// Stored as v1beta1, as kube-apiserver 1.37 stores them.
		StorageVersionKind:     certificatesv1beta1.SchemeGroupVersion.WithKind("PodCertificateRequest"),
		FieldsFunc:             selectable,
		NamespaceNotSelectable: true,
	}
	if err := opts.Complete(s, certificatesv1beta1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{PodCertificateRequest: s, Status: generic.NewSubresourceREST(s, statusStrategy{Strategy})}, nil
}

// Map returns the storage by path: "podcertificaterequests" and
// "podcertificaterequests/status".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.PodCertificateRequest.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.PodCertificateRequest, plural + "/status": s.Status}
}

// Package podcertificaterequest is the REST storage of
// certificates.k8s.io/v1 podcertificaterequests and their /status.
package podcertificaterequest

import (
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	certificatesv1beta1 "k8s.io/api/certificates/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/certificates"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Strategy is the behaviour of pod certificate requests, which the
// kubelet creates and the signer answers through /status: the spec is
// fixed, and a new request has no status.
var Strategy = generic.SpecStrategy[*certificatesv1.PodCertificateRequest]{
	DefaultStrategy: generic.DefaultStrategy{Namespaced: true},
	APIVersions:     []string{"certificates.k8s.io/v1"},
	Spec: generic.FieldPart(func(r *certificatesv1.PodCertificateRequest) *certificatesv1.PodCertificateRequestSpec {
		return &r.Spec
	}),
	Status: generic.FieldPart(func(r *certificatesv1.PodCertificateRequest) *certificatesv1.PodCertificateRequestStatus {
		return &r.Status
	}),
	ValidateFunc:       certificates.ValidatePodCertificateRequest,
	ValidateUpdateFunc: certificates.ValidatePodCertificateRequestUpdate,
}

var statusStrategy = generic.StatusStrategy[*certificatesv1.PodCertificateRequest]{
	SpecStrategy: Strategy,
	KeepMetadata: metav1.ResetObjectMetaForStatus,
	ResetPaths:   [][]string{{"metadata"}},
	// The signer's answer is checked against the time it is written.
	ValidateStatusUpdateFunc: func(r, old *certificatesv1.PodCertificateRequest) field.ErrorList {
		return certificates.ValidatePodCertificateRequestStatusUpdate(r, old, time.Now())
	},
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
	return &Storage{PodCertificateRequest: s, Status: generic.NewSubresourceREST(s, statusStrategy)}, nil
}

// Map returns the storage by path: "podcertificaterequests" and
// "podcertificaterequests/status".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.PodCertificateRequest.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.PodCertificateRequest, plural + "/status": s.Status}
}

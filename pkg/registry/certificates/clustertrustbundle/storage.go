// Package clustertrustbundle is the REST storage of
// certificates.k8s.io/v1 clustertrustbundles.
package clustertrustbundle

import (
	certificatesv1 "k8s.io/api/certificates/v1"
	certificatesv1beta1 "k8s.io/api/certificates/v1beta1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/certificates"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Strategy is the behaviour of cluster trust bundles: plain data whose
// signer is fixed.
var Strategy = generic.ValidatingStrategy[*certificatesv1.ClusterTrustBundle]{
	ValidateFunc:       certificates.ValidateClusterTrustBundle,
	ValidateUpdateFunc: certificates.ValidateClusterTrustBundleUpdate,
}

// Storage is the REST storage of cluster trust bundles.
type Storage struct {
	ClusterTrustBundle *generic.Store
}

// NewStorage returns the storage of cluster trust bundles; a list may
// select them by signer.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &certificatesv1.ClusterTrustBundle{} },
		NewListFunc:               func() runtime.Object { return &certificatesv1.ClusterTrustBundleList{} },
		DefaultQualifiedResource:  certificatesv1.Resource("clustertrustbundles"),
		SingularQualifiedResource: certificatesv1.Resource("clustertrustbundle"),
		KeyPrefix:                 "/clustertrustbundles",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
		// Stored as v1beta1, as kube-apiserver 1.37 stores them.
		StorageVersionKind: certificatesv1beta1.SchemeGroupVersion.WithKind("ClusterTrustBundle"),
		FieldsFunc: func(obj runtime.Object) fields.Set {
			return fields.Set{"spec.signerName": obj.(*certificatesv1.ClusterTrustBundle).Spec.SignerName}
		},
	}
	if err := opts.Complete(s, certificatesv1beta1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{ClusterTrustBundle: s}, nil
}

// Map returns the storage by path: "clustertrustbundles".
func (s *Storage) Map() map[string]rest.Storage {
	return map[string]rest.Storage{s.ClusterTrustBundle.DefaultQualifiedResource.Resource: s.ClusterTrustBundle}
}

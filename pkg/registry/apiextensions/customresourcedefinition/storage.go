package customresourcedefinition

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/apiextensions"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Storage is the REST storage of CRDs and of their status.
type Storage struct {
	CRD    *generic.Store
	Status *generic.SubresourceREST
}

// NewStorage returns the storage of CRDs. Their deletion always waits for
// the cleanup of their custom resources, so a DELETE answers with the
// terminating CRD.
func NewStorage(opts generic.RESTOptions, validation apiextensions.ValidationOptions) (*Storage, error) {
	strategy := NewStrategy(validation)
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &apiextensionsv1.CustomResourceDefinition{} },
		NewListFunc:               func() runtime.Object { return &apiextensionsv1.CustomResourceDefinitionList{} },
		DefaultQualifiedResource:  apiextensionsv1.Resource("customresourcedefinitions"),
		SingularQualifiedResource: apiextensionsv1.Resource("customresourcedefinition"),
		KeyPrefix:                 "/apiextensions.k8s.io/customresourcedefinitions",
		CreateStrategy:            strategy,
		UpdateStrategy:            strategy,
		DeleteStrategy:            strategy,
		FinalizersOnDelete:        []string{CleanupFinalizer},
		ShortNamesList:            []string{"crd", "crds"},
		CategoriesList:            []string{"api-extensions"},
	}
	if err := opts.Complete(s, apiextensionsv1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{CRD: s, Status: generic.NewSubresourceREST(s, statusStrategy{strategy})}, nil
}

// Map returns the storage by path: "customresourcedefinitions" and
// "customresourcedefinitions/status".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.CRD.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.CRD, plural + "/status": s.Status}
}

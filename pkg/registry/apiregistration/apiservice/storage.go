// Package apiservice is the REST storage of apiregistration.k8s.io/v1
// apiservices and their /status, as kube-aggregator serves them: stored
// as JSON (not protobuf as kube-apiserver's own kinds), and a local
// APIService (one without a Service) is Available from its creation.
package apiservice

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/kapi-dev/kapi/pkg/apis/apiregistration"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// The Available condition kube-aggregator gives every local APIService
// when it is created.
const (
	LocalReason  = "Local"
	LocalMessage = "Local APIServices are always available"
)

// strategy is the behaviour of APIServices: the status is written only
// through /status (by the availability controllers), except that a local
// APIService is created Available; there are no generations, and an
// update must name the resourceVersion it replaces.
type strategy struct {
	generic.SpecStrategy[*apiregistrationv1.APIService]
}

// Strategy is the strategy of apiservices.
var Strategy = strategy{generic.SpecStrategy[*apiregistrationv1.APIService]{
	DefaultStrategy:    generic.DefaultStrategy{RequireResourceVersionOnUpdate: true},
	APIVersions:        []string{"apiregistration.k8s.io/v1"},
	Spec:               generic.FieldPart(func(s *apiregistrationv1.APIService) *apiregistrationv1.APIServiceSpec { return &s.Spec }),
	Status:             generic.FieldPart(func(s *apiregistrationv1.APIService) *apiregistrationv1.APIServiceStatus { return &s.Status }),
	ValidateFunc:       apiregistration.ValidateAPIService,
	ValidateUpdateFunc: apiregistration.ValidateAPIServiceUpdate,
}}

// PrepareForCreate clears the status and marks a local APIService
// Available: nothing checks a group version the chain serves itself.
func (s strategy) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	s.SpecStrategy.PrepareForCreate(ctx, obj)
	svc := obj.(*apiregistrationv1.APIService)
	if svc.Spec.Service == nil {
		svc.Status.Conditions = []apiregistrationv1.APIServiceCondition{LocalAvailable(metav1.Now())}
	}
}

// LocalAvailable is the Available condition of a local APIService,
// changed at now.
func LocalAvailable(now metav1.Time) apiregistrationv1.APIServiceCondition {
	return apiregistrationv1.APIServiceCondition{
		Type:               apiregistrationv1.Available,
		Status:             apiregistrationv1.ConditionTrue,
		LastTransitionTime: now,
		Reason:             LocalReason,
		Message:            LocalMessage,
	}
}

// statusStrategy keeps the spec and, of the metadata, the labels,
// annotations, finalizers and owner references: the rest of the metadata
// may change with a status write, as in kube-aggregator.
var statusStrategy = generic.StatusStrategy[*apiregistrationv1.APIService]{
	SpecStrategy:             Strategy.SpecStrategy,
	KeepMetadata:             keepOwnedMetadata,
	ResetPaths:               [][]string{{"metadata"}},
	ValidateStatusUpdateFunc: apiregistration.ValidateAPIServiceStatusUpdate,
}

func keepOwnedMetadata(meta, stored metav1.Object) {
	meta.SetLabels(stored.GetLabels())
	meta.SetAnnotations(stored.GetAnnotations())
	meta.SetFinalizers(stored.GetFinalizers())
	meta.SetOwnerReferences(stored.GetOwnerReferences())
}

// Storage is the REST storage of apiservices and their /status.
type Storage struct {
	APIService *generic.Store
	Status     *generic.SubresourceREST
}

// NewStorage returns the storage of apiservices.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &apiregistrationv1.APIService{} },
		NewListFunc:               func() runtime.Object { return &apiregistrationv1.APIServiceList{} },
		DefaultQualifiedResource:  apiregistrationv1.Resource("apiservices"),
		SingularQualifiedResource: apiregistrationv1.Resource("apiservice"),
		KeyPrefix:                 "/apiregistration.k8s.io/apiservices",
		StorageMediaType:          runtime.ContentTypeJSON,
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
		CategoriesList:            []string{"api-extensions"},
	}
	if err := opts.Complete(s, apiregistrationv1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{APIService: s, Status: generic.NewSubresourceREST(s, statusStrategy)}, nil
}

// Map returns the storage by path: "apiservices" and "apiservices/status".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.APIService.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.APIService, plural + "/status": s.Status}
}

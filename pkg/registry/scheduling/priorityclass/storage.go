// Package priorityclass is the REST storage of scheduling.k8s.io/v1
// priorityclasses.
package priorityclass

import (
	"context"
	"errors"

	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/scheduling"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct {
	generic.ValidatingStrategy[*schedulingv1.PriorityClass]
}

// Strategy is the behaviour of priorityclasses: created at generation 1,
// which no update changes (kube-apiserver counts nothing there). Which
// class is the global default, and that pods name an existing class, is
// admission's business (the Priority plugin), not the registry's.
var Strategy = strategy{generic.ValidatingStrategy[*schedulingv1.PriorityClass]{
	ValidateFunc:       scheduling.ValidatePriorityClass,
	ValidateUpdateFunc: scheduling.ValidatePriorityClassUpdate,
}}

func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	obj.(*schedulingv1.PriorityClass).Generation = 1
}

// REST is the storage of priorityclasses: a generic store that refuses to
// delete the system classes one by one, as kube-apiserver does (a delete
// of the collection is not checked there either).
type REST struct {
	*generic.Store
}

// Delete deletes a PriorityClass other than the system ones.
func (r *REST) Delete(ctx context.Context, name string, deleteValidation rest.ValidateObjectFunc, opts *metav1.DeleteOptions) (runtime.Object, bool, error) {
	if scheduling.IsSystemPriorityClass(name) {
		return nil, false, apierrors.NewForbidden(schedulingv1.Resource("priorityclasses"), name, errors.New("this is a system priority class and cannot be deleted"))
	}
	return r.Store.Delete(ctx, name, deleteValidation, opts)
}

// Storage is the REST storage of priorityclasses.
type Storage struct {
	PriorityClass *REST
}

// NewStorage returns the storage of priorityclasses.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &schedulingv1.PriorityClass{} },
		NewListFunc:               func() runtime.Object { return &schedulingv1.PriorityClassList{} },
		DefaultQualifiedResource:  schedulingv1.Resource("priorityclasses"),
		SingularQualifiedResource: schedulingv1.Resource("priorityclass"),
		KeyPrefix:                 "/priorityclasses",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
		ShortNamesList:            []string{"pc"},
	}
	if err := opts.Complete(s, schedulingv1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{PriorityClass: &REST{Store: s}}, nil
}

// Map returns the storage by path: "priorityclasses".
func (s *Storage) Map() map[string]rest.Storage {
	return map[string]rest.Storage{s.PriorityClass.DefaultQualifiedResource.Resource: s.PriorityClass}
}

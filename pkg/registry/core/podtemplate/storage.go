// Package podtemplate is the REST storage of core/v1 podtemplates.
package podtemplate

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct{ generic.DefaultStrategy }

// Strategy is the behaviour of pod templates: metadata.generation counts
// the changes of the template.
var Strategy = strategy{generic.DefaultStrategy{Namespaced: true}}

func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	obj.(*corev1.PodTemplate).Generation = 1
}

func (strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	pt, oldPT := obj.(*corev1.PodTemplate), old.(*corev1.PodTemplate)
	pt.Generation = oldPT.Generation
	if !apiequality.Semantic.DeepEqual(pt.Template, oldPT.Template) {
		pt.Generation++
	}
}

func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return core.ValidatePodTemplate(obj.(*corev1.PodTemplate))
}

func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return core.ValidatePodTemplateUpdate(obj.(*corev1.PodTemplate), old.(*corev1.PodTemplate))
}

// WarningsOnCreate are the warnings of the pod template.
func (strategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	pt := obj.(*corev1.PodTemplate)
	return core.PodTemplateWarnings(field.NewPath("template"), &pt.Template)
}

// WarningsOnUpdate are the warnings of the pod template, when the spec
// changed.
func (strategy) WarningsOnUpdate(_ context.Context, obj, old runtime.Object) []string {
	pt := obj.(*corev1.PodTemplate)
	return core.PodTemplateUpdateWarnings(field.NewPath("template"), &pt.Template, pt.Generation, old.(*corev1.PodTemplate).Generation)
}

// Storage is the REST storage of podtemplates.
type Storage struct {
	PodTemplate *generic.Store
}

// NewStorage returns the storage of podtemplates.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &corev1.PodTemplate{} },
		NewListFunc:               func() runtime.Object { return &corev1.PodTemplateList{} },
		DefaultQualifiedResource:  corev1.Resource("podtemplates"),
		SingularQualifiedResource: corev1.Resource("podtemplate"),
		KeyPrefix:                 "/podtemplates",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
		// As kube-apiserver, a delete answers with the deleted template.
		ReturnDeletedObject: true,
	}
	if err := opts.Complete(s, corev1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{PodTemplate: s}, nil
}

// Map returns the storage by path: "podtemplates".
func (s *Storage) Map() map[string]rest.Storage {
	return map[string]rest.Storage{s.PodTemplate.DefaultQualifiedResource.Resource: s.PodTemplate}
}

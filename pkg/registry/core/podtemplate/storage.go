// Package podtemplate is the REST storage of core/v1 podtemplates.
package podtemplate

import (
	"context"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/features"
	"github.com/kapi-dev/kapi/pkg/registry/gated"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct {
	generic.SpecStrategy[*corev1.PodTemplate]
}

// Strategy is the behaviour of pod templates: metadata.generation counts
// the changes of the template, which is their spec.
var Strategy = newStrategy(features.Gates{})

// newStrategy is Strategy for gates, which decide the fields of the
// template that are kept.
func newStrategy(gates features.Gates) strategy {
	return strategy{generic.SpecStrategy[*corev1.PodTemplate]{
		DefaultStrategy:    generic.DefaultStrategy{Namespaced: true},
		Spec:               generic.FieldPart(func(pt *corev1.PodTemplate) *corev1.PodTemplateSpec { return &pt.Template }),
		CountGenerations:   true,
		ValidateFunc:       core.ValidatePodTemplate,
		ValidateUpdateFunc: core.ValidatePodTemplateUpdate,
		DropDisabled:       gated.Template(gates, func(t *corev1.PodTemplate) *corev1.PodTemplateSpec { return &t.Template }),
	}}
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
func NewStorage(opts generic.RESTOptions, gates features.Gates) (*Storage, error) {
	st := newStrategy(gates)
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &corev1.PodTemplate{} },
		NewListFunc:               func() runtime.Object { return &corev1.PodTemplateList{} },
		DefaultQualifiedResource:  corev1.Resource("podtemplates"),
		SingularQualifiedResource: corev1.Resource("podtemplate"),
		KeyPrefix:                 "/podtemplates",
		CreateStrategy:            st,
		UpdateStrategy:            st,
		DeleteStrategy:            st,
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

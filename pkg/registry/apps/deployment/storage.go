// Package deployment is the REST storage of apps/v1 deployments and of
// their /status and /scale subresources.
package deployment

import (
	"context"
	"k8s.io/apimachinery/pkg/util/validation/field"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/pkg/apis/apps"
	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/features"
	"github.com/kapi-dev/kapi/pkg/registry/gated"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct {
	generic.SpecStrategy[*appsv1.Deployment]
}

// Strategy is the behaviour of deployments: metadata.generation counts
// changes of the spec (and of the annotations, which carry rollback
// requests), and the status is written only through /status.
var Strategy = newStrategy(features.Gates{})

// newStrategy is Strategy for gates, which decide the fields of the pod
// template that are kept.
func newStrategy(gates features.Gates) strategy {
	return strategy{generic.SpecStrategy[*appsv1.Deployment]{
		DefaultStrategy:    generic.DefaultStrategy{Namespaced: true},
		APIVersions:        []string{"apps/v1"},
		Spec:               generic.FieldPart(func(d *appsv1.Deployment) *appsv1.DeploymentSpec { return &d.Spec }),
		Status:             generic.FieldPart(func(d *appsv1.Deployment) *appsv1.DeploymentStatus { return &d.Status }),
		CountGenerations:   true,
		ValidateFunc:       apps.ValidateDeployment,
		ValidateUpdateFunc: apps.ValidateDeploymentUpdate,
		DropDisabled:       gated.Template(gates, func(d *appsv1.Deployment) *corev1.PodTemplateSpec { return &d.Spec.Template }),
	}}
}

// PrepareForUpdate drops the disabled fields, keeps the status, and
// counts a change of the spec or of the annotations in
// metadata.generation.
func (s strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	d, oldD := obj.(*appsv1.Deployment), old.(*appsv1.Deployment)
	s.DropDisabled(d, oldD)
	d.Status = oldD.Status
	if !apiequality.Semantic.DeepEqual(d.Spec, oldD.Spec) || !apiequality.Semantic.DeepEqual(d.Annotations, oldD.Annotations) {
		d.Generation++
	}
}

// WarningsOnCreate are the warnings of the pod template.
func (strategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	d := obj.(*appsv1.Deployment)
	return core.PodTemplateWarnings(field.NewPath("spec", "template"), &d.Spec.Template)
}

// WarningsOnUpdate are the warnings of the pod template, when the spec
// changed.
func (strategy) WarningsOnUpdate(_ context.Context, obj, old runtime.Object) []string {
	d := obj.(*appsv1.Deployment)
	return core.PodTemplateUpdateWarnings(field.NewPath("spec", "template"), &d.Spec.Template, d.Generation, old.(*appsv1.Deployment).Generation)
}

// statusStrategy keeps the spec and the labels. The annotations a status
// write takes, as kube-apiserver does.
var statusStrategy = generic.StatusStrategy[*appsv1.Deployment]{
	SpecStrategy:             Strategy.SpecStrategy,
	KeepMetadata:             func(meta, stored metav1.Object) { meta.SetLabels(stored.GetLabels()) },
	ResetPaths:               [][]string{{"metadata", "labels"}},
	ValidateStatusUpdateFunc: apps.ValidateDeploymentStatusUpdate,
}

// scalable is how deployments/scale reads and writes a deployment.
var scalable = generic.Scalable{
	GroupVersion: appsv1.SchemeGroupVersion,
	Replicas: func(obj runtime.Object) (generic.Replicas, error) {
		d := obj.(*appsv1.Deployment)
		selector, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
		if err != nil {
			return generic.Replicas{}, err
		}
		return generic.Replicas{Spec: ptr.Deref(d.Spec.Replicas, 0), Status: d.Status.Replicas, Selector: selector.String()}, nil
	},
	SetReplicas: func(obj runtime.Object, replicas int32) { obj.(*appsv1.Deployment).Spec.Replicas = &replicas },
}

// Storage is the REST storage of deployments and their subresources.
type Storage struct {
	Deployment *generic.Store
	Status     *generic.SubresourceREST
	Scale      *generic.ScaleREST
}

// NewStorage returns the storage of deployments.
func NewStorage(opts generic.RESTOptions, gates features.Gates) (*Storage, error) {
	st := newStrategy(gates)
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &appsv1.Deployment{} },
		NewListFunc:               func() runtime.Object { return &appsv1.DeploymentList{} },
		DefaultQualifiedResource:  appsv1.Resource("deployments"),
		SingularQualifiedResource: appsv1.Resource("deployment"),
		KeyPrefix:                 "/deployments",
		CreateStrategy:            st,
		UpdateStrategy:            st,
		DeleteStrategy:            st,
		ShortNamesList:            []string{"deploy"},
		CategoriesList:            []string{"all"},
	}
	if err := opts.Complete(s, appsv1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{
		Deployment: s,
		Status:     generic.NewSubresourceREST(s, statusStrategy),
		Scale:      generic.NewScaleREST(s, scalable),
	}, nil
}

// Map returns the storage by path: "deployments", "deployments/status"
// and "deployments/scale".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.Deployment.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{
		plural:             s.Deployment,
		plural + "/status": s.Status,
		plural + "/scale":  s.Scale,
	}
}

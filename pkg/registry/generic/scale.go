package generic

import (
	"context"
	"fmt"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// Replicas is what a scalable object tells its /scale subresource: the
// replicas it wants, those it has, and the selector of its pods in the
// string form of a label selector.
type Replicas struct {
	Spec     int32
	Status   int32
	Selector string
}

// Scalable is how a scale subresource reads and writes the replica count
// of its parent's kind.
type Scalable struct {
	// GroupVersion is the API version the parent is stored in
	// ("apps/v1"): the field manager moves the owners of spec.replicas
	// between the Scale and the parent in it.
	GroupVersion schema.GroupVersion
	// Replicas reads the parent.
	Replicas func(obj runtime.Object) (Replicas, error)
	// SetReplicas changes the parent's desired replicas.
	SetReplicas func(obj runtime.Object, replicas int32)
}

// ScaleREST serves the /scale subresource of a scalable resource
// (deployments, replicasets, statefulsets, replicationcontrollers): the
// replica count of an object as an autoscaling/v1 Scale, so that `kubectl
// scale` and autoscalers work with any scalable resource the same way.
// Writing the Scale changes only the parent's spec.replicas; its
// resourceVersion is the parent's.
type ScaleREST struct {
	store    *Store
	scalable Scalable
}

// NewScaleREST returns the /scale subresource of store's objects.
func NewScaleREST(store *Store, scalable Scalable) *ScaleREST {
	return &ScaleREST{store: store, scalable: scalable}
}

var (
	_ rest.Getter                   = &ScaleREST{}
	_ rest.Updater                  = &ScaleREST{}
	_ rest.GroupVersionKindProvider = &ScaleREST{}
)

func (r *ScaleREST) New() runtime.Object   { return &autoscalingv1.Scale{} }
func (r *ScaleREST) Destroy()              {}
func (r *ScaleREST) NamespaceScoped() bool { return r.store.NamespaceScoped() }

// GroupVersionKind is autoscaling/v1 Scale whichever group serves it.
func (r *ScaleREST) GroupVersionKind(schema.GroupVersion) schema.GroupVersionKind {
	return autoscalingv1.SchemeGroupVersion.WithKind("Scale")
}

// Get returns the object's scale.
func (r *ScaleREST) Get(ctx context.Context, name string, opts *metav1.GetOptions) (runtime.Object, error) {
	obj, err := r.store.Get(ctx, name, opts)
	if err != nil {
		return nil, err
	}
	return r.scaleOf(obj)
}

// Update changes the object's replicas to the scale's.
func (r *ScaleREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, _ rest.ValidateObjectFunc,
	updateValidation rest.ValidateObjectUpdateFunc, _ bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	info := &scaleUpdate{rest: r, name: name, objInfo: objInfo, updateValidation: updateValidation}
	obj, _, err := r.store.Update(ctx, name, info, nil, nil, false, opts)
	if err != nil {
		return nil, false, err
	}
	scale, err := r.scaleOf(obj)
	return scale, false, err
}

// GetResetFields is nothing: a Scale has no status a client could set.
func (r *ScaleREST) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set { return nil }

// scaleOf is the Scale of an object.
func (r *ScaleREST) scaleOf(obj runtime.Object) (*autoscalingv1.Scale, error) {
	replicas, err := r.scalable.Replicas(obj)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	m, err := metaOf(obj)
	if err != nil {
		return nil, err
	}
	return &autoscalingv1.Scale{
		ObjectMeta: metav1.ObjectMeta{
			Name:              m.GetName(),
			Namespace:         m.GetNamespace(),
			UID:               m.GetUID(),
			ResourceVersion:   m.GetResourceVersion(),
			CreationTimestamp: m.GetCreationTimestamp(),
		},
		Spec:   autoscalingv1.ScaleSpec{Replicas: replicas.Spec},
		Status: autoscalingv1.ScaleStatus{Replicas: replicas.Status, Selector: replicas.Selector},
	}, nil
}

func metaOf(obj runtime.Object) (metav1.Object, error) {
	m, ok := obj.(metav1.Object)
	if !ok {
		return nil, apierrors.NewInternalError(fmt.Errorf("%T has no object metadata", obj))
	}
	return m, nil
}

// scaleUpdate turns an update of the scale into one of the parent.
type scaleUpdate struct {
	rest             *ScaleREST
	name             string
	objInfo          rest.UpdatedObjectInfo
	updateValidation rest.ValidateObjectUpdateFunc
}

func (u *scaleUpdate) UpdatedObject(ctx context.Context, oldObj runtime.Object) (runtime.Object, error) {
	if oldObj == nil {
		return nil, apierrors.NewNotFound(u.rest.store.DefaultQualifiedResource, u.name)
	}
	parent := oldObj.DeepCopyObject()
	oldScale, err := u.rest.scaleOf(parent)
	if err != nil {
		return nil, err
	}
	m, err := metaOf(parent)
	if err != nil {
		return nil, err
	}
	// The owners of spec.replicas are those of the scale's replicas: the
	// field manager sees them, and what it records goes back to the
	// parent's managedFields.
	replicasPath := managedfields.ResourcePathMappings{u.rest.scalable.GroupVersion.String(): fieldpath.MakePathOrDie("spec", "replicas")}
	owners := managedfields.NewScaleHandler(m.GetManagedFields(), u.rest.scalable.GroupVersion, replicasPath)
	if oldScale.ManagedFields, err = owners.ToSubresource(); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	obj, err := u.objInfo.UpdatedObject(ctx, oldScale)
	if err != nil {
		return nil, err
	}
	if obj == nil {
		return nil, apierrors.NewBadRequest("nil update passed to Scale")
	}
	scale, ok := obj.(*autoscalingv1.Scale)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("expected input object type to be Scale, but %T", obj))
	}
	// The Scale written is namespaced as the request, as any object
	// written is (a Scale sent without a namespace takes the request's).
	if err := u.rest.store.checkNamespace(ctx, scale); err != nil {
		return nil, err
	}
	if errs := ValidateScale(scale); len(errs) > 0 {
		return nil, apierrors.NewInvalid(autoscalingv1.SchemeGroupVersion.WithKind("Scale").GroupKind(), scale.Name, errs)
	}
	if u.updateValidation != nil {
		if err := u.updateValidation(ctx, scale.DeepCopy(), oldScale); err != nil {
			return nil, err
		}
	}
	// The scale's resourceVersion is the parent's: a stale one is a
	// conflict on the parent.
	if scale.ResourceVersion != "" {
		m.SetResourceVersion(scale.ResourceVersion)
	}
	u.rest.scalable.SetReplicas(parent, scale.Spec.Replicas)
	managed, err := owners.ToParent(scale.ManagedFields)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	m.SetManagedFields(managed)
	return parent, nil
}

// ValidateScale validates the Scale written to a scale subresource, as
// kube-apiserver's autoscaling validation does: its metadata, and a
// replica count that is not negative.
func ValidateScale(scale *autoscalingv1.Scale) field.ErrorList {
	allErrs := core.ValidateObjectMeta(&scale.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	if scale.Spec.Replicas < 0 {
		allErrs = append(allErrs, field.Invalid(field.NewPath("spec", "replicas"), scale.Spec.Replicas, apivalidation.IsNegativeErrorMsg))
	}
	return allErrs
}

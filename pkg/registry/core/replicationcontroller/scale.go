package replicationcontroller

import (
	"context"
	"fmt"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// ScaleREST serves replicationcontrollers/scale: a controller's replica
// count as an autoscaling/v1 Scale, for `kubectl scale` and autoscalers.
//
// It is written against scaleShape, the little a scale subresource needs
// to know of its resource, so that it can move to pkg/registry/generic
// once the apps workloads share one.
type ScaleREST struct {
	store *generic.Store
}

// scaleShape is what a scale subresource knows of the resource it scales.
type scaleShape struct {
	// resource names the parent in NotFound errors.
	resource schema.GroupResource
	// version and replicasPath locate the replicas in the parent, so that
	// field managers of the scale's replicas own the parent's.
	version      schema.GroupVersion
	replicasPath fieldpath.Path
	// scaleOf is the parent's scale; withReplicas a copy of the parent
	// with the scale's replicas.
	scaleOf      func(obj runtime.Object) (*autoscalingv1.Scale, error)
	withReplicas func(obj runtime.Object, replicas int32) runtime.Object
}

// rcScale is the shape of a replication controller's scale.
var rcScale = scaleShape{
	resource:     corev1.Resource("replicationcontrollers"),
	version:      corev1.SchemeGroupVersion,
	replicasPath: fieldpath.MakePathOrDie("spec", "replicas"),
	scaleOf: func(obj runtime.Object) (*autoscalingv1.Scale, error) {
		rc := obj.(*corev1.ReplicationController)
		var replicas int32
		if rc.Spec.Replicas != nil {
			replicas = *rc.Spec.Replicas
		}
		return &autoscalingv1.Scale{
			ObjectMeta: metav1.ObjectMeta{
				Name:              rc.Name,
				Namespace:         rc.Namespace,
				UID:               rc.UID,
				ResourceVersion:   rc.ResourceVersion,
				CreationTimestamp: rc.CreationTimestamp,
			},
			Spec:   autoscalingv1.ScaleSpec{Replicas: replicas},
			Status: autoscalingv1.ScaleStatus{Replicas: rc.Status.Replicas, Selector: labels.SelectorFromSet(rc.Spec.Selector).String()},
		}, nil
	},
	withReplicas: func(obj runtime.Object, replicas int32) runtime.Object {
		rc := obj.(*corev1.ReplicationController).DeepCopy()
		rc.Spec.Replicas = &replicas
		return rc
	},
}

var (
	_ rest.Getter                   = &ScaleREST{}
	_ rest.Updater                  = &ScaleREST{}
	_ rest.GroupVersionKindProvider = &ScaleREST{}
)

func (r *ScaleREST) New() runtime.Object   { return &autoscalingv1.Scale{} }
func (r *ScaleREST) Destroy()              {}
func (r *ScaleREST) NamespaceScoped() bool { return true }

// GroupVersionKind is autoscaling/v1 Scale, whichever group serves it.
func (r *ScaleREST) GroupVersionKind(schema.GroupVersion) schema.GroupVersionKind {
	return autoscalingv1.SchemeGroupVersion.WithKind("Scale")
}

// Get returns the controller's scale.
func (r *ScaleREST) Get(ctx context.Context, name string, opts *metav1.GetOptions) (runtime.Object, error) {
	obj, err := r.store.Get(ctx, name, opts)
	if err != nil {
		return nil, notFoundAs(rcScale.resource, err, name)
	}
	return rcScale.scaleOf(obj)
}

// Update sets the controller's replicas to the scale's.
func (r *ScaleREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, _ rest.ValidateObjectFunc,
	updateValidation rest.ValidateObjectUpdateFunc, _ bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	obj, _, err := r.store.Update(ctx, name, &scaleUpdate{shape: rcScale, objInfo: objInfo, updateValidation: updateValidation}, nil, nil, false, opts)
	if err != nil {
		return nil, false, notFoundAs(rcScale.resource, err, name)
	}
	scale, err := rcScale.scaleOf(obj)
	return scale, false, err
}

// notFoundAs reports a missing parent as its own resource, not the scale.
func notFoundAs(resource schema.GroupResource, err error, name string) error {
	if apierrors.IsNotFound(err) {
		return apierrors.NewNotFound(resource, name)
	}
	return err
}

// scaleUpdate computes the parent's update from the scale's: the scale is
// computed from the current parent, updated by the request, validated,
// and its replicas (and their field managers) written back.
type scaleUpdate struct {
	shape            scaleShape
	objInfo          rest.UpdatedObjectInfo
	updateValidation rest.ValidateObjectUpdateFunc
}

func (u *scaleUpdate) UpdatedObject(ctx context.Context, old runtime.Object) (runtime.Object, error) {
	if old == nil {
		return nil, apierrors.NewNotFound(u.shape.resource, "")
	}
	oldScale, err := u.shape.scaleOf(old)
	if err != nil {
		return nil, err
	}
	accessor, err := metaAccessor(old)
	if err != nil {
		return nil, err
	}
	owners := managedfields.NewScaleHandler(accessor.GetManagedFields(), u.shape.version, managedfields.ResourcePathMappings{u.shape.version.String(): u.shape.replicasPath})
	if oldScale.ManagedFields, err = owners.ToSubresource(); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	obj, err := u.objInfo.UpdatedObject(ctx, oldScale)
	if err != nil {
		return nil, err
	}
	scale, ok := obj.(*autoscalingv1.Scale)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("expected input object type to be Scale, but %T", obj))
	}
	if scale.Spec.Replicas < 0 {
		errs := field.ErrorList{field.Invalid(field.NewPath("spec", "replicas"), scale.Spec.Replicas, "must be greater than or equal to 0")}
		return nil, apierrors.NewInvalid(autoscalingv1.SchemeGroupVersion.WithKind("Scale").GroupKind(), scale.Name, errs)
	}
	if u.updateValidation != nil {
		if err := u.updateValidation(ctx, scale.DeepCopy(), oldScale); err != nil {
			return nil, err
		}
	}
	updated := u.shape.withReplicas(old, scale.Spec.Replicas)
	m, err := metaAccessor(updated)
	if err != nil {
		return nil, err
	}
	// The scale's resourceVersion is the parent's: a stale one conflicts.
	if scale.ResourceVersion != "" {
		m.SetResourceVersion(scale.ResourceVersion)
	}
	managed, err := owners.ToParent(scale.ManagedFields)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	m.SetManagedFields(managed)
	return updated, nil
}

func metaAccessor(obj runtime.Object) (metav1.Object, error) {
	m, ok := obj.(metav1.Object)
	if !ok {
		return nil, apierrors.NewInternalError(fmt.Errorf("%T has no object metadata", obj))
	}
	return m, nil
}

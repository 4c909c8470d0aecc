package deployment

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// ScaleREST serves deployments/scale: the replica count of a deployment
// as an autoscaling/v1 Scale, so that `kubectl scale` and autoscalers can
// work with any scalable resource the same way.
type ScaleREST struct {
	store *generic.Store
}

var (
	_ rest.Getter                   = &ScaleREST{}
	_ rest.Updater                  = &ScaleREST{}
	_ rest.GroupVersionKindProvider = &ScaleREST{}
)

func (r *ScaleREST) New() runtime.Object   { return &autoscalingv1.Scale{} }
func (r *ScaleREST) Destroy()              {}
func (r *ScaleREST) NamespaceScoped() bool { return true }

// GroupVersionKind is autoscaling/v1 Scale whichever group serves it.
func (r *ScaleREST) GroupVersionKind(schema.GroupVersion) schema.GroupVersionKind {
	return autoscalingv1.SchemeGroupVersion.WithKind("Scale")
}

// Get returns the deployment's scale.
func (r *ScaleREST) Get(ctx context.Context, name string, opts *metav1.GetOptions) (runtime.Object, error) {
	obj, err := r.store.Get(ctx, name, opts)
	if err != nil {
		return nil, scaleNotFound(err, name)
	}
	return scaleOf(obj.(*appsv1.Deployment))
}

// Update changes the deployment's replicas to the scale's.
func (r *ScaleREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, _ rest.ValidateObjectFunc,
	updateValidation rest.ValidateObjectUpdateFunc, _ bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	info := &scaleUpdate{objInfo: objInfo, updateValidation: updateValidation}
	obj, _, err := r.store.Update(ctx, name, info, nil, nil, false, opts)
	if err != nil {
		return nil, false, scaleNotFound(err, name)
	}
	scale, err := scaleOf(obj.(*appsv1.Deployment))
	return scale, false, err
}

func scaleNotFound(err error, name string) error {
	if apierrors.IsNotFound(err) {
		return apierrors.NewNotFound(appsv1.Resource("deployments"), name)
	}
	return err
}

// scaleUpdate turns an update of the scale into one of the deployment.
type scaleUpdate struct {
	objInfo          rest.UpdatedObjectInfo
	updateValidation rest.ValidateObjectUpdateFunc
}

func (u *scaleUpdate) UpdatedObject(ctx context.Context, oldObj runtime.Object) (runtime.Object, error) {
	if oldObj == nil {
		return nil, apierrors.NewNotFound(appsv1.Resource("deployments/scale"), "")
	}
	d := oldObj.(*appsv1.Deployment).DeepCopy()
	oldScale, err := scaleOf(d)
	if err != nil {
		return nil, err
	}
	// The owners of spec.replicas are those of the scale's replicas: the
	// field manager sees them, and what it records goes back to the
	// deployment's managedFields.
	owners := managedfields.NewScaleHandler(d.ManagedFields, appsv1.SchemeGroupVersion, replicasPath)
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
	if errs := validateScale(scale); len(errs) > 0 {
		return nil, apierrors.NewInvalid(autoscalingv1.SchemeGroupVersion.WithKind("Scale").GroupKind(), scale.Name, errs)
	}
	if u.updateValidation != nil {
		if err := u.updateValidation(ctx, scale.DeepCopy(), oldScale); err != nil {
			return nil, err
		}
	}
	// The scale's resourceVersion is the deployment's: a stale one is a
	// conflict on the deployment.
	if scale.ResourceVersion != "" {
		d.ResourceVersion = scale.ResourceVersion
	}
	d.Spec.Replicas = &scale.Spec.Replicas
	if d.ManagedFields, err = owners.ToParent(scale.ManagedFields); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return d, nil
}

// replicasPath is where the scale's replicas are in a deployment.
var replicasPath = managedfields.ResourcePathMappings{"apps/v1": fieldpath.MakePathOrDie("spec", "replicas")}

func validateScale(s *autoscalingv1.Scale) field.ErrorList {
	var errs field.ErrorList
	if s.Spec.Replicas < 0 {
		errs = append(errs, field.Invalid(field.NewPath("spec", "replicas"), s.Spec.Replicas, "must be greater than or equal to 0"))
	}
	return errs
}

// scaleOf is the Scale of a deployment.
func scaleOf(d *appsv1.Deployment) (*autoscalingv1.Scale, error) {
	selector, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	var replicas int32
	if d.Spec.Replicas != nil {
		replicas = *d.Spec.Replicas
	}
	return &autoscalingv1.Scale{
		ObjectMeta: metav1.ObjectMeta{
			Name:              d.Name,
			Namespace:         d.Namespace,
			UID:               d.UID,
			ResourceVersion:   d.ResourceVersion,
			CreationTimestamp: d.CreationTimestamp,
		},
		Spec:   autoscalingv1.ScaleSpec{Replicas: replicas},
		Status: autoscalingv1.ScaleStatus{Replicas: d.Status.Replicas, Selector: selector.String()},
	}, nil
}

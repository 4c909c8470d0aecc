package customresource

import (
	"context"
	"fmt"
	"strings"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// ScaleREST serves the scale subresource of a custom resource: the fields
// the CRD's specReplicasPath, statusReplicasPath and labelSelectorPath
// name, as an autoscaling/v1 Scale, so that `kubectl scale` and
// autoscalers work with custom resources as with deployments.
type ScaleREST struct {
	store *generic.Store
	paths apiextensionsv1.CustomResourceSubresourceScale
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

func (r *ScaleREST) Get(ctx context.Context, name string, opts *metav1.GetOptions) (runtime.Object, error) {
	obj, err := r.store.Get(ctx, name, opts)
	if err != nil {
		return nil, err
	}
	return r.scaleOf(obj.(*unstructured.Unstructured))
}

// Update sets the replicas at specReplicasPath to the scale's.
func (r *ScaleREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, _ rest.ValidateObjectFunc,
	updateValidation rest.ValidateObjectUpdateFunc, _ bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	info := &scaleUpdate{rest: r, objInfo: objInfo, updateValidation: updateValidation}
	obj, _, err := r.store.Update(ctx, name, info, nil, nil, false, opts)
	if err != nil {
		return nil, false, err
	}
	scale, err := r.scaleOf(obj.(*unstructured.Unstructured))
	return scale, false, err
}

// pathFields splits a JSON path such as ".spec.replicas".
func pathFields(p string) []string {
	return strings.Split(strings.TrimPrefix(p, "."), ".")
}

func (r *ScaleREST) scaleOf(u *unstructured.Unstructured) (*autoscalingv1.Scale, error) {
	replicas, err := intAt(u, r.paths.SpecReplicasPath)
	if err != nil {
		return nil, err
	}
	statusReplicas, err := intAt(u, r.paths.StatusReplicasPath)
	if err != nil {
		return nil, err
	}
	var selector string
	if p := r.paths.LabelSelectorPath; p != nil && *p != "" {
		s, _, err := unstructured.NestedString(u.Object, pathFields(*p)...)
		if err != nil {
			return nil, apierrors.NewInternalError(fmt.Errorf("the label selector at %s: %w", *p, err))
		}
		selector = s
	}
	return &autoscalingv1.Scale{
		TypeMeta: metav1.TypeMeta{Kind: "Scale", APIVersion: "autoscaling/v1"},
		ObjectMeta: metav1.ObjectMeta{
			Name:              u.GetName(),
			Namespace:         u.GetNamespace(),
			UID:               u.GetUID(),
			ResourceVersion:   u.GetResourceVersion(),
			CreationTimestamp: u.GetCreationTimestamp(),
		},
		Spec:   autoscalingv1.ScaleSpec{Replicas: replicas},
		Status: autoscalingv1.ScaleStatus{Replicas: statusReplicas, Selector: selector},
	}, nil
}

// intAt reads an optional integer; a missing one is 0.
func intAt(u *unstructured.Unstructured, path string) (int32, error) {
	v, found, err := unstructured.NestedFieldNoCopy(u.Object, pathFields(path)...)
	if err != nil || !found || v == nil {
		return 0, nil
	}
	switch n := v.(type) {
	case int64:
		return int32(n), nil
	case float64:
		return int32(n), nil
	}
	return 0, apierrors.NewInternalError(fmt.Errorf("the value at %s is not an integer: %v", path, v))
}

type scaleUpdate struct {
	rest             *ScaleREST
	objInfo          rest.UpdatedObjectInfo
	updateValidation rest.ValidateObjectUpdateFunc
}

func (u *scaleUpdate) UpdatedObject(ctx context.Context, oldObj runtime.Object) (runtime.Object, error) {
	if oldObj == nil {
		return nil, apierrors.NewNotFound(u.rest.store.DefaultQualifiedResource, "")
	}
	cr := oldObj.(*unstructured.Unstructured).DeepCopy()
	oldScale, err := u.rest.scaleOf(cr)
	if err != nil {
		return nil, err
	}
	// The owners of the spec replicas are those of the scale's replicas:
	// the field manager sees them, and what it records goes back to the
	// custom resource's managedFields.
	owners := managedfields.NewScaleHandler(cr.GetManagedFields(), cr.GroupVersionKind().GroupVersion(), u.rest.replicasPaths(cr))
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
		return nil, apierrors.NewInvalid(autoscalingv1.SchemeGroupVersion.WithKind("Scale").GroupKind(), scale.Name, field.ErrorList{
			field.Invalid(field.NewPath("spec", "replicas"), scale.Spec.Replicas, "must be greater than or equal to 0"),
		})
	}
	if u.updateValidation != nil {
		if err := u.updateValidation(ctx, scale.DeepCopy(), oldScale); err != nil {
			return nil, err
		}
	}
	// The scale's resourceVersion is the custom resource's.
	if scale.ResourceVersion != "" {
		cr.SetResourceVersion(scale.ResourceVersion)
	}
	if err := unstructured.SetNestedField(cr.Object, int64(scale.Spec.Replicas), pathFields(u.rest.paths.SpecReplicasPath)...); err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	managed, err := owners.ToParent(scale.ManagedFields)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	cr.SetManagedFields(managed)
	return cr, nil
}

// replicasPaths maps the versions of the managedFields of a custom
// resource to where the scale's replicas are. Every version of the CRD's
// group is taken to keep them where this one does: the storage knows only
// its own version, and entries of versions missing from the map would be
// dropped.
func (r *ScaleREST) replicasPaths(cr *unstructured.Unstructured) managedfields.ResourcePathMappings {
	var path fieldpath.Path
	for _, name := range pathFields(r.paths.SpecReplicasPath) {
		path = append(path, fieldpath.PathElement{FieldName: &name})
	}
	paths := managedfields.ResourcePathMappings{cr.GetAPIVersion(): path}
	for _, e := range cr.GetManagedFields() {
		if gv, err := schema.ParseGroupVersion(e.APIVersion); err == nil && gv.Group == cr.GroupVersionKind().Group {
			paths[e.APIVersion] = path
		}
	}
	return paths
}

// Package namespace is the REST storage of core/v1 namespaces: their
// finalizers, the two-phase delete (Terminating until spec.finalizers is
// empty), and the /status and /finalize subresources.
package namespace

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
	"github.com/kapi-dev/kapi/pkg/storage"
)

// nameLabel is the label kube-apiserver keeps equal to every namespace's
// name, so namespaces can be selected by name with a label selector.
const nameLabel = "kubernetes.io/metadata.name"

type strategy struct{ generic.DefaultStrategy }

// Strategy is the behaviour of namespaces on create and update.
var Strategy = strategy{generic.DefaultStrategy{}}

func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	ns := obj.(*corev1.Namespace)
	ns.Status = corev1.NamespaceStatus{Phase: corev1.NamespaceActive}
	if !hasFinalizer(ns, corev1.FinalizerKubernetes) {
		ns.Spec.Finalizers = append(ns.Spec.Finalizers, corev1.FinalizerKubernetes)
	}
	setNameLabel(ns)
}

// GetResetFields is what updates keep: the status, written through
// /status, and spec.finalizers, written through /finalize.
func (strategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("v1", []string{"status"}, []string{"spec", "finalizers"})
}

func (strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	ns, oldNS := obj.(*corev1.Namespace), old.(*corev1.Namespace)
	ns.Spec.Finalizers = oldNS.Spec.Finalizers
	ns.Status = oldNS.Status
	setNameLabel(ns)
}

func setNameLabel(ns *corev1.Namespace) {
	if ns.Labels == nil {
		ns.Labels = map[string]string{}
	}
	ns.Labels[nameLabel] = ns.Name
}

func hasFinalizer(ns *corev1.Namespace, f corev1.FinalizerName) bool {
	for _, x := range ns.Spec.Finalizers {
		if x == f {
			return true
		}
	}
	return false
}

func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return core.ValidateNamespace(obj.(*corev1.Namespace))
}

func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return core.ValidateNamespaceUpdate(obj.(*corev1.Namespace), old.(*corev1.Namespace))
}

type statusStrategy struct{ strategy }

// GetResetFields is what /status keeps: the spec, the labels and the
// annotations.
func (statusStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("v1", []string{"spec"}, []string{"metadata", "labels"}, []string{"metadata", "annotations"})
}

func (statusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	ns, oldNS := obj.(*corev1.Namespace), old.(*corev1.Namespace)
	ns.Spec = oldNS.Spec
	ns.Labels, ns.Annotations = oldNS.Labels, oldNS.Annotations
}

func (statusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return core.ValidateNamespaceStatusUpdate(obj.(*corev1.Namespace), old.(*corev1.Namespace))
}

type finalizeStrategy struct{ strategy }

// GetResetFields is what /finalize keeps: all but spec.finalizers.
func (finalizeStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("v1", []string{"metadata"}, []string{"status"})
}

func (finalizeStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	ns, oldNS := obj.(*corev1.Namespace), old.(*corev1.Namespace)
	// Only spec.finalizers may change through /finalize; the field
	// manager recorded who changed them.
	finalizers, managedFields := ns.Spec.Finalizers, ns.ManagedFields
	*ns = *oldNS.DeepCopy()
	ns.Spec.Finalizers, ns.ManagedFields = finalizers, managedFields
}

func (finalizeStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return core.ValidateNamespaceFinalizeUpdate(obj.(*corev1.Namespace), old.(*corev1.Namespace))
}

// REST is the storage of namespaces: the Store's verbs but
// deletecollection, which kube-apiserver does not serve for namespaces,
// and a delete of its own. Its delete answers with the namespace, but, as
// kube-apiserver's storage of namespaces, it is no rest.DeletedObjectReturner:
// the OpenAPI documents say a delete answers with a Status.
type REST struct {
	store *generic.Store
}

var (
	_ rest.Getter               = &REST{}
	_ rest.Lister               = &REST{}
	_ rest.Watcher              = &REST{}
	_ rest.Creater              = &REST{}
	_ rest.Patcher              = &REST{}
	_ rest.GracefulDeleter      = &REST{}
	_ rest.ShortNamesProvider   = &REST{}
	_ rest.SingularNameProvider = &REST{}
	_ rest.ResetFieldsProvider  = &REST{}
)

func (r *REST) New() runtime.Object     { return r.store.New() }
func (r *REST) NewList() runtime.Object { return r.store.NewList() }
func (r *REST) Destroy()                { r.store.Destroy() }
func (r *REST) NamespaceScoped() bool   { return false }
func (r *REST) ShortNames() []string    { return r.store.ShortNames() }
func (r *REST) GetSingularName() string { return r.store.GetSingularName() }

func (r *REST) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return r.store.GetResetFields()
}

func (r *REST) Get(ctx context.Context, name string, opts *metav1.GetOptions) (runtime.Object, error) {
	return r.store.Get(ctx, name, opts)
}

func (r *REST) List(ctx context.Context, opts *metav1.ListOptions) (runtime.Object, error) {
	return r.store.List(ctx, opts)
}

func (r *REST) ConvertToTable(ctx context.Context, obj runtime.Object, opts runtime.Object) (*metav1.Table, error) {
	return r.store.ConvertToTable(ctx, obj, opts)
}

func (r *REST) Watch(ctx context.Context, opts *metav1.ListOptions) (watch.Interface, error) {
	return r.store.Watch(ctx, opts)
}

func (r *REST) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, opts *metav1.CreateOptions) (runtime.Object, error) {
	return r.store.Create(ctx, obj, createValidation, opts)
}

func (r *REST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc,
	updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return r.store.Update(ctx, name, objInfo, createValidation, updateValidation, forceAllowCreate, opts)
}

// FinalizeREST serves namespaces/finalize: updates of spec.finalizers,
// and nothing else, as in kube-apiserver (no get, hence no patch).
type FinalizeREST struct {
	sub *generic.SubresourceREST
}

var _ rest.Updater = &FinalizeREST{}

func (r *FinalizeREST) New() runtime.Object   { return r.sub.New() }
func (r *FinalizeREST) Destroy()              {}
func (r *FinalizeREST) NamespaceScoped() bool { return false }

func (r *FinalizeREST) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return r.sub.GetResetFields()
}

// Update replaces spec.finalizers; a namespace whose deletion nothing
// holds any longer is removed.
func (r *FinalizeREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc,
	updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return r.sub.Update(ctx, name, objInfo, createValidation, updateValidation, forceAllowCreate, opts)
}

// Storage is the REST storage of namespaces and their subresources.
type Storage struct {
	Namespace *REST
	Status    *generic.SubresourceREST
	Finalize  *FinalizeREST
}

// NewStorage returns the storage of namespaces and of their /status and
// /finalize subresources.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &corev1.Namespace{} },
		NewListFunc:               func() runtime.Object { return &corev1.NamespaceList{} },
		DefaultQualifiedResource:  corev1.Resource("namespaces"),
		SingularQualifiedResource: corev1.Resource("namespace"),
		KeyPrefix:                 "/namespaces",
		FieldsFunc: func(obj runtime.Object) fields.Set {
			return fields.Set{"status.phase": string(obj.(*corev1.Namespace).Status.Phase)}
		},
		CreateStrategy:      Strategy,
		UpdateStrategy:      Strategy,
		DeleteStrategy:      Strategy,
		ReturnDeletedObject: true,
		HoldsDeletion: func(obj runtime.Object) bool {
			return len(obj.(*corev1.Namespace).Spec.Finalizers) > 0
		},
		ShortNamesList: []string{"ns"},
	}
	if err := opts.Complete(s, corev1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{
		Namespace: &REST{store: s},
		Status:    generic.NewSubresourceREST(s, statusStrategy{}),
		Finalize:  &FinalizeREST{sub: generic.NewSubresourceREST(s, finalizeStrategy{})},
	}, nil
}

// Map returns the storage by path: "namespaces", "namespaces/status" and
// "namespaces/finalize".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.Namespace.store.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{
		plural:               s.Namespace,
		plural + "/status":   s.Status,
		plural + "/finalize": s.Finalize,
	}
}

// Delete starts or finishes a namespace's deletion. A namespace with
// finalizers in spec.finalizers goes to phase Terminating and stays until
// they are removed through /finalize; one without is removed at once.
func (r *REST) Delete(ctx context.Context, name string, deleteValidation rest.ValidateObjectFunc, opts *metav1.DeleteOptions) (runtime.Object, bool, error) {
	obj, err := r.Get(ctx, name, &metav1.GetOptions{})
	if err != nil {
		return nil, false, err
	}
	ns := obj.(*corev1.Namespace)
	if opts == nil {
		opts = &metav1.DeleteOptions{}
	}
	if pre := opts.Preconditions; pre != nil && pre.UID != nil && *pre.UID != ns.UID {
		return nil, false, apierrors.NewConflict(corev1.Resource("namespaces"), name, fmt.Errorf(
			"Precondition failed: UID in precondition: %v, UID in object meta: %v", *pre.UID, ns.UID))
	}
	if deleteValidation != nil {
		if err := deleteValidation(ctx, ns.DeepCopy()); err != nil {
			return nil, false, err
		}
	}
	if len(ns.Spec.Finalizers) > 0 {
		return r.markTerminating(ctx, name, opts)
	}
	return r.store.Delete(ctx, name, deleteValidation, opts)
}

// markTerminating sets the deletion timestamp and phase Terminating.
func (r *REST) markTerminating(ctx context.Context, name string, opts *metav1.DeleteOptions) (runtime.Object, bool, error) {
	key, err := r.store.Key(ctx, name)
	if err != nil {
		return nil, false, err
	}
	now := metav1.Now()
	var result runtime.Object
	err = r.store.Storage.GuaranteedUpdate(ctx, key, &corev1.Namespace{}, false, nil,
		func(cur runtime.Object, _ storage.ResponseMeta) (runtime.Object, error) {
			ns := cur.(*corev1.Namespace).DeepCopy()
			if ns.DeletionTimestamp == nil {
				ns.DeletionTimestamp = &now
			}
			ns.Status.Phase = corev1.NamespaceTerminating
			result = ns
			if len(opts.DryRun) > 0 {
				return cur, nil
			}
			return ns, nil
		})
	if err != nil {
		if storage.IsNotFound(err) {
			return nil, false, apierrors.NewNotFound(corev1.Resource("namespaces"), name)
		}
		return nil, false, err
	}
	if len(opts.DryRun) == 0 {
		obj, err := r.Get(ctx, name, &metav1.GetOptions{})
		if err == nil {
			result = obj
		}
	}
	return result, false, nil
}

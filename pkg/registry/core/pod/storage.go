package pod

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
	"github.com/kapi-dev/kapi/pkg/storage"
)

// Storage is the REST storage of pods and their subresources.
type Storage struct {
	Pod     *generic.Store
	Status  *generic.SubresourceREST
	Binding *BindingREST
}

// NewStorage returns the storage of pods.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &corev1.Pod{} },
		NewListFunc:               func() runtime.Object { return &corev1.PodList{} },
		DefaultQualifiedResource:  corev1.Resource("pods"),
		SingularQualifiedResource: corev1.Resource("pod"),
		KeyPrefix:                 "/pods",
		FieldsFunc:                selectableFields,
		// Every kubelet watches the pods of its node.
		IndexedFields:       []string{"spec.nodeName"},
		CreateStrategy:      Strategy,
		UpdateStrategy:      Strategy,
		DeleteStrategy:      Strategy,
		ReturnDeletedObject: true,
		ShortNamesList:      []string{"po"},
		CategoriesList:      []string{"all"},
	}
	if err := opts.Complete(s, corev1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{
		Pod:     s,
		Status:  generic.NewSubresourceREST(s, StatusStrategy),
		Binding: &BindingREST{store: s},
	}, nil
}

// Map returns the storage by path: "pods", "pods/status" and
// "pods/binding", and "bindings", the older path of the binding that
// kube-apiserver still serves.
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.Pod.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{
		plural:              s.Pod,
		plural + "/status":  s.Status,
		plural + "/binding": s.Binding,
		"bindings":          s.Binding,
	}
}

// BindingREST binds pods to nodes: POST of a Binding to pods/binding (or
// to the bindings resource) sets spec.nodeName once.
type BindingREST struct {
	store *generic.Store
}

var (
	_ rest.Creater = &BindingREST{}
	_ rest.Scoper  = &BindingREST{}
)

func (r *BindingREST) New() runtime.Object   { return &corev1.Binding{} }
func (r *BindingREST) Destroy()              {}
func (r *BindingREST) NamespaceScoped() bool { return true }

// Create assigns the pod named by the binding to its target node.
func (r *BindingREST) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, opts *metav1.CreateOptions) (runtime.Object, error) {
	b := obj.(*corev1.Binding)
	if info, ok := request.RequestInfoFrom(ctx); ok && info.Name != "" && info.Name != b.Name {
		return nil, apierrors.NewBadRequest("name in URL does not match name in Binding object")
	}
	if errs := core.ValidateBinding(b); len(errs) > 0 {
		return nil, apierrors.NewInvalid(corev1.SchemeGroupVersion.WithKind("Binding").GroupKind(), b.Name, errs)
	}
	if createValidation != nil {
		if err := createValidation(ctx, obj.DeepCopyObject()); err != nil {
			return nil, err
		}
	}
	if len(opts.DryRun) > 0 {
		return &metav1.Status{Status: metav1.StatusSuccess, Code: 201}, nil
	}
	key, err := r.store.Key(ctx, b.Name)
	if err != nil {
		return nil, err
	}
	err = r.store.Storage.GuaranteedUpdate(ctx, key, &corev1.Pod{}, false, nil, func(cur runtime.Object, _ storage.ResponseMeta) (runtime.Object, error) {
		pod := cur.(*corev1.Pod).DeepCopy()
		if pod.DeletionTimestamp != nil {
			return nil, apierrors.NewConflict(corev1.Resource("pods/binding"), b.Name, fmt.Errorf("pod %s is being deleted, cannot be assigned to a host", b.Name))
		}
		if pod.Spec.NodeName != "" {
			return nil, apierrors.NewConflict(corev1.Resource("pods/binding"), b.Name, fmt.Errorf("pod %s is already assigned to node %q", b.Name, pod.Spec.NodeName))
		}
		if b.UID != "" && b.UID != pod.UID {
			return nil, apierrors.NewConflict(corev1.Resource("pods/binding"), b.Name, fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", b.UID, pod.UID))
		}
		pod.Spec.NodeName = b.Target.Name
		for k, v := range b.Annotations {
			if pod.Annotations == nil {
				pod.Annotations = map[string]string{}
			}
			pod.Annotations[k] = v
		}
		setScheduledCondition(pod)
		return pod, nil
	})
	if err != nil {
		if storage.IsNotFound(err) {
			return nil, apierrors.NewNotFound(corev1.Resource("pods"), b.Name)
		}
		return nil, err
	}
	return &metav1.Status{Status: metav1.StatusSuccess, Code: 201}, nil
}

// setScheduledCondition marks the pod PodScheduled=True.
func setScheduledCondition(pod *corev1.Pod) {
	now := metav1.Now()
	for i, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			pod.Status.Conditions[i].Status = corev1.ConditionTrue
			pod.Status.Conditions[i].LastTransitionTime = now
			return
		}
	}
	pod.Status.Conditions = append(pod.Status.Conditions, corev1.PodCondition{
		Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now,
	})
}

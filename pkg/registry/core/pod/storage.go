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
	"github.com/kapi-dev/kapi/pkg/features"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
	"github.com/kapi-dev/kapi/pkg/storage"
)

// Storage is the REST storage of pods and their subresources.
type Storage struct {
	Pod     *generic.Store
	Status  *generic.SubresourceREST
	Binding *BindingREST
	// EphemeralContainers and Resize write parts of the spec.
	EphemeralContainers *generic.SubresourceREST
	Resize              *generic.SubresourceREST
	// Eviction is served when the PodDisruptionBudgets it honours are.
	Eviction    *EvictionREST
	Log         *LogREST
	Exec        *ExecREST
	Attach      *AttachREST
	PortForward *PortForwardREST
	Proxy       *ProxyREST
}

// NewStorage returns the storage of pods; conn reaches the kubelets
// that run them, for the subresources that connect to a pod (log, exec,
// attach, portforward, proxy), which are not served without kubelets.
//
// budgets are the PodDisruptionBudgets pods/eviction honours; without
// them (policy/v1 not served) pods/eviction is not served. gates decide
// which gated fields of pods are kept.
func NewStorage(opts generic.RESTOptions, conn Connections, budgets DisruptionBudgets, gates features.Gates) (*Storage, error) {
	podStrategy := newStrategy(gates)
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &corev1.Pod{} },
		NewListFunc:               func() runtime.Object { return &corev1.PodList{} },
		DefaultQualifiedResource:  corev1.Resource("pods"),
		SingularQualifiedResource: corev1.Resource("pod"),
		KeyPrefix:                 "/pods",
		FieldsFunc:                selectableFields,
		// Every kubelet watches the pods of its node.
		IndexedFields:       []string{"spec.nodeName"},
		CreateStrategy:      podStrategy,
		UpdateStrategy:      podStrategy,
		DeleteStrategy:      podStrategy,
		ReturnDeletedObject: true,
		ShortNamesList:      []string{"po"},
		CategoriesList:      []string{"all"},
	}
	if err := opts.Complete(s, corev1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	st := &Storage{
		Pod:                 s,
		Status:              generic.NewSubresourceREST(s, newStatusStrategy(podStrategy)),
		Binding:             &BindingREST{store: s},
		EphemeralContainers: generic.NewSubresourceREST(s, ephemeralContainersStrategy{podStrategy}),
		Resize:              generic.NewSubresourceREST(s, resizeStrategy{podStrategy}),
	}
	if budgets != nil {
		st.Eviction = &EvictionREST{pods: s, status: st.Status, pdbs: budgets}
	}
	if conn.Kubelets != nil {
		pods := podGetter{s}
		st.Log = &LogREST{pods, conn}
		st.Exec = &ExecREST{pods, conn}
		st.Attach = &AttachREST{pods, conn}
		st.PortForward = &PortForwardREST{pods, conn}
		st.Proxy = &ProxyREST{pods, conn}
	}
	return st, nil
}

// Map returns the storage by path: "pods", "pods/status",
// "pods/binding", the connecting subresources ("pods/log", "pods/exec",
// "pods/attach", "pods/portforward", "pods/proxy"), and "bindings", the
// older path of the binding that kube-apiserver still serves.
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.Pod.DefaultQualifiedResource.Resource
	m := map[string]rest.Storage{
		plural:                          s.Pod,
		plural + "/status":              s.Status,
		plural + "/binding":             s.Binding,
		"bindings":                      s.Binding,
		plural + "/ephemeralcontainers": s.EphemeralContainers,
		plural + "/resize":              s.Resize,
	}
	if s.Eviction != nil {
		m[plural+"/eviction"] = s.Eviction
	}
	if s.Log != nil {
		m[plural+"/log"] = s.Log
		m[plural+"/exec"] = s.Exec
		m[plural+"/attach"] = s.Attach
		m[plural+"/portforward"] = s.PortForward
		m[plural+"/proxy"] = s.Proxy
	}
	return m
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
		// The binding's labels too: the PodTopologyLabels admission
		// plugin puts the node's topology labels there.
		for k, v := range b.Labels {
			if pod.Labels == nil {
				pod.Labels = map[string]string{}
			}
			pod.Labels[k] = v
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

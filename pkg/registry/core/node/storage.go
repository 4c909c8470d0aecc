// Package node is the REST storage of core/v1 nodes and their /status.
package node

import (
	"context"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct{ generic.DefaultStrategy }

// Strategy is the behaviour of nodes. A node is created by POST only: a
// PUT of a missing node is a 404, as in kube-apiserver.
var Strategy = strategy{generic.DefaultStrategy{}}

func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	// A node's status comes from its kubelet through /status, except on
	// create where kube-apiserver keeps it.
}

// GetResetFields is the status, written through /status only.
func (strategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("v1", []string{"status"})
}

func (strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	obj.(*corev1.Node).Status = old.(*corev1.Node).Status
}

func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return core.ValidateNode(obj.(*corev1.Node))
}

func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return core.ValidateNodeUpdate(obj.(*corev1.Node), old.(*corev1.Node))
}

type statusStrategy struct{ strategy }

// GetResetFields is what /status keeps: the spec.
func (statusStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("v1", []string{"spec"})
}

func (statusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	obj.(*corev1.Node).Spec = old.(*corev1.Node).Spec
}

func (statusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return core.ValidateNodeUpdate(obj.(*corev1.Node), old.(*corev1.Node))
}

// Storage is the REST storage of nodes, their /status and /proxy, and
// the kubelets of the nodes, which the streaming subresources of pods
// connect to.
type Storage struct {
	Node     *generic.Store
	Status   *generic.SubresourceREST
	Proxy    *ProxyREST
	Kubelets *Kubelets
}

// NewStorage returns the storage of nodes; kubelet says how to reach
// their kubelets.
func NewStorage(opts generic.RESTOptions, kubelet KubeletConfig) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &corev1.Node{} },
		NewListFunc:               func() runtime.Object { return &corev1.NodeList{} },
		DefaultQualifiedResource:  corev1.Resource("nodes"),
		SingularQualifiedResource: corev1.Resource("node"),
		// kube-apiserver keeps nodes under their historical name.
		KeyPrefix: "/minions",
		FieldsFunc: func(obj runtime.Object) fields.Set {
			return fields.Set{"spec.unschedulable": strconv.FormatBool(obj.(*corev1.Node).Spec.Unschedulable)}
		},
		CreateStrategy: Strategy,
		UpdateStrategy: Strategy,
		DeleteStrategy: Strategy,
		ShortNamesList: []string{"no"},
	}
	if err := opts.Complete(s, corev1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	kubelets, err := NewKubelets(s, kubelet)
	if err != nil {
		return nil, err
	}
	return &Storage{
		Node:     s,
		Status:   generic.NewSubresourceREST(s, statusStrategy{}),
		Proxy:    &ProxyREST{kubelets: kubelets},
		Kubelets: kubelets,
	}, nil
}

// Map returns the storage by path: "nodes", "nodes/status" and
// "nodes/proxy".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.Node.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.Node, plural + "/status": s.Status, plural + "/proxy": s.Proxy}
}

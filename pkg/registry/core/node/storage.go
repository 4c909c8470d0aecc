// Package node is the REST storage of core/v1 nodes and their /status.
package node

import (
	"context"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/features"
	"github.com/kapi-dev/kapi/pkg/registry/gated"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct {
	generic.SpecStrategy[*corev1.Node]
}

// Strategy is the behaviour of nodes. A node is created by POST only: a
// PUT of a missing node is a 404, as in kube-apiserver.
var Strategy = newStrategy(features.Gates{})

// newStrategy is Strategy for gates, which decide the gated fields of
// the spec that are kept.
func newStrategy(gates features.Gates) strategy {
	return strategy{generic.SpecStrategy[*corev1.Node]{
		APIVersions: []string{"v1"},
		Spec:        generic.FieldPart(func(n *corev1.Node) *corev1.NodeSpec { return &n.Spec }),
		Status:      generic.FieldPart(func(n *corev1.Node) *corev1.NodeStatus { return &n.Status }),
		DropDisabled: func(n, old *corev1.Node) {
			var oldSpec *corev1.NodeSpec
			if old != nil {
				oldSpec = &old.Spec
			}
			gated.NodeSpec(gates, &n.Spec, oldSpec)
		},
		ValidateFunc:       core.ValidateNode,
		ValidateUpdateFunc: core.ValidateNodeUpdate,
	}}
}

// PrepareForCreate keeps the status: a node's status comes from its
// kubelet through /status, except on create where kube-apiserver keeps it.
// The spec loses the fields of disabled gates.
func (s strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	s.DropDisabled(obj.(*corev1.Node), nil)
}

// WarningsOnCreate warns of pod CIDRs not written the standard way.
func (strategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	return core.NodeWarnings(obj.(*corev1.Node))
}

// WarningsOnUpdate warns of pod CIDRs not written the standard way.
func (strategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return core.NodeWarnings(obj.(*corev1.Node))
}

// statusStrategy validates a status write as any update of a node.
var statusStrategy = generic.StatusStrategy[*corev1.Node]{
	SpecStrategy:             Strategy.SpecStrategy,
	ValidateStatusUpdateFunc: core.ValidateNodeUpdate,
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
func NewStorage(opts generic.RESTOptions, kubelet KubeletConfig, gates features.Gates) (*Storage, error) {
	st := newStrategy(gates)
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
		CreateStrategy: st,
		UpdateStrategy: st,
		DeleteStrategy: st,
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
		Status:   generic.NewSubresourceREST(s, statusStrategy),
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

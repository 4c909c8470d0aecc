package app

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kapi-dev/kapi/pkg/client"
	"github.com/kapi-dev/kapi/pkg/registry/core/pod"
	"github.com/kapi-dev/kapi/pkg/registry/core/service"
	"github.com/kapi-dev/kapi/pkg/registry/resource/adminaccess"
)

// loopbackDisruptionBudgets are the PodDisruptionBudgets pods/eviction
// honours, read and updated through the loopback client: the budgets are
// another group's objects, and their status update is a request like any
// other (audited, admitted), as in kube-apiserver.
type loopbackDisruptionBudgets struct {
	client func(namespace string) client.WithStatus[*policyv1.PodDisruptionBudget, *policyv1.PodDisruptionBudgetList]
}

var _ pod.DisruptionBudgets = loopbackDisruptionBudgets{}

func (b loopbackDisruptionBudgets) List(ctx context.Context, namespace string) ([]policyv1.PodDisruptionBudget, error) {
	list, err := b.client(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

func (b loopbackDisruptionBudgets) Get(ctx context.Context, namespace, name string) (*policyv1.PodDisruptionBudget, error) {
	return b.client(namespace).Get(ctx, name, metav1.GetOptions{})
}

func (b loopbackDisruptionBudgets) UpdateStatus(ctx context.Context, pdb *policyv1.PodDisruptionBudget) error {
	_, err := b.client(pdb.Namespace).UpdateStatus(ctx, pdb, metav1.UpdateOptions{})
	return err
}

// loopbackEndpointSlices are the EndpointSlices services/proxy picks an
// endpoint from, listed through the loopback client by the service name
// label the EndpointSlice controller sets.
type loopbackEndpointSlices struct {
	client client.Namespaced[*discoveryv1.EndpointSlice, *discoveryv1.EndpointSliceList]
}

var _ service.EndpointSlices = loopbackEndpointSlices{}

func (s loopbackEndpointSlices) EndpointSlices(ctx context.Context, namespace, name string) ([]*discoveryv1.EndpointSlice, error) {
	selector := labels.SelectorFromSet(labels.Set{discoveryv1.LabelServiceName: name}).String()
	list, err := s.client(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, err
	}
	out := make([]*discoveryv1.EndpointSlice, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	return out, nil
}

// loopbackNamespaces are the namespaces resource.k8s.io claims read the
// admin-access label from, through the loopback client.
type loopbackNamespaces struct {
	client client.Interface[*corev1.Namespace, *corev1.NamespaceList]
}

var _ adminaccess.Namespaces = loopbackNamespaces{}

func (n loopbackNamespaces) Get(ctx context.Context, name string) (*corev1.Namespace, error) {
	return n.client.Get(ctx, name, metav1.GetOptions{})
}

package podsecurity

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	corelisters "k8s.io/client-go/listers/core/v1"
)

// LiveNamespaces reads a namespace from the server (client-go's typed
// NamespaceInterface is one).
type LiveNamespaces interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.Namespace, error)
}

// NamespacesFrom reads namespaces from an informer's cache, and from the
// server those the cache does not have (yet), as kube-apiserver does.
func NamespacesFrom(cache corelisters.NamespaceLister, live LiveNamespaces) NamespaceGetter {
	return namespaces{cache, live}
}

type namespaces struct {
	cache corelisters.NamespaceLister
	live  LiveNamespaces
}

func (n namespaces) GetNamespace(ctx context.Context, name string) (*corev1.Namespace, error) {
	ns, err := n.cache.Get(name)
	if err == nil || !apierrors.IsNotFound(err) {
		return ns, err
	}
	return n.live.Get(ctx, name, metav1.GetOptions{})
}

// PodsFrom lists pods from an informer's cache.
func PodsFrom(cache corelisters.PodLister) PodLister { return pods{cache} }

type pods struct{ cache corelisters.PodLister }

func (p pods) ListPods(_ context.Context, namespace string) ([]*corev1.Pod, error) {
	return p.cache.Pods(namespace).List(labels.Everything())
}

// LiveFrom reads namespaces from the server.
func LiveFrom(live LiveNamespaces) NamespaceGetter { return liveNamespaces{live} }

type liveNamespaces struct{ live LiveNamespaces }

func (n liveNamespaces) GetNamespace(ctx context.Context, name string) (*corev1.Namespace, error) {
	return n.live.Get(ctx, name, metav1.GetOptions{})
}

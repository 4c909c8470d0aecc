// Package namespaces is how admission plugins read the namespace a write
// goes to: from the shared informer's cache, and from the server when the
// cache does not have it (yet), as kube-apiserver's plugins do. A
// namespace created a moment before the write may not have reached the
// informer; the live read keeps such writes from failing.
package namespaces

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Cache reads namespaces from an informer's cache (client-go's
// NamespaceLister is one).
type Cache interface {
	Get(name string) (*corev1.Namespace, error)
}

// Live reads a namespace from the server (client-go's typed
// NamespaceInterface is one).
type Live interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.Namespace, error)
}

// Getter reads a namespace from Cache, else from Live.
type Getter struct {
	Cache Cache
	// Live may be nil: then a namespace the cache lacks is not found.
	Live Live
}

// Get returns the namespace called name. A namespace neither the cache
// nor the server has is the NotFound error the client sees; any other
// failure is an internal error (500), as kube-apiserver's plugins answer
// it. The returned object may be the cache's, shared: never change it.
func (g Getter) Get(ctx context.Context, name string) (*corev1.Namespace, error) {
	ns, err := g.Cache.Get(name)
	if apierrors.IsNotFound(err) && g.Live != nil {
		ns, err = g.Live.Get(ctx, name, metav1.GetOptions{})
	}
	switch {
	case err == nil:
		return ns, nil
	case apierrors.IsNotFound(err):
		return nil, err
	}
	return nil, apierrors.NewInternalError(err)
}

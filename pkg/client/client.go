// Package client gives the server's own controllers, hooks and plugins
// typed clients and shared informers of its API, as client-go's clientset
// and informer factory give them to kube-apiserver's, built on client-go's
// generic typed client (k8s.io/client-go/gentype) and kapi's scheme.
//
// Why not client-go's clientset: it registers every group version of
// k8s.io/api, alphas and betas included, in a scheme of its own when the
// process starts, and links a typed client, an informer, a lister and the
// apply configurations of each of them. That was a tenth of kapi's
// binary and the most expensive package initialisation of its start-up
// (see BENCHMARKS.md). Here a client costs only the kinds it is asked
// for, and the kinds are those of kapi's scheme, which serves them.
//
// The typed clients have the methods of client-go's generated ones, so a
// package that takes one as a small interface can be tested with
// client-go's fake clientset.
package client

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/gentype"
	"k8s.io/client-go/rest"
)

// Object is what a typed client reads and writes: a kind with object
// metadata, as a pointer to its Go type.
type Object interface {
	runtime.Object
	metav1.Object
}

// Set makes the typed clients of one server, sharing one HTTP client (one
// connection pool) and one REST client per group version.
type Set struct {
	scheme     *runtime.Scheme
	config     rest.Config
	httpClient *http.Client
	serializer runtime.NegotiatedSerializer
	params     runtime.ParameterCodec

	mu   sync.Mutex
	byGV map[schema.GroupVersion]rest.Interface
}

// NewSet returns the clients of the server config reaches, for the kinds
// of scheme.
func NewSet(config *rest.Config, scheme *runtime.Scheme) (*Set, error) {
	cfg := *config
	httpClient, err := rest.HTTPClientFor(&cfg)
	if err != nil {
		return nil, err
	}
	return &Set{
		scheme:     scheme,
		config:     cfg,
		httpClient: httpClient,
		serializer: serializer.NewCodecFactory(scheme).WithoutConversion(),
		params:     runtime.NewParameterCodec(scheme),
		byGV:       map[schema.GroupVersion]rest.Interface{},
	}, nil
}

// For returns the typed client of resource, whose kind is T and list
// kind L, in namespace ("" for a cluster-scoped resource, or for all
// namespaces). It panics if T is not a kind of the set's scheme: that is
// a programming error, found by the first test that uses the client.
func For[T Object, L runtime.Object](s *Set, resource, namespace string) *gentype.ClientWithList[T, L] {
	gv := s.groupVersionOf(newObject[T]())
	// Every kind of kapi's scheme has a protobuf encoding, which costs
	// both ends less than JSON; client-go's clients of the built-in
	// kinds prefer it too.
	return gentype.NewClientWithList(resource, s.restFor(gv), s.params, namespace, newObject[T], newObject[L], gentype.PrefersProtobuf[T]())
}

// groupVersionOf returns the group version of obj's kind in the scheme.
func (s *Set) groupVersionOf(obj runtime.Object) schema.GroupVersion {
	gvks, _, err := s.scheme.ObjectKinds(obj)
	if err != nil || len(gvks) == 0 {
		panic(fmt.Sprintf("client: %T is not a kind of the scheme: %v", obj, err))
	}
	return gvks[0].GroupVersion()
}

// restFor returns the REST client of gv, made once.
func (s *Set) restFor(gv schema.GroupVersion) rest.Interface {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.byGV[gv]; ok {
		return c
	}
	cfg := s.config
	gvCopy := gv
	cfg.GroupVersion = &gvCopy
	cfg.APIPath = "/apis"
	if gv.Group == "" {
		cfg.APIPath = "/api"
	}
	cfg.NegotiatedSerializer = s.serializer
	c, err := rest.RESTClientForConfigAndClient(&cfg, s.httpClient)
	if err != nil {
		// Only a config without a serializer or group version fails,
		// and both were set above.
		panic(fmt.Sprintf("client: REST client of %s: %v", gv, err))
	}
	s.byGV[gv] = c
	return c
}

// newObject returns a new zero object of the pointer type T.
func newObject[T runtime.Object]() T {
	return reflect.New(reflect.TypeFor[T]().Elem()).Interface().(T)
}

// Interface is a typed client of one resource: the methods client-go's
// generated typed clients and For's clients share, so that a package
// can take either (client-go's fake clientset in its tests).
type Interface[T Object, L runtime.Object] interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
	List(ctx context.Context, opts metav1.ListOptions) (L, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
	Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error)
	Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
	Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (T, error)
}

// WithStatus is a typed client of a resource with a status subresource.
type WithStatus[T Object, L runtime.Object] interface {
	Interface[T, L]
	UpdateStatus(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
}

// Namespaced returns the typed client of a namespaced resource in a
// namespace.
type Namespaced[T Object, L runtime.Object] func(namespace string) Interface[T, L]

// NamespacedFor returns the typed clients of resource by namespace.
func NamespacedFor[T Object, L runtime.Object](s *Set, resource string) Namespaced[T, L] {
	return func(namespace string) Interface[T, L] { return For[T, L](s, resource, namespace) }
}

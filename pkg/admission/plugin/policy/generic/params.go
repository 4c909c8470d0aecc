package generic

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	v1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// Params reads the params of bindings: the objects of a policy's
// paramKind a binding's paramRef names. They are read from the server
// at each write (kube-apiserver reads an informer's cache, and the server
// for a name the cache lacks), so a param is in effect as soon as it is
// written.
type Params struct {
	Mapper meta.RESTMapper
	Client dynamic.Interface

	mu      sync.Mutex
	sources map[v1.ParamKind]sourceEntry
}

// sourceEntry is a paramKind resolved: a kind the server serves is
// remembered for a while, one it does not for a few seconds, so that a
// policy naming a kind not served yet does not read discovery at every
// write.
type sourceEntry struct {
	src *ParamSource
	err error
	at  time.Time
}

const (
	sourceTTL        = time.Minute
	missingSourceTTL = 5 * time.Second
)

const paramReadTimeout = time.Second

// ParamSource is where the params of a paramKind live.
type ParamSource struct {
	Kind       *v1.ParamKind
	Resource   schema.GroupVersionResource
	Namespaced bool
}

// Source resolves a policy's paramKind to its resource; nil if the
// policy has none. A kind the server does not serve is a configuration
// error of the policy.
func (p *Params) Source(kind *v1.ParamKind) (*ParamSource, error) {
	if kind == nil {
		return nil, nil
	}
	p.mu.Lock()
	e, ok := p.sources[*kind]
	p.mu.Unlock()
	if ok && (e.err == nil && time.Since(e.at) < sourceTTL || e.err != nil && time.Since(e.at) < missingSourceTTL) {
		return e.src, e.err
	}
	src, err := p.resolve(kind)
	p.mu.Lock()
	if p.sources == nil {
		p.sources = map[v1.ParamKind]sourceEntry{}
	}
	p.sources[*kind] = sourceEntry{src: src, err: err, at: time.Now()}
	p.mu.Unlock()
	return src, err
}

func (p *Params) resolve(kind *v1.ParamKind) (*ParamSource, error) {
	gv, err := schema.ParseGroupVersion(kind.APIVersion)
	if err != nil {
		return nil, fmt.Errorf("failed to parse paramKind APIVersion: %w", err)
	}
	gvk := gv.WithKind(kind.Kind)
	mapping, err := p.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		// A custom resource defined since discovery was last read.
		if r, ok := p.Mapper.(meta.ResettableRESTMapper); ok {
			r.Reset()
			mapping, err = p.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("failed to find resource referenced by paramKind: '%v'", gvk)
	}
	return &ParamSource{Kind: kind, Resource: mapping.Resource, Namespaced: mapping.Scope.Name() == meta.RESTScopeNameNamespace}, nil
}

// Collect returns the params to evaluate a policy with for a binding's
// ref, for a write in namespace: one nil param when the policy has no
// paramKind or the binding no paramRef; none when no param is found and
// the binding allows that; an error (a configuration error of the
// binding) when it does not, or the ref cannot be used for this write.
func (p *Params) Collect(ctx context.Context, src *ParamSource, ref *v1.ParamRef, namespace string) ([]runtime.Object, error) {
	if src == nil || ref == nil {
		return []runtime.Object{nil}, nil
	}
	client := dynamic.ResourceInterface(p.Client.Resource(src.Resource))
	if src.Namespaced {
		ns := namespace
		if ref.Namespace != "" {
			ns = ref.Namespace
		} else if ns == "" {
			return nil, fmt.Errorf("cannot use namespaced paramRef in policy binding that matches cluster-scoped resources")
		}
		client = p.Client.Resource(src.Resource).Namespace(ns)
	} else if ref.Namespace != "" {
		return nil, fmt.Errorf("paramRef.namespace must not be provided for a cluster-scoped `paramKind`")
	}
	// A param is read within a second, as kube-apiserver reads one its
	// cache lacks.
	ctx, cancel := context.WithTimeout(ctx, paramReadTimeout)
	defer cancel()
	var params []runtime.Object
	switch {
	case ref.Name != "":
		if ref.Selector != nil {
			return nil, fmt.Errorf("paramRef.name and paramRef.selector are mutually exclusive")
		}
		obj, err := client.Get(ctx, ref.Name, metav1.GetOptions{})
		switch {
		case err == nil:
			params = []runtime.Object{obj}
		case apierrors.IsNotFound(err):
		default:
			return nil, err
		}
	case ref.Selector != nil:
		sel, err := metav1.LabelSelectorAsSelector(ref.Selector)
		if err != nil {
			return nil, err
		}
		list, err := client.List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
		if err != nil {
			return nil, err
		}
		items := list.Items
		sort.Slice(items, func(i, j int) bool {
			if items[i].GetNamespace() != items[j].GetNamespace() {
				return items[i].GetNamespace() < items[j].GetNamespace()
			}
			return items[i].GetName() < items[j].GetName()
		})
		for i := range items {
			params = append(params, &items[i])
		}
	default:
		return nil, fmt.Errorf("one of name or selector must be provided")
	}
	if len(params) == 0 && ref.ParameterNotFoundAction != nil && *ref.ParameterNotFoundAction == v1.DenyAction {
		return nil, errors.New("no params found for policy binding with `Deny` parameterNotFoundAction")
	}
	return params, nil
}

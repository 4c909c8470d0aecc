package fieldmanager

import (
	"fmt"
	"log/slog"
	"sync"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	crdopenapi "github.com/kapi-dev/kapi/pkg/apiextensions/openapi"
	"github.com/kapi-dev/kapi/pkg/openapi"
)

// schemeConverters holds the type converter of each scheme: the Go types
// never change while the process runs.
var schemeConverters sync.Map // *runtime.Scheme -> *lazyTypeConverter

// SchemeTypeConverter returns the type converter of every kind of a
// scheme, made from the OpenAPI definitions of their Go types, with the
// list and map markers of k8s.io/api (containers merge by name, ports by
// port and protocol, ...). It is built once per scheme, when first used:
// a server that never writes does not pay for it at start-up. The scheme
// must be complete by then.
func SchemeTypeConverter(s *runtime.Scheme) managedfields.TypeConverter {
	if tc, ok := schemeConverters.Load(s); ok {
		return tc.(*lazyTypeConverter)
	}
	tc, _ := schemeConverters.LoadOrStore(s, newLazyTypeConverter(func() (managedfields.TypeConverter, error) {
		defs, err := openapi.Definitions(s, schemeObjects(s)...)
		if err != nil {
			return nil, err
		}
		return managedfields.NewTypeConverter(defs, false)
	}))
	return tc.(*lazyTypeConverter)
}

// schemeObjects returns an object of each external kind of a scheme.
func schemeObjects(s *runtime.Scheme) []runtime.Object {
	var objs []runtime.Object
	for gvk := range s.AllKnownTypes() {
		if gvk.Version == runtime.APIVersionInternal {
			continue
		}
		if obj, err := s.New(gvk); err == nil {
			objs = append(objs, obj)
		}
	}
	return objs
}

// CRDTypeConverter returns the type converter of the custom resources of a
// CustomResourceDefinition, in all its versions, made as kube-apiserver
// makes it: from the OpenAPI v3 definitions the CRD publishes (its
// structural schemas, with metadata referring to ObjectMeta), plus those of
// the API types they refer to and of autoscaling/v1 Scale, for the scale
// subresource. A CRD that keeps unknown fields keeps them in apply too.
// It is built when first used, so that serving a thousand CRDs costs
// nothing until their custom resources are written. The converter keeps
// crd, which must not be modified (an informer's objects never are).
func CRDTypeConverter(crd *apiextensionsv1.CustomResourceDefinition) managedfields.TypeConverter {
	return newLazyTypeConverter(func() (managedfields.TypeConverter, error) {
		static, err := crdStaticDefinitions()
		if err != nil {
			return nil, err
		}
		models := make(map[string]*spec.Schema, len(static)+len(crd.Spec.Versions))
		for name, s := range static {
			models[name] = s
		}
		for _, v := range crd.Spec.Versions {
			s, _, err := crdopenapi.ResourceSchema(crd, v.Name)
			if err != nil {
				return nil, err
			}
			gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}
			models[openapi.ModelName(gvk)] = s
		}
		tc, err := managedfields.NewTypeConverter(models, crd.Spec.PreserveUnknownFields)
		if err != nil {
			return nil, fmt.Errorf("CustomResourceDefinition %s: %w", crd.Name, err)
		}
		return tc, nil
	})
}

// crdStaticDefinitions are the definitions of API types custom resources
// refer to, the same for every CRD.
var crdStaticDefinitions = sync.OnceValues(func() (map[string]*spec.Schema, error) {
	s := runtime.NewScheme()
	if err := autoscalingv1.AddToScheme(s); err != nil {
		return nil, err
	}
	// Scale refers to ObjectMeta and everything it refers to.
	return openapi.Definitions(s, &autoscalingv1.Scale{})
})

// lazyTypeConverter builds a type converter when first used. One that
// cannot be built (a schema the converter does not understand) is
// replaced by the deduced converter, which treats every list and map as
// atomic: apply still works, with coarser ownership.
type lazyTypeConverter struct {
	once  sync.Once
	build func() (managedfields.TypeConverter, error)
	tc    managedfields.TypeConverter
}

func newLazyTypeConverter(build func() (managedfields.TypeConverter, error)) *lazyTypeConverter {
	return &lazyTypeConverter{build: build}
}

func (l *lazyTypeConverter) get() managedfields.TypeConverter {
	l.once.Do(func() {
		tc, err := l.build()
		if err != nil {
			slog.Default().Error("building the type converter of server-side apply; lists and maps will be atomic", "err", err)
			tc = managedfields.NewDeducedTypeConverter()
		}
		l.tc, l.build = tc, nil
	})
	return l.tc
}

func (l *lazyTypeConverter) ObjectToTyped(obj runtime.Object, opts ...typed.ValidationOptions) (*typed.TypedValue, error) {
	return l.get().ObjectToTyped(obj, opts...)
}

func (l *lazyTypeConverter) TypedToObject(v *typed.TypedValue) (runtime.Object, error) {
	return l.get().TypedToObject(v)
}

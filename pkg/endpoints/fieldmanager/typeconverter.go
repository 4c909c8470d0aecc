package fieldmanager

import (
	"fmt"
	"log/slog"
	"sync"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

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
// must be complete by then. A failure to build it, a bug in the scheme's
// OpenAPI definitions, is logged to the log of the first call for the
// scheme (nil discards it).
func SchemeTypeConverter(s *runtime.Scheme, log *slog.Logger) managedfields.TypeConverter {
	if tc, ok := schemeConverters.Load(s); ok {
		return tc.(*lazyTypeConverter)
	}
	tc, _ := schemeConverters.LoadOrStore(s, newLazyTypeConverter(log, func() (managedfields.TypeConverter, error) {
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

// DefinitionsTypeConverter returns the type converter of kinds described
// by OpenAPI v3 definitions rather than by Go types (the custom resources
// of a CustomResourceDefinition), made as kube-apiserver makes it: models
// returns the definition of each kind by model name (openapi.ModelName),
// and the definitions of the API types they may refer to (ObjectMeta and
// what it refers to, and autoscaling/v1 Scale for a scale subresource) are
// added. With preserveUnknownFields, fields the definitions do not list
// are kept in apply too. name says whose definitions they are, in errors.
// The converter is built when first used, so that serving a thousand CRDs
// costs nothing until their custom resources are written.
//
// The definitions come from the caller so that this package, on the
// request path of every server, does not depend on any one of them.
//
// Definitions the converter cannot take are logged to log (nil discards
// them).
func DefinitionsTypeConverter(name string, models func() (map[string]*spec.Schema, error), preserveUnknownFields bool, log *slog.Logger) managedfields.TypeConverter {
	return newLazyTypeConverter(log, func() (managedfields.TypeConverter, error) {
		static, err := staticDefinitions()
		if err != nil {
			return nil, err
		}
		kinds, err := models()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		all := make(map[string]*spec.Schema, len(static)+len(kinds))
		for n, s := range static {
			all[n] = s
		}
		for n, s := range kinds {
			all[n] = s
		}
		tc, err := managedfields.NewTypeConverter(all, preserveUnknownFields)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return tc, nil
	})
}

// staticDefinitions are the definitions of API types that kinds described
// by OpenAPI definitions refer to, the same for every one of them.
var staticDefinitions = sync.OnceValues(func() (map[string]*spec.Schema, error) {
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
	log   *slog.Logger
}

func newLazyTypeConverter(log *slog.Logger, build func() (managedfields.TypeConverter, error)) *lazyTypeConverter {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &lazyTypeConverter{build: build, log: log}
}

func (l *lazyTypeConverter) get() managedfields.TypeConverter {
	l.once.Do(func() {
		tc, err := l.build()
		if err != nil {
			l.log.Error("building the type converter of server-side apply; lists and maps will be atomic", "err", err)
			tc = managedfields.NewDeducedTypeConverter()
		}
		l.tc, l.build, l.log = tc, nil, nil
	})
	return l.tc
}

func (l *lazyTypeConverter) ObjectToTyped(obj runtime.Object, opts ...typed.ValidationOptions) (*typed.TypedValue, error) {
	return l.get().ObjectToTyped(obj, opts...)
}

func (l *lazyTypeConverter) TypedToObject(v *typed.TypedValue) (runtime.Object, error) {
	return l.get().TypedToObject(v)
}

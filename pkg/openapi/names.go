package openapi

import (
	"reflect"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// modelNamer is implemented by the API types (generated model_name files in
// k8s.io/api and k8s.io/apimachinery): it gives the definition name
// openapi-gen uses, e.g. "io.k8s.api.core.v1.Pod".
type modelNamer interface {
	OpenAPIModelName() string
}

// definitionName is the name of the definition of a named Go type.
func definitionName(t reflect.Type) string {
	if t.Implements(modelNamerType) {
		return reflect.Zero(t).Interface().(modelNamer).OpenAPIModelName()
	}
	return friendlyName(t.PkgPath() + "." + t.Name())
}

var modelNamerType = reflect.TypeFor[modelNamer]()

// friendlyName turns "k8s.io/api/core/v1.Pod" into "io.k8s.api.core.v1.Pod":
// the first path element, a domain, is reversed and slashes become dots.
// It is the rule kube-apiserver applies to types without a model name.
func friendlyName(goName string) string {
	parts := strings.Split(goName, "/")
	if strings.Contains(parts[0], ".") {
		domain := strings.Split(parts[0], ".")
		for i, j := 0, len(domain)-1; i < j; i, j = i+1, j-1 {
			domain[i], domain[j] = domain[j], domain[i]
		}
		parts[0] = strings.Join(domain, ".")
	}
	return strings.Join(parts, ".")
}

// kindIndex knows, for each Go type of a scheme, the kinds it is registered
// as. They become the x-kubernetes-group-version-kind extension of the
// type's definition.
type kindIndex map[reflect.Type][]schema.GroupVersionKind

func newKindIndex(s *runtime.Scheme) kindIndex {
	idx := kindIndex{}
	for gvk, t := range s.AllKnownTypes() {
		if gvk.Version == runtime.APIVersionInternal {
			continue
		}
		idx[t] = append(idx[t], gvk)
	}
	for _, gvks := range idx {
		sort.Slice(gvks, func(i, j int) bool {
			a, b := gvks[i], gvks[j]
			if a.Group != b.Group {
				return a.Group < b.Group
			}
			if a.Version != b.Version {
				return a.Version < b.Version
			}
			return a.Kind < b.Kind
		})
	}
	return idx
}

// gvkExtension is the value of x-kubernetes-group-version-kind for kinds.
func gvkExtension(gvks []schema.GroupVersionKind) []any {
	out := make([]any, 0, len(gvks))
	for _, gvk := range gvks {
		out = append(out, map[string]any{"group": gvk.Group, "version": gvk.Version, "kind": gvk.Kind})
	}
	return out
}

// localKinds narrows the kinds of a type to those of the document's group
// version and of the core group, as kube-apiserver does for its per group
// version v3 documents: types such as DeleteOptions are registered in every
// group version, and listing them all would make every document change when
// any group is added. A type with no kind left keeps all of its kinds (the
// autoscaling/v1 Scale of apps/v1 scale subresources).
func localKinds(gvks []schema.GroupVersionKind, gv schema.GroupVersion) []schema.GroupVersionKind {
	var local []schema.GroupVersionKind
	for _, gvk := range gvks {
		if gvk.GroupVersion() == gv || gvk.GroupVersion() == (schema.GroupVersion{Version: "v1"}) {
			local = append(local, gvk)
		}
	}
	if len(local) == 0 {
		return gvks
	}
	return local
}

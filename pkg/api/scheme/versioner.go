package scheme

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// KindVersioner converts an object to the same kind in another group
// version. The scheme's own GroupVersion versioner only converts within a
// group; a resource served by two groups over one storage
// (events.k8s.io/v1 and core/v1 Event) needs to cross groups.
type KindVersioner struct{ GroupVersion schema.GroupVersion }

var _ runtime.GroupVersioner = KindVersioner{}

func (v KindVersioner) KindForGroupVersionKinds(kinds []schema.GroupVersionKind) (schema.GroupVersionKind, bool) {
	if len(kinds) == 0 {
		return schema.GroupVersionKind{}, false
	}
	for _, k := range kinds {
		if k.GroupVersion() == v.GroupVersion {
			return k, true
		}
	}
	return v.GroupVersion.WithKind(kinds[0].Kind), true
}

func (v KindVersioner) Identifier() string { return "kind:" + v.GroupVersion.String() }

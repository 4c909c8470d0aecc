package handlers

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// kindVersioner converts an object to the same kind in another group
// version. The scheme's own GroupVersion versioner only converts within a
// group; a resource served by two groups over one storage
// (events.k8s.io/v1 and core/v1 Event) needs to cross groups.
type kindVersioner struct{ gv schema.GroupVersion }

var _ runtime.GroupVersioner = kindVersioner{}

func (v kindVersioner) KindForGroupVersionKinds(kinds []schema.GroupVersionKind) (schema.GroupVersionKind, bool) {
	if len(kinds) == 0 {
		return schema.GroupVersionKind{}, false
	}
	for _, k := range kinds {
		if k.GroupVersion() == v.gv {
			return k, true
		}
	}
	return v.gv.WithKind(kinds[0].Kind), true
}

func (v kindVersioner) Identifier() string { return "kind:" + v.gv.String() }

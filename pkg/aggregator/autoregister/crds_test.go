package autoregister

import (
	"slices"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
)

func crd(name, group string, served map[string]bool) *apiextensionsv1.CustomResourceDefinition {
	c := &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: apiextensionsv1.CustomResourceDefinitionSpec{Group: group}}
	for _, v := range []string{"v1", "v2", "v3"} {
		if s, ok := served[v]; ok {
			c.Spec.Versions = append(c.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{Name: v, Served: s})
		}
	}
	return c
}

// The CRDs' group versions are wanted while some CRD serves them, with
// kube-apiserver's priorities for CRDs; a version no CRD serves (any
// more) is not; a built-in group version is never taken.
func TestCRDGroupVersionsAreWantedWhileServed(t *testing.T) {
	c := New(newStore(), nil)
	crds := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	w := &crdWatch{c: c, crds: crds, builtIn: func(gv schema.GroupVersion) bool { return gv.Group == "apps" }}
	event := func(old, obj *apiextensionsv1.CustomResourceDefinition) {
		switch {
		case obj == nil:
			_ = crds.Delete(old)
			w.changed(old)
		case old == nil:
			_ = crds.Add(obj)
			w.changed(obj)
		default:
			_ = crds.Update(obj)
			w.changed(old, obj)
		}
	}
	check := func(want ...string) {
		t.Helper()
		if got := c.Wanted(Continuously); !slices.Equal(got, want) {
			t.Errorf("wanted %v, want %v", got, want)
		}
	}

	widgets := crd("widgets.example.com", "example.com", map[string]bool{"v1": true, "v2": false})
	event(nil, widgets)
	check("v1.example.com")
	if as := c.wanted["v1.example.com"]; as.Spec.GroupPriorityMinimum != 1000 || as.Spec.VersionPriority != 100 || as.Spec.Service != nil {
		t.Errorf("CRD APIService spec %+v", as.Spec)
	}
	gadgets := crd("gadgets.example.com", "example.com", map[string]bool{"v1": true, "v3": true})
	event(nil, gadgets)
	check("v1.example.com", "v3.example.com")
	event(nil, crd("deployments.apps", "apps", map[string]bool{"v1": true}))
	check("v1.example.com", "v3.example.com")

	// v1 stays while gadgets serves it; v3 goes with gadgets' version.
	event(widgets, crd("widgets.example.com", "example.com", map[string]bool{"v2": true}))
	check("v1.example.com", "v2.example.com", "v3.example.com")
	event(gadgets, crd("gadgets.example.com", "example.com", map[string]bool{"v1": true}))
	check("v1.example.com", "v2.example.com")
	event(gadgets, nil)
	check("v2.example.com")
}

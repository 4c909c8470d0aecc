package e2e

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// One admission chain serves built-in resources and custom resources
// alike, and NamespaceLifecycle's cache never lets a create through that
// the store would refuse: a namespace created a moment ago takes objects
// at once, one that does not exist takes none, and one deleted a moment
// ago (still Terminating, as nothing finalizes it) takes none either,
// whether or not the cache has seen the deletion yet.
func TestNamespaceLifecycleForBuiltinAndCustomResources(t *testing.T) {
	s := startKapi(t)
	ctx := context.Background()
	c := clientset(t, s.ClientConfig)
	createCRD(t, apiextensionsClient(t, s.ClientConfig), referenceCRD(t))
	crs := dynamicClient(t, s.ClientConfig).Resource(widgets)

	createBoth := func(ns string) (cmErr, crErr error) {
		_, cmErr = c.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}}, metav1.CreateOptions{})
		w := &unstructured.Unstructured{Object: map[string]interface{}{
			"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]interface{}{"name": "w"},
		}}
		_, crErr = crs.Namespace(ns).Create(ctx, w, metav1.CreateOptions{})
		return cmErr, crErr
	}

	for i := range 5 {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "fresh-"}}
		ns, err := c.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if cmErr, crErr := createBoth(ns.Name); cmErr != nil || crErr != nil {
			t.Fatalf("round %d: creates right after the namespace's: configmap %v, widget %v", i, cmErr, crErr)
		}
		if err := c.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		cmErr, crErr := createBoth(ns.Name)
		if !apierrors.IsForbidden(cmErr) || !apierrors.IsForbidden(crErr) {
			t.Fatalf("round %d: creates right after the namespace's deletion: configmap %v, widget %v; want Forbidden", i, cmErr, crErr)
		}
	}

	cmErr, crErr := createBoth("nowhere")
	for _, err := range []error{cmErr, crErr} {
		if !apierrors.IsNotFound(err) || err.Error() != `namespaces "nowhere" not found` {
			t.Errorf("create in a missing namespace: %v, want namespaces \"nowhere\" not found", err)
		}
	}
}

// Package storagetest has helpers for tests of storage.Interface
// implementations: ConfigMaps written and read through any of them, failing
// the test on error.
package storagetest

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kapi-dev/kapi/pkg/storage"
)

// ConfigMap returns a ConfigMap to create, with a UID made from its name.
func ConfigMap(ns, name string, lbls map[string]string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: lbls, UID: types.UID("uid-" + name)},
		Data:       data,
	}
}

// Key is the storage key of a ConfigMap, as the registry makes it.
func Key(ns, name string) string { return "/configmaps/" + ns + "/" + name }

// Create stores cm in s and returns it as stored.
func Create(t testing.TB, s storage.Interface, cm *corev1.ConfigMap) *corev1.ConfigMap {
	t.Helper()
	out := &corev1.ConfigMap{}
	if err := s.Create(context.Background(), Key(cm.Namespace, cm.Name), cm, out); err != nil {
		t.Fatalf("Create %s/%s: %v", cm.Namespace, cm.Name, err)
	}
	return out
}

// Update changes a ConfigMap of s with mutate, through GuaranteedUpdate,
// and returns it as stored.
func Update(t testing.TB, s storage.Interface, ns, name string, mutate func(*corev1.ConfigMap)) *corev1.ConfigMap {
	t.Helper()
	out := &corev1.ConfigMap{}
	err := s.GuaranteedUpdate(context.Background(), Key(ns, name), out, false, nil,
		func(cur runtime.Object, _ storage.ResponseMeta) (runtime.Object, error) {
			cm := cur.(*corev1.ConfigMap).DeepCopy()
			mutate(cm)
			return cm, nil
		})
	if err != nil {
		t.Fatalf("GuaranteedUpdate %s/%s: %v", ns, name, err)
	}
	return out
}

// Delete deletes a ConfigMap of s and returns its last state, at the
// revision of the deletion.
func Delete(t testing.TB, s storage.Interface, ns, name string) *corev1.ConfigMap {
	t.Helper()
	out := &corev1.ConfigMap{}
	if err := s.Delete(context.Background(), Key(ns, name), out, nil, nil); err != nil {
		t.Fatalf("Delete %s/%s: %v", ns, name, err)
	}
	return out
}

// CurrentRV returns the current revision of s.
func CurrentRV(t testing.TB, s storage.Interface) uint64 {
	t.Helper()
	rv, err := s.CurrentResourceVersion(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rv
}

// Package objectkind holds the one rule for the apiVersion and kind an
// object carries in memory between decoding and encoding.
//
// A typed object (a Go struct registered in the scheme) is known by its Go
// type; its TypeMeta is cleared once it is decoded, from a request body or
// from storage, and the encoder of a response sets it for the version the
// client addressed. Items of a list therefore go out without apiVersion and
// kind, as kube-apiserver sends them. An unstructured object (a custom
// resource) has no other record of its kind than its content: it keeps it.
package objectkind

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ClearTyped clears the apiVersion and kind of a typed object and leaves
// an unstructured one as it is.
func ClearTyped(obj runtime.Object) {
	if _, unstructured := obj.(runtime.Unstructured); unstructured {
		return
	}
	obj.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
}

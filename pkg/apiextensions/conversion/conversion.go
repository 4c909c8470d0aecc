// Package conversion converts custom resources between the versions of
// their CRD: by rewriting apiVersion (strategy None) or by asking the
// CRD's conversion webhook (strategy Webhook).
package conversion

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Converter converts custom resources of one CRD to another of its
// versions.
type Converter interface {
	// Convert returns objs in version to, in the same order. Objects
	// already in that version are returned as they are; the others are
	// new objects, objs is not modified.
	Convert(ctx context.Context, objs []*unstructured.Unstructured, to schema.GroupVersion) ([]*unstructured.Unstructured, error)
}

// None is the conversion of strategy None: the versions share one schema
// and only apiVersion changes.
type None struct{}

func (None) Convert(_ context.Context, objs []*unstructured.Unstructured, to schema.GroupVersion) ([]*unstructured.Unstructured, error) {
	out := make([]*unstructured.Unstructured, len(objs))
	apiVersion := to.String()
	for i, obj := range objs {
		if obj.GetAPIVersion() == apiVersion {
			out[i] = obj
			continue
		}
		c := obj.DeepCopy()
		c.SetAPIVersion(apiVersion)
		out[i] = c
	}
	return out, nil
}

package app

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
)

// discoveryResources finds the resource of a kind in the server's
// discovery, asked afresh each time (so that a CRD installed a moment
// ago counts), as kube-apiserver resolves the paramKind of admission
// policies.
type discoveryResources struct {
	discovery discovery.DiscoveryInterface
}

func (d discoveryResources) Resolve(gvk schema.GroupVersionKind) (schema.GroupVersionResource, error) {
	list, err := d.discovery.ServerResourcesForGroupVersion(gvk.GroupVersion().String())
	if err != nil {
		return schema.GroupVersionResource{}, err
	}
	for _, r := range list.APIResources {
		if r.Kind == gvk.Kind && !strings.Contains(r.Name, "/") {
			return gvk.GroupVersion().WithResource(r.Name), nil
		}
	}
	return schema.GroupVersionResource{}, fmt.Errorf("no resource serves %v", gvk)
}

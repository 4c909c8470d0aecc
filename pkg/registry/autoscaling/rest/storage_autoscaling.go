// Package rest declares the autoscaling API group.
package rest

import (
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"

	"github.com/kapi-dev/kapi/pkg/registry"
	"github.com/kapi-dev/kapi/pkg/registry/autoscaling/horizontalpodautoscaler"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
)

// StorageProvider declares the autoscaling group.
type StorageProvider struct{}

var _ registry.StorageProvider = StorageProvider{}

func (StorageProvider) GroupName() string { return autoscalingv1.GroupName }

func (StorageProvider) GroupPriority() int { return 17500 }

// NewRESTStorage builds the storage of autoscaling/v2 and autoscaling/v1:
// the same HorizontalPodAutoscalers, stored as v2.
func (StorageProvider) NewRESTStorage(opts generic.RESTOptions, served func(version string) bool) (registry.VersionedStorage, error) {
	var g registry.GroupStorage
	if served("v2") {
		g.Version("v2").Add(horizontalpodautoscaler.NewStorage(opts, autoscalingv2.SchemeGroupVersion))
	}
	if served("v1") {
		g.Version("v1").Add(horizontalpodautoscaler.NewStorage(opts, autoscalingv1.SchemeGroupVersion))
	}
	return g.Result()
}

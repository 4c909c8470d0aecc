package core

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// AddDefaults registers the defaulting functions of the core/v1 kinds, and
// of their lists, in scheme, so that scheme.Default applies them. Kinds
// without defaults (ServiceAccount, Event, Binding) need no registration.
func AddDefaults(scheme *runtime.Scheme) error {
	addDefaulter(scheme, SetDefaultsNamespace, func(l *v1.NamespaceList) []v1.Namespace { return l.Items })
	addDefaulter(scheme, SetDefaultsConfigMap, func(l *v1.ConfigMapList) []v1.ConfigMap { return l.Items })
	addDefaulter(scheme, SetDefaultsSecret, func(l *v1.SecretList) []v1.Secret { return l.Items })
	addDefaulter(scheme, SetDefaultsPod, func(l *v1.PodList) []v1.Pod { return l.Items })
	addDefaulter(scheme, SetDefaultsService, func(l *v1.ServiceList) []v1.Service { return l.Items })
	addDefaulter(scheme, SetDefaultsEndpoints, func(l *v1.EndpointsList) []v1.Endpoints { return l.Items })
	addDefaulter(scheme, SetDefaultsNode, func(l *v1.NodeList) []v1.Node { return l.Items })
	addDefaulter(scheme, SetDefaultsPersistentVolume, func(l *v1.PersistentVolumeList) []v1.PersistentVolume { return l.Items })
	addDefaulter(scheme, SetDefaultsPersistentVolumeClaim, func(l *v1.PersistentVolumeClaimList) []v1.PersistentVolumeClaim { return l.Items })
	addDefaulter(scheme, SetDefaultsResourceQuota, func(l *v1.ResourceQuotaList) []v1.ResourceQuota { return l.Items })
	addDefaulter(scheme, SetDefaultsLimitRange, func(l *v1.LimitRangeList) []v1.LimitRange { return l.Items })
	addDefaulter(scheme, SetDefaultsReplicationController, func(l *v1.ReplicationControllerList) []v1.ReplicationController { return l.Items })
	addDefaulter(scheme, SetDefaultsPodTemplate, func(l *v1.PodTemplateList) []v1.PodTemplate { return l.Items })
	return nil
}

// addDefaulter registers setDefaults for the kind T and, item by item, for
// its list type L.
func addDefaulter[T, L any, PT objectPointer[T], PL objectPointer[L]](scheme *runtime.Scheme, setDefaults func(*T), items func(*L) []T) {
	scheme.AddTypeDefaultingFunc(PT(new(T)), func(obj any) { setDefaults(obj.(*T)) })
	scheme.AddTypeDefaultingFunc(PL(new(L)), func(obj any) {
		list := items(obj.(*L))
		for i := range list {
			setDefaults(&list[i])
		}
	})
}

// objectPointer is satisfied by *T when *T is an API object.
type objectPointer[T any] interface {
	*T
	runtime.Object
}

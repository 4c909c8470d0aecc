package apps

import (
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// AddDefaults registers the defaulting functions of the apps/v1 kinds kapi
// serves, and of their lists, in scheme. ControllerRevisions have none.
func AddDefaults(scheme *runtime.Scheme) error {
	addDefaulter(scheme, SetDefaultsDeployment, func(l *appsv1.DeploymentList) []appsv1.Deployment { return l.Items })
	addDefaulter(scheme, SetDefaultsReplicaSet, func(l *appsv1.ReplicaSetList) []appsv1.ReplicaSet { return l.Items })
	addDefaulter(scheme, SetDefaultsStatefulSet, func(l *appsv1.StatefulSetList) []appsv1.StatefulSet { return l.Items })
	addDefaulter(scheme, SetDefaultsDaemonSet, func(l *appsv1.DaemonSetList) []appsv1.DaemonSet { return l.Items })
	return nil
}

// objectPointer is a pointer to an API object.
type objectPointer[T any] interface {
	*T
	runtime.Object
}

// addDefaulter registers setDefaults for a kind and for the items of its
// list.
func addDefaulter[T, L any, PT objectPointer[T], PL objectPointer[L]](scheme *runtime.Scheme, setDefaults func(PT), items func(PL) []T) {
	scheme.AddTypeDefaultingFunc(PT(new(T)), func(obj any) { setDefaults(obj.(PT)) })
	scheme.AddTypeDefaultingFunc(PL(new(L)), func(obj any) {
		list := items(obj.(PL))
		for i := range list {
			setDefaults(PT(&list[i]))
		}
	})
}

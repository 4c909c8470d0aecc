package apps

import (
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// AddDefaults registers the defaulting functions of the apps/v1 kinds kapi
// serves, and of their lists, in scheme.
func AddDefaults(scheme *runtime.Scheme) error {
	scheme.AddTypeDefaultingFunc(&appsv1.Deployment{}, func(obj any) { SetDefaultsDeployment(obj.(*appsv1.Deployment)) })
	scheme.AddTypeDefaultingFunc(&appsv1.DeploymentList{}, func(obj any) {
		list := obj.(*appsv1.DeploymentList)
		for i := range list.Items {
			SetDefaultsDeployment(&list.Items[i])
		}
	})
	return nil
}

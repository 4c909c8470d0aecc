package replicationcontroller

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/pkg/registry/generic"
)

// scalable is how replicationcontrollers/scale reads and writes a
// controller's replicas: its selector is a plain label map.
var scalable = generic.Scalable{
	GroupVersion: corev1.SchemeGroupVersion,
	Replicas: func(obj runtime.Object) (generic.Replicas, error) {
		rc := obj.(*corev1.ReplicationController)
		return generic.Replicas{
			Spec:     ptr.Deref(rc.Spec.Replicas, 0),
			Status:   rc.Status.Replicas,
			Selector: labels.SelectorFromSet(rc.Spec.Selector).String(),
		}, nil
	},
	SetReplicas: func(obj runtime.Object, replicas int32) {
		obj.(*corev1.ReplicationController).Spec.Replicas = &replicas
	},
}

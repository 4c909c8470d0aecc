package rest

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
)

// DefaultUpdatedObjectInfo is the UpdatedObjectInfo of a PUT: the new
// object is the one sent, whatever the current state.
func DefaultUpdatedObjectInfo(obj runtime.Object) UpdatedObjectInfo {
	return defaultUpdatedObjectInfo{obj: obj}
}

type defaultUpdatedObjectInfo struct{ obj runtime.Object }

func (i defaultUpdatedObjectInfo) UpdatedObject(context.Context, runtime.Object) (runtime.Object, error) {
	return i.obj.DeepCopyObject(), nil
}

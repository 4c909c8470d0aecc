package storage

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
)

// Check returns a ResourceVersionConflicts error, worded as kube-apiserver
// words it, if obj (the object currently stored at key) does not satisfy
// the preconditions. A nil *Preconditions is always satisfied.
func (p *Preconditions) Check(key string, obj runtime.Object) error {
	if p == nil {
		return nil
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return NewError(ErrCodeInvalidObj, key, 0,
			fmt.Sprintf("can't enforce preconditions on an object without metadata: %v", err))
	}
	if p.UID != nil && *p.UID != m.GetUID() {
		return NewError(ErrCodeResourceVersionConflicts, key, 0,
			fmt.Sprintf("Precondition failed: UID in precondition: %v, UID in object meta: %v", *p.UID, m.GetUID()))
	}
	if p.ResourceVersion != nil && *p.ResourceVersion != m.GetResourceVersion() {
		return NewError(ErrCodeResourceVersionConflicts, key, 0,
			fmt.Sprintf("Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v",
				*p.ResourceVersion, m.GetResourceVersion()))
	}
	return nil
}

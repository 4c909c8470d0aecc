package admission

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
)

// NewForbidden is the 403 Forbidden a plugin answers for a refused write,
// as kube-apiserver's admission builds it: it names the write's resource
// and object; on a create, whose name may not be chosen yet, the object's
// name, else its generateName. An err that is already Forbidden is
// returned as it is.
func NewForbidden(a *Attributes, err error) error {
	if apierrors.IsForbidden(err) {
		return err
	}
	name := a.Name
	if name == "" && a.Object != nil {
		obj, aerr := meta.Accessor(a.Object)
		if aerr != nil {
			return apierrors.NewInternalError(fmt.Errorf("%v; %v", err, aerr))
		}
		name = obj.GetName()
		if name == "" {
			name = obj.GetGenerateName()
		}
	}
	return apierrors.NewForbidden(a.Resource.GroupResource(), name, err)
}

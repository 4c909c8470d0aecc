package rest

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
)

// CheckNameMatches decides whether the object of an update, a patch or an
// apply names the object the URL addresses. kube-apiserver answers both
// failures with 400 BadRequest (never 422: the object itself may be valid,
// it is the request that is inconsistent). Names that are not valid path
// segments are refused earlier, when the storage key is made; names that
// are valid segments but invalid names are the resource's validation
// (422) on create.
func CheckNameMatches(obj runtime.Object, urlName string) error {
	m, err := meta.Accessor(obj)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	switch name := m.GetName(); {
	case name == "":
		return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s based on URL) was undeterminable: name must be provided", urlName))
	case name != urlName:
		return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", name, urlName))
	}
	return nil
}

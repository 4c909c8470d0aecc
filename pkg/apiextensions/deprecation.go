package apiextensions

import (
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/version"
)

// deprecationWarning is the Warning header kube-apiserver sends with every
// response for a deprecated version of a CRD (every verb, subresource and
// error of that version's resource), or "" for a version that is not
// deprecated. The CRD's deprecationWarning is used as it is; without one,
// the text names the version and, when there is one, the newest served,
// non-deprecated version that is newer (in Kubernetes version order) to
// use instead.
func deprecationWarning(crd *apiextensionsv1.CustomResourceDefinition, v apiextensionsv1.CustomResourceDefinitionVersion) string {
	if !v.Deprecated {
		return ""
	}
	if v.DeprecationWarning != nil {
		return *v.DeprecationWarning
	}
	kind := crd.Spec.Names.Kind
	msg := fmt.Sprintf("%s/%s %s is deprecated", crd.Spec.Group, v.Name, kind)
	newest := ""
	for _, other := range crd.Spec.Versions {
		if !other.Served || other.Deprecated || version.CompareKubeAwareVersionStrings(other.Name, v.Name) <= 0 {
			continue
		}
		if newest == "" || version.CompareKubeAwareVersionStrings(other.Name, newest) > 0 {
			newest = other.Name
		}
	}
	if newest == "" {
		return msg
	}
	return fmt.Sprintf("%s; use %s/%s %s", msg, crd.Spec.Group, newest, kind)
}

package apiextensions

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/utils/ptr"
)

// The expected texts are kube-apiserver 1.37.1's Warning headers for these
// CRDs (recorded from the oracle).
func TestDeprecationWarningIsKubeAPIServers(t *testing.T) {
	version := func(name string, served, deprecated bool, warning *string) apiextensionsv1.CustomResourceDefinitionVersion {
		return apiextensionsv1.CustomResourceDefinitionVersion{Name: name, Served: served, Deprecated: deprecated, DeprecationWarning: warning}
	}
	crd := func(kind string, versions ...apiextensionsv1.CustomResourceDefinitionVersion) *apiextensionsv1.CustomResourceDefinition {
		return &apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "semantics.example.com", Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: kind}, Versions: versions}}
	}
	gizmos := crd("Gizmo",
		version("v1", true, true, nil),
		version("v2", true, true, ptr.To("v2 gizmos go away; use v3")),
		version("v3", true, false, nil),
		version("v4", true, false, nil))
	doohickeys := crd("Doohickey",
		version("v1", true, false, nil),
		version("v1beta1", true, false, nil),
		version("v2alpha1", true, true, nil),
		version("v2", true, true, nil),
		version("v3", false, false, nil))
	tests := []struct {
		crd     *apiextensionsv1.CustomResourceDefinition
		version int
		want    string
	}{
		{gizmos, 0, "semantics.example.com/v1 Gizmo is deprecated; use semantics.example.com/v4 Gizmo"},
		{gizmos, 1, "v2 gizmos go away; use v3"},
		{gizmos, 2, ""},
		{gizmos, 3, ""},
		// v1 is newer than v2alpha1 (GA after alpha) but older than v2;
		// v3 is newer but not served.
		{doohickeys, 2, "semantics.example.com/v2alpha1 Doohickey is deprecated; use semantics.example.com/v1 Doohickey"},
		{doohickeys, 3, "semantics.example.com/v2 Doohickey is deprecated"},
	}
	for _, tt := range tests {
		v := tt.crd.Spec.Versions[tt.version]
		if got := deprecationWarning(tt.crd, v); got != tt.want {
			t.Errorf("%s %s: got %q, want %q", tt.crd.Spec.Names.Kind, v.Name, got, tt.want)
		}
	}
}

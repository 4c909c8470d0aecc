package wardle

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
)

var (
	// Scheme knows the group's types, in v1alpha1 and in the internal
	// version k8s.io/apiserver's handlers decode requests into. With a
	// single version the internal types are the versioned ones: there is
	// nothing to convert.
	Scheme = runtime.NewScheme()
	// Codecs encodes and decodes the group's types.
	Codecs = serializer.NewCodecFactory(Scheme)
)

func init() {
	Scheme.AddKnownTypes(SchemeGroupVersion, &Flunder{}, &FlunderList{})
	metav1.AddToGroupVersion(Scheme, SchemeGroupVersion)
	Scheme.AddKnownTypes(schema.GroupVersion{Group: GroupName, Version: runtime.APIVersionInternal}, &Flunder{}, &FlunderList{})

	// The generic server decodes options and writes Status and discovery
	// documents with the unversioned meta types.
	metav1.AddToGroupVersion(Scheme, schema.GroupVersion{Version: "v1"})
	unversioned := schema.GroupVersion{Group: "", Version: "v1"}
	Scheme.AddUnversionedTypes(unversioned, &metav1.Status{}, &metav1.APIVersions{},
		&metav1.APIGroupList{}, &metav1.APIGroup{}, &metav1.APIResourceList{})
}

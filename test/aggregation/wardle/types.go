package wardle

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the API group the server serves.
const GroupName = "wardle.example.com"

// SchemeGroupVersion is the one version of the group.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1alpha1"}

// Flunder is the one kind of the group: a namespaced object with a spec
// and no status.
type Flunder struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec FlunderSpec `json:"spec,omitempty"`
}

// FlunderSpec is what a user asks of a flunder.
type FlunderSpec struct {
	// Reference names another flunder in the same namespace.
	Reference string `json:"reference,omitempty"`
	// Color is a free-form color.
	Color string `json:"color,omitempty"`
}

// FlunderList is a list of flunders.
type FlunderList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Flunder `json:"items"`
}

// OpenAPIModelName is the name of Flunder's OpenAPI definition (openapi-gen
// generates these methods; they are written by hand here).
func (Flunder) OpenAPIModelName() string { return "com.example.wardle.v1alpha1.Flunder" }

// OpenAPIModelName is the name of FlunderSpec's OpenAPI definition.
func (FlunderSpec) OpenAPIModelName() string { return "com.example.wardle.v1alpha1.FlunderSpec" }

// OpenAPIModelName is the name of FlunderList's OpenAPI definition.
func (FlunderList) OpenAPIModelName() string { return "com.example.wardle.v1alpha1.FlunderList" }

// DeepCopyObject copies a Flunder (deepcopy-gen would generate it).
func (in *Flunder) DeepCopyObject() runtime.Object { return in.DeepCopy() }

// DeepCopy copies a Flunder.
func (in *Flunder) DeepCopy() *Flunder {
	if in == nil {
		return nil
	}
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// DeepCopyObject copies a FlunderList.
func (in *FlunderList) DeepCopyObject() runtime.Object {
	if in == nil {
		return nil
	}
	out := *in
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	out.Items = make([]Flunder, len(in.Items))
	for i := range in.Items {
		out.Items[i] = *in.Items[i].DeepCopy()
	}
	return &out
}

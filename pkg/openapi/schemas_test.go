package openapi

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// asJSON is v as JSON values, for comparisons.
func asJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// definitionOf builds the definition of the type of v in a dialect.
func definitionOf(t *testing.T, d dialect, v any) spec.Schema {
	t.Helper()
	typ := reflect.TypeOf(v)
	defs, err := newDefinitions(d).closure([]reflect.Type{typ})
	if err != nil {
		t.Fatal(err)
	}
	return *defs[definitionName(typ)].schema
}

func TestDefinitionNames(t *testing.T) {
	for _, tc := range []struct {
		typ  any
		want string
	}{
		{corev1.Pod{}, "io.k8s.api.core.v1.Pod"},
		{appsv1.Deployment{}, "io.k8s.api.apps.v1.Deployment"},
		{metav1.ObjectMeta{}, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"},
		{resource.Quantity{}, "io.k8s.apimachinery.pkg.api.resource.Quantity"},
		{intstr.IntOrString{}, "io.k8s.apimachinery.pkg.util.intstr.IntOrString"},
		{runtime.RawExtension{}, "io.k8s.apimachinery.pkg.runtime.RawExtension"},
	} {
		if got := definitionName(reflect.TypeOf(tc.typ)); got != tc.want {
			t.Errorf("%T: %q, want %q", tc.typ, got, tc.want)
		}
	}
	// Types without a model name are named after their package path, its
	// domain reversed.
	if got := friendlyName("example.com/widgets/v1.Widget"); got != "com.example.widgets.v1.Widget" {
		t.Errorf("friendlyName: %q", got)
	}
}

// A kind is an object whose properties are its json fields; the
// documentation is the type's SwaggerDoc; embedded TypeMeta adds apiVersion
// and kind.
func TestAKindIsAnObjectOfItsJSONFields(t *testing.T) {
	pod := definitionOf(t, v3, corev1.Pod{})
	if want := (corev1.Pod{}).SwaggerDoc()[""]; pod.Description != want {
		t.Errorf("description: %q", pod.Description)
	}
	if !reflect.DeepEqual(pod.Type, spec.StringOrArray{"object"}) {
		t.Errorf("type: %v", pod.Type)
	}
	var names []string
	for name := range pod.Properties {
		names = append(names, name)
	}
	if diff := cmp.Diff([]string{"apiVersion", "kind", "metadata", "spec", "status"}, names, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("properties (-want +got):\n%s", diff)
	}
	if got := pod.Properties["kind"].Description; !strings.HasPrefix(got, "Kind is a string value representing the REST resource") {
		t.Errorf("kind: %q", got)
	}
}

// In v3, a reference with a description or a default is wrapped in allOf,
// since v3 ignores the siblings of $ref; v2 keeps $ref with siblings and has
// no defaults (kube-apiserver removes them from v2).
func TestReferencesAndDefaults(t *testing.T) {
	v3Spec := definitionOf(t, v3, corev1.Pod{}).Properties["spec"]
	if v3Spec.Ref.String() != "" || v3Spec.AllOf[0].Ref.String() != "#/components/schemas/io.k8s.api.core.v1.PodSpec" {
		t.Errorf("v3 spec: %+v", v3Spec)
	}
	if !reflect.DeepEqual(v3Spec.Default, map[string]any{}) {
		t.Errorf("v3 spec default: %#v, want {}", v3Spec.Default)
	}
	// A field with neither (JSONSchemaProps.additionalItems) keeps $ref.
	additionalItems := definitionOf(t, v3, apiextensionsv1.JSONSchemaProps{}).Properties["additionalItems"]
	if additionalItems.Ref.String() != "#/components/schemas/io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool" || additionalItems.AllOf != nil {
		t.Errorf("v3 additionalItems: %+v", additionalItems)
	}
	v2Spec := definitionOf(t, v2, corev1.Pod{}).Properties["spec"]
	if v2Spec.Ref.String() != "#/definitions/io.k8s.api.core.v1.PodSpec" || v2Spec.Default != nil || v2Spec.Description == "" {
		t.Errorf("v2 spec: %+v", v2Spec)
	}

	port := definitionOf(t, v3, corev1.ContainerPort{})
	for field, want := range map[string]any{
		"containerPort": 0.0,   // required int32: its zero value
		"protocol":      "TCP", // +default="TCP"
		"hostPort":      nil,   // optional
	} {
		if got := port.Properties[field].Default; !reflect.DeepEqual(got, want) {
			t.Errorf("ContainerPort.%s default: %#v, want %#v", field, got, want)
		}
	}
}

// Fields without omitempty are required, unless marked +optional; fields
// marked +required are, with omitempty or not.
func TestRequiredFields(t *testing.T) {
	for _, tc := range []struct {
		typ  any
		want []string
	}{
		{corev1.PodSpec{}, []string{"containers"}},
		{corev1.ContainerPort{}, []string{"containerPort"}},
		{corev1.ContainerRestartRule{}, []string{"action"}}, // +required with omitempty
		{corev1.Binding{}, []string{"target"}},
	} {
		if got := definitionOf(t, v3, tc.typ).Required; !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%T: required %v, want %v", tc.typ, got, tc.want)
		}
	}
}

// Markers that only exist in comments become extensions.
func TestMarkers(t *testing.T) {
	containers := definitionOf(t, v3, corev1.PodSpec{}).Properties["containers"]
	wantExt := spec.Extensions{
		"x-kubernetes-list-type":       "map",
		"x-kubernetes-list-map-keys":   []any{"name"},
		"x-kubernetes-patch-strategy":  "merge",
		"x-kubernetes-patch-merge-key": "name",
	}
	if diff := cmp.Diff(wantExt, containers.Extensions); diff != "" {
		t.Errorf("PodSpec.containers (-want +got):\n%s", diff)
	}
	if got := definitionOf(t, v3, corev1.LocalObjectReference{}).Extensions["x-kubernetes-map-type"]; got != "atomic" {
		t.Errorf("LocalObjectReference map type: %v", got)
	}
	wantUnions := []any{map[string]any{
		"discriminator":            "type",
		"fields-to-discriminateBy": map[string]any{"localhostProfile": "LocalhostProfile"},
	}}
	if diff := cmp.Diff(wantUnions, definitionOf(t, v3, corev1.SeccompProfile{}).Extensions["x-kubernetes-unions"]); diff != "" {
		t.Errorf("SeccompProfile unions (-want +got):\n%s", diff)
	}
}

// A field of an enum type lists the values, and explains them in its
// description.
func TestEnums(t *testing.T) {
	dnsPolicy := definitionOf(t, v3, corev1.PodSpec{}).Properties["dnsPolicy"]
	if diff := cmp.Diff([]any{"ClusterFirst", "ClusterFirstWithHostNet", "Default", "None"}, dnsPolicy.Enum); diff != "" {
		t.Errorf("enum (-want +got):\n%s", diff)
	}
	want := corev1.PodSpec{}.SwaggerDoc()["dnsPolicy"] + "\n\nPossible enum values:\n" +
		" - `\"ClusterFirst\"` indicates that the pod should use cluster DNS first unless hostNetwork is true, if it is available, then fall back on the default (as determined by kubelet) DNS settings.\n" +
		" - `\"ClusterFirstWithHostNet\"` indicates that the pod should use cluster DNS first, if it is available, then fall back on the default (as determined by kubelet) DNS settings.\n" +
		" - `\"Default\"` indicates that the pod should use the default (as determined by kubelet) DNS settings.\n" +
		" - `\"None\"` indicates that the pod should use empty DNS settings. DNS parameters such as nameservers and search paths should be defined via DNSConfig."
	if dnsPolicy.Description != want {
		t.Errorf("description:\n%s\nwant:\n%s", dnsPolicy.Description, want)
	}

	// openapi-gen appends the values to the comment as a paragraph of its
	// own: a comment that ends with a blank line before its markers
	// (// Default is "*".\n//\n// +optional) leaves three newlines.
	scope := definitionOf(t, v3, admissionregistrationv1.Rule{}).Properties["scope"]
	want = admissionregistrationv1.Rule{}.SwaggerDoc()["scope"] + "\n\n\nPossible enum values:\n" +
		" - `\"*\"` means that all scopes are included.\n" +
		" - `\"Cluster\"` means that scope is limited to cluster-scoped objects. Namespace objects are cluster-scoped.\n" +
		" - `\"Namespaced\"` means that scope is limited to namespaced objects."
	if scope.Description != want {
		t.Errorf("description:\n%q\nwant:\n%q", scope.Description, want)
	}
}

// Types that are not objects on the wire are defined by their
// OpenAPISchemaType and OpenAPISchemaFormat methods; in v3, by their
// OpenAPIV3OneOfTypes.
func TestSpecialTypes(t *testing.T) {
	simple := func(typ, format string) spec.SchemaProps {
		return spec.SchemaProps{Type: spec.StringOrArray{typ}, Format: format}
	}
	oneOf := func(format string, types ...string) spec.SchemaProps {
		p := spec.SchemaProps{Format: format}
		for _, typ := range types {
			p.OneOf = append(p.OneOf, spec.Schema{SchemaProps: simple(typ, "")})
		}
		return p
	}
	for _, tc := range []struct {
		typ    any
		v2, v3 spec.SchemaProps
	}{
		{metav1.Time{}, simple("string", "date-time"), simple("string", "date-time")},
		{metav1.MicroTime{}, simple("string", "date-time"), simple("string", "date-time")},
		{metav1.Duration{}, simple("string", ""), simple("string", "")},
		{resource.Quantity{}, simple("string", ""), oneOf("", "string", "number")},
		{intstr.IntOrString{}, simple("string", "int-or-string"), oneOf("int-or-string", "integer", "string")},
		{runtime.RawExtension{}, simple("object", ""), simple("object", "")},
	} {
		for _, d := range []struct {
			dialect dialect
			want    spec.SchemaProps
		}{{v2, tc.v2}, {v3, tc.v3}} {
			got := definitionOf(t, d.dialect, tc.typ)
			if got.Description == "" {
				t.Errorf("%T has no description", tc.typ)
			}
			got.Description = ""
			if diff := cmp.Diff(asJSON(t, spec.Schema{SchemaProps: d.want}), asJSON(t, got)); diff != "" {
				t.Errorf("%T in dialect %d (-want +got):\n%s", tc.typ, d.dialect, diff)
			}
		}
	}

	// Maps are objects with additional properties; []byte is base64.
	secretData := definitionOf(t, v3, corev1.Secret{}).Properties["data"]
	if secretData.Type[0] != "object" || secretData.AdditionalProperties.Schema.Type[0] != "string" || secretData.AdditionalProperties.Schema.Format != "byte" {
		t.Errorf("Secret.data: %+v", secretData.SchemaProps)
	}
	labels := definitionOf(t, v3, metav1.ObjectMeta{}).Properties["labels"]
	if labels.Type[0] != "object" || labels.AdditionalProperties.Schema.Type[0] != "string" {
		t.Errorf("ObjectMeta.labels: %+v", labels.SchemaProps)
	}
}

// Kinds carry the kinds their type is registered as in the scheme; a v3
// document keeps those of its group version and of the core group, unless
// that leaves none.
func TestGroupVersionKindExtension(t *testing.T) {
	deleteOptions := []schema.GroupVersionKind{
		{Version: "v1", Kind: "DeleteOptions"},
		{Group: "apps", Version: "v1", Kind: "DeleteOptions"},
		{Group: "batch", Version: "v1", Kind: "DeleteOptions"},
	}
	if got := localKinds(deleteOptions, schema.GroupVersion{Group: "apps", Version: "v1"}); !reflect.DeepEqual(got, deleteOptions[:2]) {
		t.Errorf("DeleteOptions in apps/v1: %v", got)
	}
	scale := []schema.GroupVersionKind{{Group: "autoscaling", Version: "v1", Kind: "Scale"}}
	if got := localKinds(scale, schema.GroupVersion{Group: "apps", Version: "v1"}); !reflect.DeepEqual(got, scale) {
		t.Errorf("Scale in apps/v1: %v", got)
	}
}

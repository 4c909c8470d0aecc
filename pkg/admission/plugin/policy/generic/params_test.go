package generic

import (
	"context"
	"strings"
	"testing"

	v1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
)

func paramsFixture(t *testing.T) *Params {
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := rbacv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	cm := func(ns, name string, labels map[string]string) runtime.Object {
		return &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels}}
	}
	client := dynamicfake.NewSimpleDynamicClient(scheme,
		cm("prod", "limits", map[string]string{"tier": "gold"}),
		cm("prod", "more", map[string]string{"tier": "gold"}),
		cm("shared", "limits", nil),
		&rbacv1.ClusterRole{TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"}, ObjectMeta: metav1.ObjectMeta{Name: "admin"}},
	)
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, meta.RESTScopeNamespace)
	mapper.Add(schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole"}, meta.RESTScopeRoot)
	return &Params{Mapper: mapper, Client: client}
}

func TestCollectParams(t *testing.T) {
	configMaps := &v1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
	clusterRoles := &v1.ParamKind{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"}
	deny, allow := v1.DenyAction, v1.AllowAction
	cases := []struct {
		name      string
		kind      *v1.ParamKind
		ref       *v1.ParamRef
		namespace string
		want      []string // namespace/name of each param; "" for a nil param
		wantError string
	}{
		{name: "no paramKind", ref: &v1.ParamRef{Name: "limits"}, namespace: "prod", want: []string{""}},
		{name: "no paramRef", kind: configMaps, namespace: "prod", want: []string{""}},
		{name: "by name in the write's namespace", kind: configMaps, ref: &v1.ParamRef{Name: "limits", ParameterNotFoundAction: &deny}, namespace: "prod", want: []string{"prod/limits"}},
		{name: "by name in another namespace", kind: configMaps, ref: &v1.ParamRef{Name: "limits", Namespace: "shared", ParameterNotFoundAction: &deny}, namespace: "prod", want: []string{"shared/limits"}},
		{name: "missing, allowed", kind: configMaps, ref: &v1.ParamRef{Name: "nope", ParameterNotFoundAction: &allow}, namespace: "prod"},
		{name: "missing, denied", kind: configMaps, ref: &v1.ParamRef{Name: "nope", ParameterNotFoundAction: &deny}, namespace: "prod",
			wantError: "no params found for policy binding with `Deny` parameterNotFoundAction"},
		{name: "by selector", kind: configMaps, ref: &v1.ParamRef{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "gold"}}, ParameterNotFoundAction: &deny},
			namespace: "prod", want: []string{"prod/limits", "prod/more"}},
		{name: "selector matching nothing, denied", kind: configMaps, ref: &v1.ParamRef{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "gold"}}, ParameterNotFoundAction: &deny},
			namespace: "shared", wantError: "no params found for policy binding with `Deny` parameterNotFoundAction"},
		{name: "namespaced param for a cluster-scoped write", kind: configMaps, ref: &v1.ParamRef{Name: "limits", ParameterNotFoundAction: &deny},
			wantError: "cannot use namespaced paramRef in policy binding that matches cluster-scoped resources"},
		{name: "cluster-scoped param", kind: clusterRoles, ref: &v1.ParamRef{Name: "admin", ParameterNotFoundAction: &deny}, namespace: "prod", want: []string{"/admin"}},
		{name: "cluster-scoped param with a namespace", kind: clusterRoles, ref: &v1.ParamRef{Name: "admin", Namespace: "prod", ParameterNotFoundAction: &deny},
			wantError: "paramRef.namespace must not be provided for a cluster-scoped `paramKind`"},
	}
	p := paramsFixture(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src, err := p.Source(tc.kind)
			if err != nil {
				t.Fatal(err)
			}
			params, err := p.Collect(context.Background(), src, tc.ref, tc.namespace)
			if tc.wantError != "" {
				if err == nil || err.Error() != tc.wantError {
					t.Fatalf("got %v, want error %q", err, tc.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, o := range params {
				if o == nil {
					got = append(got, "")
					continue
				}
				m, _ := meta.Accessor(o)
				got = append(got, m.GetNamespace()+"/"+m.GetName())
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") || len(got) != len(tc.want) {
				t.Fatalf("got params %q, want %q", got, tc.want)
			}
		})
	}
}

func TestParamKindNotServed(t *testing.T) {
	_, err := paramsFixture(t).Source(&v1.ParamKind{APIVersion: "example.com/v1", Kind: "Limits"})
	want := "failed to find resource referenced by paramKind: 'example.com/v1, Kind=Limits'"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %q", err, want)
	}
}

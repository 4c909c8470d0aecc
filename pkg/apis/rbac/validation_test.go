package rbac

import (
	"encoding/json"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The causes kube-apiserver 1.37.1 (the oracle) answered to these objects,
// posted with dryRun=All as admin after its defaulting, in its order:
// hand-written validation first, then declarative.
func TestValidationMatchesKubeAPIServer(t *testing.T) {
	cases := []struct {
		kind string
		obj  string
		want []string
	}{
		{"Role", `{"metadata":{"name":"a/b","namespace":"h"},"rules":[{}]}`, []string{
			`metadata.name: Invalid value: "a/b": may not contain '/'`,
			`rules[0].apiGroups: Required value: resource rules must supply at least one api group`,
			`rules[0].resources: Required value: resource rules must supply at least one resource`,
			`rules[0].verbs: Required value`,
		}},
		{"Role", `{"metadata":{"name":"ok","namespace":"h"},"rules":[{"verbs":["get"],"nonResourceURLs":["/x"]},{"verbs":["get"],"resources":["a","b"],"resourceNames":["n"]}]}`, []string{
			`rules[0].nonResourceURLs: Invalid value: ["/x"]: namespaced rules cannot apply to non-resource URLs`,
			`rules[1].apiGroups: Required value: resource rules must supply at least one api group`,
		}},
		{"Role", `{"metadata":{"name":"ok","namespace":"h"},"rules":[{"verbs":[],"apiGroups":[""],"resources":["a","b"],"resourceNames":["n"]},{"apiGroups":[""],"resources":["pods"],"verbs":["get"]},{"verbs":null}]}`, []string{
			`rules[2].apiGroups: Required value: resource rules must supply at least one api group`,
			`rules[2].resources: Required value: resource rules must supply at least one resource`,
			`rules[0].verbs: Required value`,
			`rules[2].verbs: Required value`,
		}},
		{"ClusterRole", `{"metadata":{"name":"ok"},"rules":[{"verbs":["get"],"nonResourceURLs":["/x"],"apiGroups":[""]},{"verbs":["get"],"nonResourceURLs":["/x"],"resources":["pods"]}]}`, []string{
			`rules[0].nonResourceURLs: Invalid value: ["/x"]: rules cannot apply to both regular resources and non-resource URLs`,
			`rules[1].nonResourceURLs: Invalid value: ["/x"]: rules cannot apply to both regular resources and non-resource URLs`,
		}},
		{"ClusterRole", `{"metadata":{"name":"ok"},"rules":[{"verbs":["get"],"nonResourceURLs":["/x"],"resourceNames":["n"]},{"nonResourceURLs":["/x"]}]}`, []string{
			`rules[0].nonResourceURLs: Invalid value: ["/x"]: rules cannot apply to both regular resources and non-resource URLs`,
			`rules[1].verbs: Required value`,
		}},
		{"ClusterRole", `{"metadata":{"name":"ok"},"aggregationRule":{"clusterRoleSelectors":[]}}`, []string{
			`aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil`,
		}},
		{"ClusterRole", `{"metadata":{"name":"ok"},"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"a b":"c"}},{"matchExpressions":[{"key":"x","operator":"In"}]}]},"rules":[{"verbs":["get"],"apiGroups":[""],"resources":["pods"]}]}`, []string{
			`aggregationRule.clusterRoleSelectors[0].matchLabels: Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
			`aggregationRule.clusterRoleSelectors[0]: Invalid value: null: invalid label selector.`,
			"aggregationRule.clusterRoleSelectors[1].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
			`aggregationRule.clusterRoleSelectors[1]: Invalid value: null: invalid label selector.`,
		}},
		{"ClusterRole", `{"metadata":{"name":"ok"},"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"a":"b"}}]},"rules":[{"verbs":["get"],"apiGroups":[""],"resources":["pods"]}]}`, nil},
		{"RoleBinding", `{"metadata":{"name":"x","namespace":"h"},"roleRef":{"apiGroup":"foo","kind":"Deployment","name":""},"subjects":[{"kind":"User"},{"kind":"Group","name":"g","apiGroup":""},{"kind":"ServiceAccount","name":"Bad_Name","apiGroup":"rbac.authorization.k8s.io"},{"kind":"Robot","name":"r"}]}`, []string{
			`roleRef.apiGroup: Unsupported value: "foo": supported values: "rbac.authorization.k8s.io"`,
			`roleRef.kind: Unsupported value: "Deployment": supported values: "Role", "ClusterRole"`,
			`subjects[2].name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
			`subjects[2].apiGroup: Unsupported value: "rbac.authorization.k8s.io": supported values: ""`,
			`subjects[3].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"`,
			`subjects[0].name: Required value`,
			`roleRef.name: Required value`,
		}},
		{"RoleBinding", `{"metadata":{"name":"x","namespace":"h"},"roleRef":{"kind":"ClusterRole","name":"a/b"},"subjects":[{"kind":"ServiceAccount","name":"sa"}]}`, []string{
			`roleRef.name: Invalid value: "a/b": may not contain '/'`,
		}},
		{"RoleBinding", `{"metadata":{"name":"x","namespace":"h"},"roleRef":{"kind":"ClusterRole","name":"view"},"subjects":[{"kind":"ServiceAccount","name":""},{"kind":"ServiceAccount","name":"a","namespace":"other"}]}`, []string{
			`subjects[0].name: Required value`,
		}},
		{"RoleBinding", `{"metadata":{"name":"x","namespace":"h"}}`, []string{
			`roleRef.kind: Unsupported value: "": supported values: "Role", "ClusterRole"`,
			`roleRef.name: Required value`,
		}},
		{"ClusterRoleBinding", `{"metadata":{"name":"x"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"r"},"subjects":[{"kind":"ServiceAccount","name":"sa"}]}`, []string{
			`roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"`,
			`subjects[0].namespace: Required value`,
		}},
		{"ClusterRoleBinding", `{"metadata":{"name":"x"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"},"subjects":[{"kind":"User","name":"u","namespace":"ns"}, {"kind":"Group","name":"", "apiGroup":"rbac.authorization.k8s.io"}]}`, []string{
			`subjects[1].name: Required value`,
		}},
		{"ClusterRoleBinding", `{"metadata":{"name":"x"},"roleRef":{"kind":"ClusterRole","name":"view"},"subjects":[{"name":"k"}]}`, []string{
			`subjects[0].kind: Unsupported value: "": supported values: "ServiceAccount", "User", "Group"`,
		}},
	}
	for _, tc := range cases {
		var errs field.ErrorList
		switch tc.kind {
		case "Role":
			errs = ValidateRole(decode[rbacv1.Role](t, tc.obj, nil))
		case "ClusterRole":
			errs = ValidateClusterRole(decode[rbacv1.ClusterRole](t, tc.obj, nil))
		case "RoleBinding":
			errs = ValidateRoleBinding(decode(t, tc.obj, SetDefaultsRoleBinding))
		case "ClusterRoleBinding":
			errs = ValidateClusterRoleBinding(decode(t, tc.obj, SetDefaultsClusterRoleBinding))
		}
		var got []string
		for _, e := range errs {
			got = append(got, e.Error())
		}
		if !equalStrings(got, tc.want) {
			t.Errorf("%s %s:\n got %q\nwant %q", tc.kind, tc.obj, got, tc.want)
		}
	}
}

// The oracle's answer to changing a binding's roleRef (PUT of alice-binder,
// a RoleBinding to the Role binder, with roleRef ClusterRole view).
func TestRoleRefIsImmutable(t *testing.T) {
	old := decode(t, `{"metadata":{"name":"b","namespace":"h","resourceVersion":"1"},"roleRef":{"kind":"Role","name":"binder"},"subjects":[{"kind":"User","name":"alice"}]}`, SetDefaultsRoleBinding)
	updated := old.DeepCopy()
	updated.RoleRef = rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"}
	want := `roleRef: Invalid value: {"APIGroup":"rbac.authorization.k8s.io","Kind":"ClusterRole","Name":"view"}: field is immutable`
	errs := ValidateRoleBindingUpdate(updated, old)
	if len(errs) != 1 || errs[0].Error() != want {
		t.Errorf("got %v, want %s", errs, want)
	}
	if errs := ValidateRoleBindingUpdate(old.DeepCopy(), old); len(errs) != 0 {
		t.Errorf("an unchanged binding is invalid: %v", errs)
	}
}

// kubectl create rolebinding sends no API groups; kube-apiserver stores
// the rbac group for the roleRef, users and groups, and none for service
// accounts (the oracle's answer to such a create).
func TestBindingDefaults(t *testing.T) {
	rb := decode(t, `{"metadata":{"name":"x"},"roleRef":{"kind":"ClusterRole","name":"view"},"subjects":[{"kind":"ServiceAccount","name":"sa"},{"kind":"User","name":"u"},{"kind":"Group","name":"g"}]}`, SetDefaultsRoleBinding)
	got, _ := json.Marshal(map[string]any{"roleRef": rb.RoleRef, "subjects": rb.Subjects})
	want := `{"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"},"subjects":[{"kind":"ServiceAccount","name":"sa"},{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"u"},{"kind":"Group","apiGroup":"rbac.authorization.k8s.io","name":"g"}]}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func decode[T any](t *testing.T, s string, defaults func(*T)) *T {
	t.Helper()
	obj := new(T)
	if err := json.Unmarshal([]byte(s), obj); err != nil {
		t.Fatal(err)
	}
	if defaults != nil {
		defaults(obj)
	}
	return obj
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

package webhook

import (
	"context"
	"testing"

	v1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/admission"
)

type fakeNamespaces map[string]map[string]string

func (f fakeNamespaces) Get(name string) (*corev1.Namespace, error) {
	l, ok := f[name]
	if !ok {
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, name)
	}
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: l}}, nil
}

var (
	pods          = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	podKind       = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	namespacesGVR = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	hpaV1         = schema.GroupVersionResource{Group: "autoscaling", Version: "v1", Resource: "horizontalpodautoscalers"}
	hpaV2         = schema.GroupVersionResource{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers"}
	nodes         = schema.GroupVersionResource{Version: "v1", Resource: "nodes"}
	allScopes     = v1.AllScopes
	nsScope       = v1.NamespacedScope
	clusterOnly   = v1.ClusterScope
	equivalent    = v1.Equivalent
	exact         = v1.Exact
)

func rule(ops []v1.OperationType, groups, versions, resources []string, scope *v1.ScopeType) v1.RuleWithOperations {
	return v1.RuleWithOperations{Operations: ops, Rule: v1.Rule{APIGroups: groups, APIVersions: versions, Resources: resources, Scope: scope}}
}

func labeled(l map[string]string) runtime.Object {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Labels: l}}
}

// Which webhooks a write calls: the rules (operations, groups, versions,
// resources and subresources with their wildcards, scope), the
// namespaceSelector on the namespace's labels (the namespace's own for a
// namespace), the objectSelector on the new or the old object, and
// matchPolicy Equivalent, which calls a webhook registered for another
// version of the resource with that version's resource and kind.
func TestMatch(t *testing.T) {
	registry := admission.NewEquivalentResourceRegistry()
	registry.RegisterKindFor(hpaV1, "", schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "HorizontalPodAutoscaler"})
	registry.RegisterKindFor(hpaV2, "", schema.GroupVersionKind{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"})
	m := &Matcher{
		Namespaces:  fakeNamespaces{"prod": {"env": "prod"}, "dev": {"env": "dev"}},
		Equivalents: registry,
	}
	all := []v1.OperationType{v1.OperationAll}
	create := []v1.OperationType{v1.Create}
	podCreate := func() *admission.Attributes {
		return &admission.Attributes{Name: "p", Namespace: "prod", Resource: pods, Kind: podKind, Operation: admission.Create, Object: labeled(map[string]string{"app": "web"})}
	}
	cases := []struct {
		name string
		hook *Hook
		attr *admission.Attributes
		// want is the resource the webhook is called with; empty means
		// not called.
		want    schema.GroupVersionResource
		wantErr string
	}{
		{name: "exact rule", hook: &Hook{Rules: []v1.RuleWithOperations{rule(create, []string{""}, []string{"v1"}, []string{"pods"}, nil)}}, attr: podCreate(), want: pods},
		{name: "wildcards", hook: &Hook{Rules: []v1.RuleWithOperations{rule(all, []string{"*"}, []string{"*"}, []string{"*"}, &allScopes)}}, attr: podCreate(), want: pods},
		{name: "other operation", hook: &Hook{Rules: []v1.RuleWithOperations{rule([]v1.OperationType{v1.Update}, []string{"*"}, []string{"*"}, []string{"*"}, nil)}}, attr: podCreate()},
		{name: "other group", hook: &Hook{Rules: []v1.RuleWithOperations{rule(all, []string{"apps"}, []string{"*"}, []string{"*"}, nil)}}, attr: podCreate()},
		{name: "other version", hook: &Hook{Rules: []v1.RuleWithOperations{rule(all, []string{""}, []string{"v2"}, []string{"*"}, nil)}}, attr: podCreate()},
		{name: "star does not match subresources", hook: &Hook{Rules: []v1.RuleWithOperations{rule(all, []string{"*"}, []string{"*"}, []string{"*"}, nil)}},
			attr: func() *admission.Attributes { a := podCreate(); a.Subresource = "status"; return a }()},
		{name: "resource/subresource", hook: &Hook{Rules: []v1.RuleWithOperations{rule(all, []string{"*"}, []string{"*"}, []string{"pods/status"}, nil)}},
			attr: func() *admission.Attributes { a := podCreate(); a.Subresource = "status"; return a }(), want: pods},
		{name: "*/subresource", hook: &Hook{Rules: []v1.RuleWithOperations{rule(all, []string{"*"}, []string{"*"}, []string{"*/status"}, nil)}},
			attr: func() *admission.Attributes { a := podCreate(); a.Subresource = "status"; return a }(), want: pods},
		{name: "resource/* matches the resource too", hook: &Hook{Rules: []v1.RuleWithOperations{rule(all, []string{"*"}, []string{"*"}, []string{"pods/*"}, nil)}}, attr: podCreate(), want: pods},
		{name: "Namespaced scope, namespaced write", hook: &Hook{Rules: []v1.RuleWithOperations{rule(all, []string{"*"}, []string{"*"}, []string{"*"}, &nsScope)}}, attr: podCreate(), want: pods},
		{name: "Cluster scope, namespaced write", hook: &Hook{Rules: []v1.RuleWithOperations{rule(all, []string{"*"}, []string{"*"}, []string{"*"}, &clusterOnly)}}, attr: podCreate()},
		{name: "Cluster scope, namespace", hook: &Hook{Rules: []v1.RuleWithOperations{rule(all, []string{"*"}, []string{"*"}, []string{"*"}, &clusterOnly)}},
			attr: &admission.Attributes{Name: "dev", Namespace: "dev", Resource: namespacesGVR, Kind: schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, Operation: admission.Delete}, want: namespacesGVR},
		{name: "Namespaced scope, namespace", hook: &Hook{Rules: []v1.RuleWithOperations{rule(all, []string{"*"}, []string{"*"}, []string{"*"}, &nsScope)}},
			attr: &admission.Attributes{Name: "dev", Namespace: "dev", Resource: namespacesGVR, Kind: schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, Operation: admission.Delete}},
		{name: "namespaceSelector matches", hook: &Hook{Rules: []v1.RuleWithOperations{rule(all, []string{"*"}, []string{"*"}, []string{"*"}, nil)},
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}}, attr: podCreate(), want: pods},
		{name: "namespaceSelector does not match", hook: &Hook{Rules: []v1.RuleWithOperations{rule(all, []string{"*"}, []string{"*"}, []string{"*"}, nil)},
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "dev"}}}, attr: podCreate()},
		{name: "namespaceSelector of a cluster-scoped write", hook: &Hook{Rules: []v1.RuleWithOperations{rule(all, []string{"*"}, []string{"*"}, []string{"*"}, nil)},
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "dev"}}},
			attr: &admission.Attributes{Name: "n", Resource: nodes, Kind: schema.GroupVersionKind{Version: "v1", Kind: "Node"}, Operation: admission.Create, Object: labeled(nil)}, want: nodes},
		{name: "namespaceSelector on a namespace's own new labels", hook: &Hook{Rules: []v1.RuleWithOperations{rule(all, []string{"*"}, []string{"*"}, []string{"*"}, nil)},
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "new"}}},
			attr: &admission.Attributes{Name: "dev", Resource: namespacesGVR, Kind: schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, Operation: admission.Update,
				Object: &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "dev", Labels: map[string]string{"env": "new"}}}}, want: namespacesGVR},
		{name: "namespaceSelector, missing namespace", hook: &Hook{Rules: []v1.RuleWithOperations{rule(all, []string{"*"}, []string{"*"}, []string{"*"}, nil)},
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "dev"}}},
			attr: func() *admission.Attributes { a := podCreate(); a.Namespace = "gone"; return a }(), wantErr: `namespaces "gone" not found`},
		{name: "namespaceSelector, missing namespace, no rule matches", hook: &Hook{Rules: []v1.RuleWithOperations{rule(all, []string{"apps"}, []string{"*"}, []string{"*"}, nil)},
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "dev"}}},
			attr: func() *admission.Attributes { a := podCreate(); a.Namespace = "gone"; return a }()},
		{name: "objectSelector on the new object", hook: &Hook{Rules: []v1.RuleWithOperations{rule(all, []string{"*"}, []string{"*"}, []string{"*"}, nil)},
			ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}, attr: podCreate(), want: pods},
		{name: "objectSelector on the old object", hook: &Hook{Rules: []v1.RuleWithOperations{rule(all, []string{"*"}, []string{"*"}, []string{"*"}, nil)},
			ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "old"}}},
			attr: func() *admission.Attributes {
				a := podCreate()
				a.Operation, a.OldObject = admission.Update, labeled(map[string]string{"app": "old"})
				return a
			}(), want: pods},
		{name: "objectSelector matches neither", hook: &Hook{Rules: []v1.RuleWithOperations{rule(all, []string{"*"}, []string{"*"}, []string{"*"}, nil)},
			ObjectSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpDoesNotExist}}}}, attr: podCreate()},
		{name: "Equivalent: registered for v1, write through v2", hook: &Hook{MatchPolicy: &equivalent, Rules: []v1.RuleWithOperations{rule(all, []string{"autoscaling"}, []string{"v1"}, []string{"horizontalpodautoscalers"}, nil)}},
			attr: &admission.Attributes{Name: "h", Namespace: "prod", Resource: hpaV2, Kind: schema.GroupVersionKind{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"}, Operation: admission.Create, Object: labeled(nil)}, want: hpaV1},
		{name: "Exact: registered for v1, write through v2", hook: &Hook{MatchPolicy: &exact, Rules: []v1.RuleWithOperations{rule(all, []string{"autoscaling"}, []string{"v1"}, []string{"horizontalpodautoscalers"}, nil)}},
			attr: &admission.Attributes{Name: "h", Namespace: "prod", Resource: hpaV2, Kind: schema.GroupVersionKind{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"}, Operation: admission.Create, Object: labeled(nil)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := tc.hook
			inv, err := m.Match(context.Background(), h, tc.attr, tc.attr.Object, tc.attr.OldObject)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error %v, want %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got schema.GroupVersionResource
			if inv != nil {
				got = inv.Resource
				if inv.Kind.Empty() {
					t.Errorf("invocation without kind")
				}
			}
			if got != tc.want {
				t.Errorf("called with %v, want %v", got, tc.want)
			}
		})
	}
}

// The configurations and their webhooks are the webhooks to call in the
// order kube-apiserver calls them, and a configuration that did not
// change keeps its hooks (with their clients).
func TestSourceOrderAndReuse(t *testing.T) {
	configs := []*v1.ValidatingWebhookConfiguration{
		{ObjectMeta: metav1.ObjectMeta{Name: "b", ResourceVersion: "1"}, Webhooks: []v1.ValidatingWebhook{{Name: "b1.x"}, {Name: "b2.x"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "a", ResourceVersion: "1"}, Webhooks: []v1.ValidatingWebhook{{Name: "a1.x"}}},
	}
	src := NewSource(func() ([]*v1.ValidatingWebhookConfiguration, error) { return configs, nil }, ValidatingHooks, nil)
	first := src.Webhooks()
	var names []string
	for _, h := range first {
		names = append(names, h.UID)
	}
	if want := "[a/a1.x/0 b/b1.x/0 b/b2.x/1]"; fmtList(names) != want {
		t.Fatalf("webhooks %s, want %s", fmtList(names), want)
	}
	configs[0] = &v1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "b", ResourceVersion: "2"}, Webhooks: []v1.ValidatingWebhook{{Name: "b3.x"}}}
	second := src.Webhooks()
	if len(second) != 2 || second[0] != first[0] || second[1].Name != "b3.x" {
		t.Fatalf("after b changed: %v", second)
	}
}

func fmtList(s []string) string {
	out := "["
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out + "]"
}

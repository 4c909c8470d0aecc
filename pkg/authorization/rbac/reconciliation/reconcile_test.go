package reconciliation_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/kapi-dev/kapi/pkg/authorization/rbac/bootstrappolicy"
	"github.com/kapi-dev/kapi/pkg/authorization/rbac/reconciliation"
	"github.com/kapi-dev/kapi/pkg/client"
	"github.com/kapi-dev/kapi/pkg/controller/clusterroleaggregation"
)

// clientsOf is a Config whose clients are fake's.
func clientsOf(fake *fake.Clientset) reconciliation.Config {
	return reconciliation.Config{
		ClusterRoles:        fake.RbacV1().ClusterRoles(),
		ClusterRoleBindings: fake.RbacV1().ClusterRoleBindings(),
		Roles: func(ns string) client.Interface[*rbacv1.Role, *rbacv1.RoleList] {
			return fake.RbacV1().Roles(ns)
		},
		RoleBindings: func(ns string) client.Interface[*rbacv1.RoleBinding, *rbacv1.RoleBindingList] {
			return fake.RbacV1().RoleBindings(ns)
		},
		Namespaces: fake.CoreV1().Namespaces(),
	}
}

func ensure(t *testing.T, fake *fake.Clientset) {
	t.Helper()
	config := clientsOf(fake)
	config.Policy, config.Interval = bootstrappolicy.Default(), time.Millisecond
	err := reconciliation.Ensure(context.Background(), config)
	if err != nil {
		t.Fatal(err)
	}
}

// writes are the actions that changed something.
func writes(client *fake.Clientset) []string {
	var out []string
	for _, a := range client.Actions() {
		switch a.GetVerb() {
		case "get", "list", "watch":
			continue
		}
		name := ""
		switch a := a.(type) {
		case clienttesting.CreateAction:
			name = a.GetObject().(metav1.Object).GetName()
		case clienttesting.UpdateAction:
			name = a.GetObject().(metav1.Object).GetName()
		case clienttesting.DeleteAction:
			name = a.GetName()
		}
		out = append(out, a.GetVerb()+" "+a.GetResource().Resource+" "+a.GetNamespace()+"/"+name)
	}
	return out
}

// TestFreshClusterGetsKubeAPIServersPolicy: on an empty cluster, Ensure
// creates the 141 objects kube-apiserver 1.37.1 creates, equal to the
// recording (the aggregated roles once aggregated), and the namespaces
// of the namespaced ones.
func TestFreshClusterGetsKubeAPIServersPolicy(t *testing.T) {
	client := newClient()
	ensure(t, client)
	ctx := context.Background()

	var got []runtime.Object
	crs, err := client.RbacV1().ClusterRoles().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var all []*rbacv1.ClusterRole
	for i := range crs.Items {
		all = append(all, &crs.Items[i])
	}
	for _, r := range all {
		if r.AggregationRule != nil && len(r.Rules) != 0 {
			t.Errorf("clusterrole %s: created with rules %v; aggregated rules are the controller's", r.Name, r.Rules)
		}
	}
	// Aggregate until nothing changes: admin aggregates edit, which
	// aggregates view.
	for changed := true; changed; {
		changed = false
		for _, r := range all {
			if r.AggregationRule == nil {
				continue
			}
			rules, err := clusterroleaggregation.Aggregate(r, all)
			if err != nil {
				t.Fatal(err)
			}
			if !equality.Semantic.DeepEqual(rules, r.Rules) {
				r.Rules, changed = rules, true
			}
		}
	}
	for _, r := range all {
		got = append(got, r)
	}
	crbs, _ := client.RbacV1().ClusterRoleBindings().List(ctx, metav1.ListOptions{})
	for i := range crbs.Items {
		got = append(got, &crbs.Items[i])
	}
	rs, _ := client.RbacV1().Roles("").List(ctx, metav1.ListOptions{})
	for i := range rs.Items {
		got = append(got, &rs.Items[i])
	}
	rbs, _ := client.RbacV1().RoleBindings("").List(ctx, metav1.ListOptions{})
	for i := range rbs.Items {
		got = append(got, &rbs.Items[i])
	}

	want := loadRecorded(t)
	if len(got) != len(want) {
		t.Errorf("created %d objects, kube-apiserver %d", len(got), len(want))
	}
	for _, o := range got {
		key := keyOf(o)
		w, ok := want[key]
		if !ok {
			t.Errorf("created %s, which kube-apiserver does not", key)
			continue
		}
		if d := cmp.Diff(normalize(t, w), normalize(t, o)); d != "" {
			t.Errorf("%s differs from kube-apiserver's (-kube-apiserver +kapi):\n%s", key, d)
		}
	}
	for _, ns := range []string{"kube-system", "kube-public"} {
		if _, err := client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); err != nil {
			t.Errorf("namespace %s: %v", ns, err)
		}
	}
}

// TestSecondRunWritesNothing: reconciling a reconciled cluster is free.
func TestSecondRunWritesNothing(t *testing.T) {
	client := newClient()
	ensure(t, client)
	client.ClearActions()
	ensure(t, client)
	if w := writes(client); len(w) != 0 {
		t.Errorf("the second run wrote: %v", w)
	}
}

// TestMissingPiecesComeBackExtraOnesStay: an administrator removed a
// rule, a label and a subject, and added a rule, an annotation and a
// subject. With autoupdate "true", the reconciler restores what is
// missing (the rule as kube-apiserver does, one verb and resource at a
// time) and keeps what was added.
func TestMissingPiecesComeBackExtraOnesStay(t *testing.T) {
	client := newClient()
	ensure(t, client)
	ctx := context.Background()
	crs := client.RbacV1().ClusterRoles()

	role, _ := crs.Get(ctx, "system:basic-user", metav1.GetOptions{})
	policy := *role.DeepCopy()
	// system:basic-user: selfsubjectaccessreviews and selfsubjectrulesreviews.
	removed := role.Rules[0]
	extra := rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/extra"}}
	role.Rules = append(role.Rules[1:], extra)
	delete(role.Labels, bootstrappolicy.BootstrappingLabel)
	role.Annotations["example.com/mine"] = "yes"
	if _, err := crs.Update(ctx, role, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	crbs := client.RbacV1().ClusterRoleBindings()
	b, _ := crbs.Get(ctx, "system:public-info-viewer", metav1.GetOptions{})
	mine := rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "alice"}
	b.Subjects = []rbacv1.Subject{mine, b.Subjects[1]}
	if _, err := crbs.Update(ctx, b, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	ensure(t, client)

	got, _ := crs.Get(ctx, "system:basic-user", metav1.GetOptions{})
	var restored []rbacv1.PolicyRule
	for _, g := range removed.APIGroups {
		for _, r := range removed.Resources {
			for _, v := range removed.Verbs {
				restored = append(restored, rbacv1.PolicyRule{Verbs: []string{v}, APIGroups: []string{g}, Resources: []string{r}})
			}
		}
	}
	wantRules := append(append(append([]rbacv1.PolicyRule(nil), policy.Rules[1:]...), extra), restored...)
	if d := cmp.Diff(wantRules, got.Rules); d != "" {
		t.Errorf("rules (-want +got):\n%s", d)
	}
	if got.Labels[bootstrappolicy.BootstrappingLabel] != "rbac-defaults" || got.Annotations["example.com/mine"] != "yes" {
		t.Errorf("labels %v, annotations %v: want the label back and the administrator's annotation kept", got.Labels, got.Annotations)
	}

	gotB, _ := crbs.Get(ctx, "system:public-info-viewer", metav1.GetOptions{})
	wantSubjects := []rbacv1.Subject{mine, policy2Subject(t, "system:public-info-viewer", 1), policy2Subject(t, "system:public-info-viewer", 0)}
	if d := cmp.Diff(wantSubjects, gotB.Subjects); d != "" {
		t.Errorf("subjects (-want +got):\n%s", d)
	}
}

func policy2Subject(t *testing.T, binding string, i int) rbacv1.Subject {
	t.Helper()
	for _, b := range bootstrappolicy.Default().ClusterRoleBindings {
		if b.Name == binding {
			return b.Subjects[i]
		}
	}
	t.Fatalf("no binding %s in the policy", binding)
	return rbacv1.Subject{}
}

// TestAutoupdateFalseIsLeftAlone: the administrator's opt-out holds for
// roles and bindings, even one whose roleRef no longer matches.
func TestAutoupdateFalseIsLeftAlone(t *testing.T) {
	client := newClient()
	ensure(t, client)
	ctx := context.Background()

	role, _ := client.RbacV1().ClusterRoles().Get(ctx, "view", metav1.GetOptions{})
	role.Annotations[bootstrappolicy.AutoUpdateAnnotation] = "false"
	role.AggregationRule = nil
	role.Labels = nil
	if _, err := client.RbacV1().ClusterRoles().Update(ctx, role, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	nsRole, _ := client.RbacV1().Roles("kube-system").Get(ctx, "extension-apiserver-authentication-reader", metav1.GetOptions{})
	nsRole.Annotations[bootstrappolicy.AutoUpdateAnnotation] = "false"
	nsRole.Rules = nil
	if _, err := client.RbacV1().Roles("kube-system").Update(ctx, nsRole, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	crbs := client.RbacV1().ClusterRoleBindings()
	if err := crbs.Delete(ctx, "cluster-admin", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := crbs.Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "cluster-admin", Annotations: map[string]string{bootstrappolicy.AutoUpdateAnnotation: "false"}},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	client.ClearActions()
	ensure(t, client)
	if w := writes(client); len(w) != 0 {
		t.Errorf("protected objects were written: %v", w)
	}
}

// TestRoleRefChangeRecreatesTheBinding: a roleRef cannot be updated, so
// a binding that points elsewhere is deleted and created as the policy
// says.
func TestRoleRefChangeRecreatesTheBinding(t *testing.T) {
	client := newClient()
	ensure(t, client)
	ctx := context.Background()
	rbs := client.RbacV1().RoleBindings("kube-system")
	b, _ := rbs.Get(ctx, "system:controller:token-cleaner", metav1.GetOptions{})
	want := *b.DeepCopy()
	if err := rbs.Delete(ctx, b.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	b.ResourceVersion = ""
	b.RoleRef.Name = "system:controller:cloud-provider"
	if _, err := rbs.Create(ctx, b, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	client.ClearActions()
	ensure(t, client)
	if d := cmp.Diff([]string{
		"delete rolebindings kube-system/system:controller:token-cleaner",
		"create rolebindings kube-system/system:controller:token-cleaner",
	}, writes(client)); d != "" {
		t.Errorf("writes (-want +got):\n%s", d)
	}
	got, _ := rbs.Get(ctx, b.Name, metav1.GetOptions{})
	if got.RoleRef != want.RoleRef || !equality.Semantic.DeepEqual(got.Subjects, want.Subjects) {
		t.Errorf("recreated as %v %v, want %v %v", got.RoleRef, got.Subjects, want.RoleRef, want.Subjects)
	}
}

// TestAggregatedRoles: the rules the aggregation controller wrote into
// admin are not the reconciler's to judge; a selector an administrator
// added stays, a missing one comes back; an aggregationRule added to a
// role the policy does not aggregate is removed.
func TestAggregatedRoles(t *testing.T) {
	client := newClient()
	ensure(t, client)
	ctx := context.Background()
	crs := client.RbacV1().ClusterRoles()

	admin, _ := crs.Get(ctx, "admin", metav1.GetOptions{})
	aggregatedRules := []rbacv1.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}}
	mine := metav1.LabelSelector{MatchLabels: map[string]string{"example.com/aggregate-to-admin": "true"}}
	admin.Rules = aggregatedRules
	admin.AggregationRule.ClusterRoleSelectors = []metav1.LabelSelector{mine}
	if _, err := crs.Update(ctx, admin, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	basic, _ := crs.Get(ctx, "system:basic-user", metav1.GetOptions{})
	basic.AggregationRule = &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{mine}}
	if _, err := crs.Update(ctx, basic, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	ensure(t, client)

	admin, _ = crs.Get(ctx, "admin", metav1.GetOptions{})
	if d := cmp.Diff(aggregatedRules, admin.Rules); d != "" {
		t.Errorf("admin's rules (-want +got):\n%s", d)
	}
	wantSelectors := []metav1.LabelSelector{mine, {MatchLabels: map[string]string{"rbac.authorization.k8s.io/aggregate-to-admin": "true"}}}
	if d := cmp.Diff(wantSelectors, admin.AggregationRule.ClusterRoleSelectors); d != "" {
		t.Errorf("admin's selectors (-want +got):\n%s", d)
	}
	basic, _ = crs.Get(ctx, "system:basic-user", metav1.GetOptions{})
	if basic.AggregationRule != nil {
		t.Errorf("system:basic-user keeps the aggregationRule %v", basic.AggregationRule)
	}
}

// TestCustomisedLegacyRolesAreMigrated: a cluster whose edit still
// carries its own (customised) rules, from before edit was aggregated,
// gets them copied to system:aggregate-to-edit, so edit aggregates them
// back once it becomes aggregated.
func TestCustomisedLegacyRolesAreMigrated(t *testing.T) {
	custom := rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{"example.com"}, Resources: []string{"widgets"}}
	client := newClient(&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "edit"}, Rules: []rbacv1.PolicyRule{custom}})
	ensure(t, client)
	ctx := context.Background()
	migrated, err := client.RbacV1().ClusterRoles().Get(ctx, "system:aggregate-to-edit", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(migrated.Rules) == 0 || !equality.Semantic.DeepEqual(migrated.Rules[0], custom) {
		t.Errorf("system:aggregate-to-edit rules start with %v, want the customised rule first", migrated.Rules)
	}
	if migrated.Labels[bootstrappolicy.AggregateToLabelPrefix+"edit"] != "true" {
		t.Errorf("system:aggregate-to-edit labels %v", migrated.Labels)
	}
	edit, _ := client.RbacV1().ClusterRoles().Get(ctx, "edit", metav1.GetOptions{})
	if edit.AggregationRule == nil {
		t.Error("edit did not become aggregated")
	}
}

// TestWaitsForTheAPI: the hook starts when the server serves, possibly
// before storage answers; it retries until the API does, and gives up
// with kube-apiserver's error when it never does.
func TestWaitsForTheAPI(t *testing.T) {
	client := newClient()
	failures := 3
	client.PrependReactor("list", "clusterroles", func(clienttesting.Action) (bool, runtime.Object, error) {
		if failures > 0 {
			failures--
			return true, nil, apierrors.NewServiceUnavailable("etcd is not ready")
		}
		return false, nil, nil
	})
	ensure(t, client)
	if failures != 0 {
		t.Fatalf("%d failures left", failures)
	}
	if _, err := client.RbacV1().ClusterRoles().Get(context.Background(), "cluster-admin", metav1.GetOptions{}); err != nil {
		t.Error(err)
	}

	never := newClient()
	never.PrependReactor("list", "clusterrolebindings", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewServiceUnavailable("etcd is not ready")
	})
	config := clientsOf(never)
	config.Policy, config.Interval, config.Timeout = bootstrappolicy.Default(), time.Millisecond, 20*time.Millisecond
	err := reconciliation.Ensure(context.Background(), config)
	if err == nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Ensure against an API that never answers: %v, want a deadline error", err)
	}
	if w := writes(never); len(w) != 0 {
		t.Errorf("wrote before the API answered: %v", w)
	}
}

// TestOneFailureDoesNotStopTheRest: an object the API refuses is
// skipped, the others are created.
func TestOneFailureDoesNotStopTheRest(t *testing.T) {
	client := newClient()
	client.PrependReactor("create", "clusterroles", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if a.(clienttesting.CreateAction).GetObject().(metav1.Object).GetName() == "cluster-admin" {
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: rbacv1.GroupName, Resource: "clusterroles"}, "cluster-admin", errors.New("no"))
		}
		return false, nil, nil
	})
	ensure(t, client)
	list, _ := client.RbacV1().ClusterRoles().List(context.Background(), metav1.ListOptions{})
	if n := len(bootstrappolicy.Default().ClusterRoles) - 1; len(list.Items) != n {
		t.Errorf("%d clusterroles, want %d", len(list.Items), n)
	}
}

// loadRecorded reads kube-apiserver 1.37.1's policy
// (../testdata/README.md), by kind/namespace/name.
func loadRecorded(t *testing.T) map[string]runtime.Object {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "kube-apiserver-policy.json"))
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatal(err)
	}
	out := map[string]runtime.Object{}
	for _, raw := range list.Items {
		var kind struct{ Kind string }
		if err := json.Unmarshal(raw, &kind); err != nil {
			t.Fatal(err)
		}
		var o runtime.Object
		switch kind.Kind {
		case "ClusterRole":
			o = &rbacv1.ClusterRole{}
		case "ClusterRoleBinding":
			o = &rbacv1.ClusterRoleBinding{}
		case "Role":
			o = &rbacv1.Role{}
		case "RoleBinding":
			o = &rbacv1.RoleBinding{}
		default:
			t.Fatalf("unexpected kind %q", kind.Kind)
		}
		if err := json.Unmarshal(raw, o); err != nil {
			t.Fatal(err)
		}
		out[keyOf(o)] = o
	}
	return out
}

func keyOf(o runtime.Object) string {
	m := o.(metav1.Object)
	kind := ""
	switch o.(type) {
	case *rbacv1.ClusterRole:
		kind = "ClusterRole"
	case *rbacv1.ClusterRoleBinding:
		kind = "ClusterRoleBinding"
	case *rbacv1.Role:
		kind = "Role"
	case *rbacv1.RoleBinding:
		kind = "RoleBinding"
	}
	return kind + " " + m.GetNamespace() + "/" + m.GetName()
}

// normalize keeps what the policy defines: name, namespace, labels,
// annotations and the kind's own fields, without type meta or what the
// server fills in.
func normalize(t *testing.T, o runtime.Object) map[string]any {
	t.Helper()
	data, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "apiVersion")
	delete(m, "kind")
	meta := m["metadata"].(map[string]any)
	m["metadata"] = map[string]any{"name": meta["name"], "namespace": meta["namespace"], "labels": meta["labels"], "annotations": meta["annotations"]}
	return m
}

// newClient is a fake API holding objs. The reconciler never applies, so
// the plain object tracker does; the field-managed one (NewClientset)
// costs seconds for the policy's 141 objects.
func newClient(objs ...runtime.Object) *fake.Clientset {
	return fake.NewSimpleClientset(objs...) //nolint:staticcheck // see above
}

// TestUnavailableOrConflictingWritesAreRetried: a write refused because
// the server is briefly unavailable, or because someone wrote first, is
// tried again.
func TestUnavailableOrConflictingWritesAreRetried(t *testing.T) {
	client := newClient()
	refusals := map[string]error{
		"cluster-admin": apierrors.NewServiceUnavailable("storage version update"),
		"view":          apierrors.NewConflict(schema.GroupResource{Group: rbacv1.GroupName, Resource: "clusterroles"}, "view", errors.New("changed")),
	}
	client.PrependReactor("create", "clusterroles", func(a clienttesting.Action) (bool, runtime.Object, error) {
		name := a.(clienttesting.CreateAction).GetObject().(metav1.Object).GetName()
		if err, ok := refusals[name]; ok {
			delete(refusals, name)
			return true, nil, err
		}
		return false, nil, nil
	})
	ensure(t, client)
	for _, name := range []string{"cluster-admin", "view"} {
		if _, err := client.RbacV1().ClusterRoles().Get(context.Background(), name, metav1.GetOptions{}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// reads are the RBAC objects read one by one.
func reads(client *fake.Clientset) []string {
	var out []string
	for _, a := range client.Actions() {
		if a.GetVerb() == "get" && a.GetResource().Group == rbacv1.GroupName {
			out = append(out, a.GetResource().Resource+" "+a.GetNamespace()+"/"+a.(clienttesting.GetAction).GetName())
		}
	}
	return out
}

// TestTheListsAreTheFirstRead: the reconciler reads each kind once, as a
// list, and no object one by one: on a fresh cluster the policy costs
// its creates alone, and on a restart with the policy in place, four
// lists.
func TestTheListsAreTheFirstRead(t *testing.T) {
	client := newClient()
	ensure(t, client)
	if r := reads(client); len(r) != 0 {
		t.Errorf("a fresh cluster's objects were read one by one: %v", r)
	}
	client.ClearActions()
	ensure(t, client)
	for _, a := range client.Actions() {
		if a.GetVerb() != "list" {
			t.Errorf("a restart did more than list: %s %s", a.GetVerb(), a.GetResource().Resource)
		}
	}
}

// TestWhatChangedSinceTheListIsReadAgain: a write made from the list's
// copy of an object that has changed since (it was created meanwhile, or
// updated) fails, and the object is read again from the server and
// reconciled from that.
func TestWhatChangedSinceTheListIsReadAgain(t *testing.T) {
	client := newClient()
	ensure(t, client)
	ctx := context.Background()
	crs := client.RbacV1().ClusterRoles()

	// "edit" lost its aggregation selector; the list will not show "view".
	edit, err := crs.Get(ctx, "edit", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	edit.AggregationRule.ClusterRoleSelectors = nil
	if _, err := crs.Update(ctx, edit, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	client.PrependReactor("list", "clusterroles", func(a clienttesting.Action) (bool, runtime.Object, error) {
		list, err := client.Tracker().List(a.GetResource(), rbacv1.SchemeGroupVersion.WithKind("ClusterRole"), "")
		if err != nil {
			return true, nil, err
		}
		items := list.(*rbacv1.ClusterRoleList)
		kept := items.Items[:0]
		for _, cr := range items.Items {
			if cr.Name != "view" {
				kept = append(kept, cr)
			}
		}
		items.Items = kept
		return true, items, nil
	})
	// Someone else writes "edit" between the list and our update, once.
	conflicted := false
	client.PrependReactor("update", "clusterroles", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if a.(clienttesting.UpdateAction).GetObject().(metav1.Object).GetName() != "edit" || conflicted {
			return false, nil, nil
		}
		conflicted = true
		return true, nil, apierrors.NewConflict(schema.GroupResource{Group: rbacv1.GroupName, Resource: "clusterroles"}, "edit", errors.New("changed"))
	})
	client.ClearActions()
	ensure(t, client)

	if !conflicted {
		t.Fatal("edit was not updated")
	}
	edit, err = crs.Get(ctx, "edit", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if edit.AggregationRule == nil || len(edit.AggregationRule.ClusterRoleSelectors) == 0 {
		t.Errorf("edit's aggregation selectors were not restored: %+v", edit.AggregationRule)
	}
	// client.Actions() includes the test's own Get above.
	want := []string{"clusterroles /view", "clusterroles /edit", "clusterroles /edit"}
	if diff := cmp.Diff(want, reads(client)); diff != "" {
		t.Errorf("objects read one by one (-want +got):\n%s", diff)
	}
}

package clusterroleaggregation_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/pkg/authorization/rbac/bootstrappolicy"
	"github.com/kapi-dev/kapi/pkg/controller/clusterroleaggregation"
)

// cluster is a fake API with the bootstrap ClusterRoles and a running
// controller.
type cluster struct {
	client *fake.Clientset
}

func start(t *testing.T) *cluster { return startWorkers(t, 2) }

func startWorkers(t *testing.T, workers int) *cluster {
	t.Helper()
	client := fake.NewClientset()
	ctx, cancel := context.WithCancel(context.Background())
	for _, r := range bootstrappolicy.Default().ClusterRoles {
		create(t, client, &r)
	}
	factory := informers.NewSharedInformerFactory(client, 0)
	c, err := clusterroleaggregation.New(factory.Rbac().V1().ClusterRoles().Informer(), client.RbacV1().ClusterRoles(), nil)
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	done := make(chan struct{})
	go func() { c.Run(ctx, workers); close(done) }()
	t.Cleanup(func() { cancel(); <-done; factory.Shutdown() })
	return &cluster{client: client}
}

func create(t *testing.T, client *fake.Clientset, r *rbacv1.ClusterRole) {
	t.Helper()
	if _, err := client.RbacV1().ClusterRoles().Create(context.Background(), r, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// settle waits until the named roles have the rules want gives them.
// Convergence is the property; how long it takes is not asserted (the
// bound only keeps a broken controller from hanging the test).
func (c *cluster) settle(t *testing.T, want map[string][]rbacv1.PolicyRule) {
	t.Helper()
	var last map[string][]rbacv1.PolicyRule
	err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		last = map[string][]rbacv1.PolicyRule{}
		for name := range want {
			r, err := c.client.RbacV1().ClusterRoles().Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			last[name] = r.Rules
		}
		return equality.Semantic.DeepEqual(last, want), nil
	})
	if err != nil {
		t.Fatalf("the aggregated roles did not settle (%v); (-want +got):\n%s", err, cmp.Diff(want, last))
	}
}

// oracle reads what kube-controller-manager 1.37.1 made of admin, edit
// and view (testdata/README.md).
func oracle(t *testing.T, file string) map[string][]rbacv1.PolicyRule {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	var list rbacv1.ClusterRoleList
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatal(err)
	}
	out := map[string][]rbacv1.PolicyRule{}
	for _, r := range list.Items {
		out[r.Name] = r.Rules
	}
	if len(out) != 3 {
		t.Fatalf("%s: want admin, edit and view, have %d roles", file, len(out))
	}
	return out
}

// extraRoles are the roles testdata/extra-roles.yaml created on the oracle.
func extraRoles(t *testing.T) []*rbacv1.ClusterRole {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "extra-roles.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var out []*rbacv1.ClusterRole
	for _, doc := range strings.Split(string(data), "\n---\n") {
		r := &rbacv1.ClusterRole{}
		if err := yaml.Unmarshal([]byte(doc), r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// TestBootstrapRolesAggregateAsKubeControllerManager: on the bare
// bootstrap policy, admin, edit and view get the rules
// kube-controller-manager gave them, in its order.
func TestBootstrapRolesAggregateAsKubeControllerManager(t *testing.T) {
	c := start(t)
	c.settle(t, oracle(t, "oracle-after-remove.json"))
}

// TestLabelledRoleJoinsAndLeaves: a role labelled aggregate-to-view shows
// in view, edit and admin, one labelled aggregate-to-edit in edit and
// admin (admin aggregates edit, edit aggregates view), each rule once and
// where kube-controller-manager puts it; removing the labels removes the
// rules. The expected roles are the oracle's for the same steps.
func TestLabelledRoleJoinsAndLeaves(t *testing.T) {
	c := start(t)
	ctx := context.Background()
	extra := extraRoles(t)
	for _, r := range extra {
		create(t, c.client, r)
	}
	added := oracle(t, "oracle-after-add.json")
	c.settle(t, added)

	widgets := rbacv1.PolicyRule{APIGroups: []string{"example.com"}, Resources: []string{"widgets"}, Verbs: []string{"create", "delete"}}
	for _, name := range []string{"edit", "admin"} {
		if !hasRule(added[name], widgets) {
			t.Errorf("the oracle's %s lacks the rule of the role labelled aggregate-to-edit", name)
		}
	}
	if hasRule(added["view"], widgets) {
		t.Error("the oracle's view has the rule of a role labelled aggregate-to-edit")
	}

	for _, r := range extra {
		r, err := c.client.RbacV1().ClusterRoles().Get(ctx, r.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for k := range r.Labels {
			if strings.HasPrefix(k, bootstrappolicy.AggregateToLabelPrefix) {
				delete(r.Labels, k)
			}
		}
		if _, err := c.client.RbacV1().ClusterRoles().Update(ctx, r, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	c.settle(t, oracle(t, "oracle-after-remove.json"))
}

// TestWritesOnlyWhatDiffers: once the roles are aggregated, a change to
// an unrelated role queues the aggregated roles again but writes none.
func TestWritesOnlyWhatDiffers(t *testing.T) {
	// One worker takes the queue in order: once the marker, queued last,
	// is written, the roles queued before it have been synced.
	c := startWorkers(t, 1)
	c.settle(t, oracle(t, "oracle-after-remove.json"))
	c.client.ClearActions()
	create(t, c.client, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "unrelated"}})
	rule := rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/marker"}}
	create(t, c.client, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "zz-source", Labels: map[string]string{"marker": "true"}}, Rules: []rbacv1.PolicyRule{rule}})
	create(t, c.client, &rbacv1.ClusterRole{
		ObjectMeta:      metav1.ObjectMeta{Name: "zz-marker"},
		AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"marker": "true"}}}},
	})
	c.settle(t, map[string][]rbacv1.PolicyRule{"zz-marker": {rule}})
	for _, a := range c.client.Actions() {
		switch a.GetVerb() {
		case "get", "list", "watch", "create": // reads, and the test's own creates
			continue
		}
		name := ""
		if p, ok := a.(clienttesting.PatchAction); ok {
			name = p.GetName()
		}
		if u, ok := a.(clienttesting.UpdateAction); ok {
			name = u.GetObject().(metav1.Object).GetName()
		}
		if name != "zz-marker" {
			t.Errorf("unexpected write: %s %s %s", a.GetVerb(), a.GetResource().Resource, name)
		}
	}
}

// TestAggregateSkipsItselfAndDuplicates: a role whose selector matches
// itself does not feed on its own rules, and a rule two roles share is
// taken once, from the first role by name.
func TestAggregateSkipsItselfAndDuplicates(t *testing.T) {
	sel := map[string]string{"agg": "true"}
	r1 := rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}
	r2 := rbacv1.PolicyRule{Verbs: []string{"list"}, APIGroups: []string{""}, Resources: []string{"pods"}}
	self := &rbacv1.ClusterRole{
		ObjectMeta:      metav1.ObjectMeta{Name: "self", Labels: sel},
		AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: sel}}},
		Rules:           []rbacv1.PolicyRule{{Verbs: []string{"delete"}, APIGroups: []string{""}, Resources: []string{"pods"}}},
	}
	b := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "b", Labels: sel}, Rules: []rbacv1.PolicyRule{r2, r1}}
	a := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: sel}, Rules: []rbacv1.PolicyRule{r1}}
	other := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Rules: []rbacv1.PolicyRule{{Verbs: []string{"*"}}}}
	got, err := clusterroleaggregation.Aggregate(self, []*rbacv1.ClusterRole{self, b, other, a})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]rbacv1.PolicyRule{r1, r2}, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func hasRule(rules []rbacv1.PolicyRule, r rbacv1.PolicyRule) bool {
	for _, x := range rules {
		if equality.Semantic.DeepEqual(x, r) {
			return true
		}
	}
	return false
}

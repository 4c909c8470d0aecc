package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/pkg/testserver"
)

// TestSecureByDefault: a kapi started with no authorization options runs
// Node,RBAC with kube-apiserver's bootstrap policy in place, so the path
// the issue describes works with nothing configured: a service account's
// token is refused until a RoleBinding grants it, allowed after, and
// refused as unauthenticated once the account is deleted; anonymous
// requests reach only what system:public-info-viewer grants.
func TestSecureByDefault(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	admin := clientset(t, s.ClientConfig)
	ctx := context.Background()
	const ns = "secure-default"

	// The bootstrap policy, aggregated roles included, is kube-apiserver's.
	want := recordedPolicy(t)
	deadline := time.Now().Add(60 * time.Second)
	for {
		diff := policyDiff(t, s, want)
		if diff == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the bootstrap policy differs from kube-apiserver's:\n%s", diff)
		}
		time.Sleep(200 * time.Millisecond)
	}

	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "robot"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tr, err := admin.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "robot", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	robot := tokenClient(t, s, tr.Status.Token)
	kubeconfig := tokenKubeconfig(t, s, tr.Status.Token)

	_, err = robot.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	const forbidden = `configmaps is forbidden: User "system:serviceaccount:secure-default:robot" cannot list resource "configmaps" in API group "" in the namespace "secure-default"`
	if !apierrors.IsForbidden(err) || err.Error() != forbidden {
		t.Fatalf("list before any binding: %v, want 403 %q", err, forbidden)
	}
	if out, _ := runKubectl(t, kubeconfig, "auth", "can-i", "list", "configmaps", "-n", ns); out != "no" {
		t.Errorf("kubectl auth can-i list configmaps before the binding: %q, want no", out)
	}

	if _, err := admin.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "robot-view"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "robot", Namespace: ns}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The authorizer reads bindings from its informers: a moment later.
	deadline = time.Now().Add(30 * time.Second)
	for {
		_, err = robot.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		if err == nil {
			break
		}
		if !apierrors.IsForbidden(err) || time.Now().After(deadline) {
			t.Fatalf("list after the RoleBinding to view: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, c := range []struct{ args, want string }{
		{"list configmaps", "yes"},
		{"create configmaps", "no"},
		{"get secrets", "no"}, // view leaves secrets out
		{"list pods", "yes"},
	} {
		args := append([]string{"auth", "can-i"}, strings.Fields(c.args)...)
		if out, _ := runKubectl(t, kubeconfig, append(args, "-n", ns)...); out != c.want {
			t.Errorf("kubectl auth can-i %s: %q, want %q", c.args, out, c.want)
		}
	}
	list, err := runKubectl(t, kubeconfig, "auth", "can-i", "--list", "-n", ns)
	if err != nil || !strings.Contains(list, "configmaps") || !strings.Contains(list, "selfsubjectreviews.authentication.k8s.io") {
		t.Errorf("kubectl auth can-i --list: %v\n%s", err, list)
	}

	if err := admin.CoreV1().ServiceAccounts(ns).Delete(ctx, "robot", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventuallyUnauthorized(t, s, tr.Status.Token, "after its service account was deleted")

	// Anonymous requests: health and version, nothing else.
	anonymous, err := rest.HTTPClientFor(rest.AnonymousClientConfig(s.ClientConfig))
	if err != nil {
		t.Fatal(err)
	}
	for path, code := range map[string]int{"/version": 200, "/readyz": 200, "/api/v1/namespaces": 403, "/apis": 403} {
		resp, err := anonymous.Get(s.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != code {
			t.Errorf("anonymous GET %s: %d, want %d", path, resp.StatusCode, code)
		}
	}
}

// recordedPolicy is kube-apiserver's RBAC bootstrap policy as recorded
// from the oracle (pkg/authorization/rbac/testdata).
func recordedPolicy(t *testing.T) []unstructured.Unstructured {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "pkg/authorization/rbac/testdata/kube-apiserver-policy.json"))
	if err != nil {
		t.Fatal(err)
	}
	var list unstructured.UnstructuredList
	if err := json.Unmarshal(b, &list.Object); err != nil {
		t.Fatal(err)
	}
	var items []unstructured.Unstructured
	for _, it := range list.Object["items"].([]any) {
		items = append(items, unstructured.Unstructured{Object: it.(map[string]any)})
	}
	if len(items) != 141 {
		t.Fatalf("the recording has %d objects, want kube-apiserver 1.37.1's 141", len(items))
	}
	return items
}

// policyDiff compares what kapi serves with the recorded objects: every
// recorded object exists with the same labels, annotations, rules,
// aggregation rule, role reference and subjects.
func policyDiff(t *testing.T, s *testserver.Server, want []unstructured.Unstructured) string {
	t.Helper()
	client, err := rest.HTTPClientFor(s.ClientConfig)
	if err != nil {
		t.Fatal(err)
	}
	plural := map[string]string{"ClusterRole": "clusterroles", "ClusterRoleBinding": "clusterrolebindings", "Role": "roles", "RoleBinding": "rolebindings"}
	var diffs []string
	for _, w := range want {
		path := "/apis/rbac.authorization.k8s.io/v1/"
		if w.GetNamespace() != "" {
			path += "namespaces/" + w.GetNamespace() + "/"
		}
		path += plural[w.GetKind()] + "/" + w.GetName()
		resp, err := client.Get(s.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		err = json.NewDecoder(resp.Body).Decode(&got)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			diffs = append(diffs, fmt.Sprintf("%s: %d %v", path, resp.StatusCode, err))
			continue
		}
		meta := got["metadata"].(map[string]any)
		for _, k := range []string{"uid", "resourceVersion", "creationTimestamp", "managedFields", "generation"} {
			delete(meta, k)
		}
		if d := cmp.Diff(w.Object, got, cmpopts.EquateEmpty()); d != "" {
			diffs = append(diffs, path+" (-kube-apiserver +kapi):\n"+d)
		}
	}
	return strings.Join(diffs, "\n")
}

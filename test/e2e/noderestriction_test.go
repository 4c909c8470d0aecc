package e2e

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/pkg/app"
	"github.com/kapi-dev/kapi/pkg/testserver"
)

// TestNodeRestrictionKubelet: with NodeRestriction on, a kubelet
// (system:node:e2e-n1 in system:nodes, a bearer token of
// --token-auth-file) using client-go registers its Node with kubelet
// labels, reports its status, creates a mirror pod owned by its Node
// (the whole path the admission corpus cannot show, which needs the
// Node's uid), deletes and evicts its pods, and is refused the rest with
// kube-apiserver's messages, as a kube-apiserver 1.37.1 with the same
// plugin answered them (recorded by hand with kubectl --as on the
// oracle): a forbidden label, a mirror pod that mounts a secret or names
// another uid, another node's pod.
func TestNodeRestrictionKubelet(t *testing.T) {
	tokens := filepath.Join(t.TempDir(), "tokens.csv")
	if err := os.WriteFile(tokens, []byte("kubelet-token,system:node:e2e-n1,n1,system:nodes\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := testserver.Start(t, testserver.Options{
		TokenAuthFile:     tokens,
		AuthorizationMode: []string{"Node", "RBAC"},
		Admission:         app.AdmissionConfig{Enable: []string{"NodeRestriction"}},
	})
	admin := clientset(t, s.ClientConfig)
	kcfg := rest.AnonymousClientConfig(s.ClientConfig)
	kcfg.BearerToken = "kubelet-token"
	kubelet := clientset(t, kcfg)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	const ns = "e2e-nr"
	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The pods the scheduler binds run as the default service account,
	// which no controller creates here.
	if _, err := admin.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	// Registering: kubelet labels only.
	_, err := kubelet.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "e2e-n1",
		Labels: map[string]string{"node-role.kubernetes.io/control-plane": ""}}}, metav1.CreateOptions{})
	wantRefusal(t, "a node role label", err, `nodes "e2e-n1" is forbidden: node "e2e-n1" is not allowed to set the following labels: node-role.kubernetes.io/control-plane`)
	node, err := kubelet.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "e2e-n1",
		Labels: map[string]string{"kubernetes.io/hostname": "e2e-n1", "kubernetes.io/os": "linux", "node.kubernetes.io/exclude-from-external-load-balancers": ""}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("registering the node: %v", err)
	}
	node.Status.Capacity = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}
	if _, err := kubelet.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("reporting the node's status: %v", err)
	}

	mirror := func(name string, uid types.UID, volumes ...corev1.Volume) *corev1.Pod {
		yes := true
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{corev1.MirrorPodAnnotationKey: "x"},
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: "e2e-n1", UID: uid, Controller: &yes}}},
			Spec: corev1.PodSpec{NodeName: "e2e-n1", Volumes: volumes, Containers: []corev1.Container{{Name: "c", Image: "i"}}},
		}
	}
	// The plugin reads the Node from a cache: it may not have it yet.
	var created *corev1.Pod
	if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		created, err = kubelet.CoreV1().Pods(ns).Create(ctx, mirror("static-web", node.UID, corev1.Volume{Name: "h", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/srv"}}}), metav1.CreateOptions{})
		return err == nil || !apierrors.IsNotFound(err), nil
	}); err != nil || created == nil {
		t.Fatalf("the kubelet's mirror pod: %v", err)
	}
	_, err = kubelet.CoreV1().Pods(ns).Create(ctx, mirror("static-secret", node.UID, corev1.Volume{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s"}}}), metav1.CreateOptions{})
	// ServiceAccount, earlier in the chain, refuses it first (as on a
	// kube-apiserver with its default plugins and NodeRestriction).
	wantRefusal(t, "a mirror pod mounting a secret", err, `pods "static-secret" is forbidden: a mirror pod may not reference secrets`)
	_, err = kubelet.CoreV1().Pods(ns).Create(ctx, mirror("static-stale", "00000000-0000-0000-0000-000000000001"), metav1.CreateOptions{})
	wantRefusal(t, "a mirror pod of a stale node", err, `pods "static-stale" is forbidden: node e2e-n1 UID mismatch: expected 00000000-0000-0000-0000-000000000001 got `+string(node.UID))

	// Pods the scheduler bound: its own, and another node's.
	for _, p := range []struct{ name, node string }{{"mine", "e2e-n1"}, {"evictable", "e2e-n1"}, {"theirs", "e2e-n2"}} {
		if _, err := admin.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: p.name},
			Spec: corev1.PodSpec{NodeName: p.node, Containers: []corev1.Container{{Name: "c", Image: "i"}}}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// The node authorizer and the plugin learn the pods from caches.
	if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := kubelet.CoreV1().Pods(ns).Get(ctx, "evictable", metav1.GetOptions{})
		return err == nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	err = kubelet.CoreV1().Pods(ns).Delete(ctx, "theirs", metav1.DeleteOptions{})
	wantRefusal(t, "deleting another node's pod", err, `pods "theirs" is forbidden: node "e2e-n1" can only delete pods with spec.nodeName set to itself`)
	err = kubelet.CoreV1().Pods(ns).EvictV1(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "theirs", Namespace: ns}})
	wantRefusal(t, "evicting another node's pod", err, `pods "theirs" is forbidden: node e2e-n1 can only evict pods with spec.nodeName set to itself`)
	if err := kubelet.CoreV1().Pods(ns).EvictV1(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "evictable", Namespace: ns}}); err != nil {
		t.Errorf("evicting its own pod: %v", err)
	}
	if err := kubelet.CoreV1().Pods(ns).Delete(ctx, "static-web", metav1.DeleteOptions{}); err != nil {
		t.Errorf("deleting its mirror pod: %v", err)
	}
}

// wantRefusal fails the test unless err is a 403 with message want.
func wantRefusal(t *testing.T, what string, err error, want string) {
	t.Helper()
	if !apierrors.IsForbidden(err) || err.Error() != want {
		t.Errorf("%s: got %v, want the 403 %q", what, err, want)
	}
}

package client_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	corelisters "k8s.io/client-go/listers/core/v1"

	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/client"
	"github.com/kapi-dev/kapi/pkg/testserver"
)

// A typed client reads and writes its resource as client-go's generated
// clients do, a namespaced one in its namespace, a cluster-scoped one
// without.
func TestTypedClientsReadAndWrite(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	clients, err := client.NewSet(s.ClientConfig, scheme.Scheme)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	cms := client.For[*corev1.ConfigMap, *corev1.ConfigMapList](clients, "configmaps", "default")
	w, err := cms.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	created, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Data: map[string]string{"k": "v"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if created.Namespace != "default" || created.UID == "" {
		t.Errorf("created %s/%s uid %q, want it in default with a uid", created.Namespace, created.Name, created.UID)
	}
	select {
	case ev := <-w.ResultChan():
		if cm, ok := ev.Object.(*corev1.ConfigMap); ev.Type != watch.Added || !ok || cm.Name != "a" {
			t.Errorf("watch event %s %T, want the ConfigMap added", ev.Type, ev.Object)
		}
	case <-time.After(30 * time.Second):
		t.Error("no watch event for the create")
	}
	patched, err := cms.Patch(ctx, "a", types.MergePatchType, []byte(`{"data":{"k":"w"}}`), metav1.PatchOptions{})
	if err != nil || patched.Data["k"] != "w" {
		t.Errorf("patch: %v, data %v", err, patched.Data)
	}
	list, err := cms.List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=a"})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("list by name: %v, %d items", err, len(list.Items))
	}
	if err := cms.Delete(ctx, "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Get(ctx, "a", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get after delete: %v, want NotFound", err)
	}

	roles := client.For[*rbacv1.ClusterRole, *rbacv1.ClusterRoleList](clients, "clusterroles", "")
	admin, err := roles.Get(ctx, "cluster-admin", metav1.GetOptions{})
	if err != nil || len(admin.Rules) == 0 {
		t.Errorf("get cluster-admin: %v, rules %v", err, admin.Rules)
	}
}

// The shared informers hold one informer per kind, fill it from a list
// and keep it up to date from a watch.
func TestInformersFollowTheServer(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	clients, err := client.NewSet(s.ClientConfig, scheme.Scheme)
	if err != nil {
		t.Fatal(err)
	}
	informers := client.NewInformers(clients)
	inf := client.InformerFor[*corev1.Namespace, *corev1.NamespaceList](informers, "namespaces")
	if again := client.InformerFor[*corev1.Namespace, *corev1.NamespaceList](informers, "namespaces"); again != inf {
		t.Error("a second informer of the same kind")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	informers.Start(ctx)
	for typ, synced := range informers.WaitForCacheSync(ctx) {
		if !synced {
			t.Fatalf("%v did not sync", typ)
		}
	}
	lister := corelisters.NewNamespaceLister(inf.GetIndexer())
	if _, err := lister.Get("kube-system"); err != nil {
		t.Errorf("kube-system from the informer: %v", err)
	}
	ns := client.For[*corev1.Namespace, *corev1.NamespaceList](clients, "namespaces", "")
	if _, err := ns.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "later"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := lister.Get("later"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the informer never saw the namespace created after it synced")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

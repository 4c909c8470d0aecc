// Package envtest checks that controller-runtime's envtest, the harness
// operator authors test with, runs against kapi in place of kube-apiserver,
// and that a real controller built with controller-runtime works on it.
//
// It is its own module so that controller-runtime stays out of kapi's
// dependencies; hack/test.sh runs it.
package envtest

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// assets builds the binaries envtest runs: kapi named kube-apiserver, and
// etcd from the etcd module kapi depends on.
func assets(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, b := range []struct{ out, pkg string }{
		{"kube-apiserver", "./cmd/kapi"},
		{"etcd", "go.etcd.io/etcd/server/v3"},
	} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, b.out), b.pkg)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("building %s: %v\n%s", b.out, err, out)
		}
	}
	return dir
}

// labeler is a small real controller: it gives every ConfigMap the label
// seen=true.
type labeler struct{ client.Client }

func (l labeler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var cm corev1.ConfigMap
	if err := l.Get(ctx, req.NamespacedName, &cm); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if cm.Labels["seen"] == "true" {
		return reconcile.Result{}, nil
	}
	patch := client.MergeFrom(cm.DeepCopy())
	if cm.Labels == nil {
		cm.Labels = map[string]string{}
	}
	cm.Labels["seen"] = "true"
	return reconcile.Result{}, l.Patch(ctx, &cm, patch)
}

func TestEnvtestRunsKapi(t *testing.T) {
	log.SetLogger(logr.Discard())
	env := &envtest.Environment{BinaryAssetsDirectory: assets(t)}
	// envtest passes its default flags (--authorization-mode=RBAC among
	// them) unchanged: kapi accepts them as kube-apiserver does.
	// kapi keeps its generated PKI and admin.kubeconfig in --data-dir,
	// ./kapi-data by default: not in the source tree.
	env.ControlPlane.GetAPIServer().Configure().Set("data-dir", t.TempDir())
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("envtest could not start kapi: %v", err)
	}
	defer func() {
		if err := env.Stop(); err != nil {
			t.Errorf("stopping envtest: %v", err)
		}
	}()

	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Metrics: server.Options{BindAddress: "0"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Complete(labeler{mgr.GetClient()}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	go func() {
		if err := mgr.Start(ctx); err != nil && ctx.Err() == nil {
			t.Errorf("manager: %v", err)
		}
	}()

	c, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "watched", Namespace: "default"}}
	if err := c.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	for {
		var got corev1.ConfigMap
		err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: "watched"}, &got)
		if err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
		if got.Labels["seen"] == "true" {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatal("the controller never labelled the configmap")
		case <-time.After(50 * time.Millisecond):
		}
	}
}

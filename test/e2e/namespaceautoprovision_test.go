package e2e

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/app"
	"github.com/kapi-dev/kapi/pkg/testserver"
)

// TestNamespaceAutoProvision: with NamespaceAutoProvision on, a create in
// a namespace that does not exist creates the namespace (labelled as any
// namespace is) and then the object; a dry run creates nothing, and is
// refused by NamespaceLifecycle with the namespace's 404. A
// kube-apiserver 1.37.1 with the plugin answered the same (kubectl create
// configmap -n <missing> [--dry-run=server] on the oracle).
func TestNamespaceAutoProvision(t *testing.T) {
	s := testserver.Start(t, testserver.Options{Admission: app.AdmissionConfig{Enable: []string{"NamespaceAutoProvision"}}})
	c := clientset(t, s.ClientConfig)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}

	_, err := c.CoreV1().ConfigMaps("auto-prov-1").Create(ctx, cm, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if !apierrors.IsNotFound(err) || err.Error() != `namespaces "auto-prov-1" not found` {
		t.Errorf("a dry run: %v, want the namespace's 404", err)
	}
	if _, err := c.CoreV1().Namespaces().Get(ctx, "auto-prov-1", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a dry run created its namespace: %v", err)
	}

	if _, err := c.CoreV1().ConfigMaps("auto-prov-2").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatalf("a create in a missing namespace: %v", err)
	}
	ns, err := c.CoreV1().Namespaces().Get(ctx, "auto-prov-2", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the namespace was not created: %v", err)
	}
	if got := ns.Labels["kubernetes.io/metadata.name"]; got != "auto-prov-2" {
		t.Errorf("the namespace's labels are %v", ns.Labels)
	}
}

package autoprovision

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/admission"
)

type namespaceSet map[string]bool

func (n namespaceSet) Get(name string) (*corev1.Namespace, error) {
	if n[name] {
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, nil
	}
	return nil, apierrors.NewNotFound(corev1.Resource("namespaces"), name)
}

func (n namespaceSet) Create(_ context.Context, ns *corev1.Namespace, _ metav1.CreateOptions) (*corev1.Namespace, error) {
	if n[ns.Name] {
		return nil, apierrors.NewAlreadyExists(corev1.Resource("namespaces"), ns.Name)
	}
	n[ns.Name] = true
	return ns, nil
}

// A create in a missing namespace creates it; a dry run, a namespace the
// cache has, and a namespace itself do not.
func TestAutoProvision(t *testing.T) {
	cache, server := namespaceSet{"there": true}, namespaceSet{"there": true, "raced": true}
	p := New(Config{Lister: cache, HasSynced: func() bool { return true }, Client: server})
	cmKind := corev1.SchemeGroupVersion.WithKind("ConfigMap")
	for _, tc := range []struct {
		ns      string
		dryRun  bool
		created bool
	}{
		{ns: "there"},
		{ns: "new", created: true},
		{ns: "dry", dryRun: true},
		{ns: "raced"}, // created since the cache looked: no error
	} {
		a := &admission.Attributes{Namespace: tc.ns, Kind: cmKind, Operation: admission.Create, DryRun: tc.dryRun, Object: &corev1.ConfigMap{}}
		if err := p.Admit(context.Background(), a); err != nil {
			t.Errorf("%s: %v", tc.ns, err)
		}
		if server[tc.ns] != (tc.created || tc.ns == "there" || tc.ns == "raced") {
			t.Errorf("%s: created %v, want %v", tc.ns, server[tc.ns], tc.created)
		}
	}
}

package exists

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

type live struct{ namespaceSet }

func (l live) Get(_ context.Context, name string, _ metav1.GetOptions) (*corev1.Namespace, error) {
	return l.namespaceSet.Get(name)
}

// A write in a namespace neither the cache nor the server has is refused
// with the namespace's 404; namespaces themselves are not checked.
func TestExists(t *testing.T) {
	p := New(Config{Namespaces: namespaceSet{"cached": true}, HasSynced: func() bool { return true }, Live: live{namespaceSet{"cached": true, "new": true}}})
	cm := corev1.SchemeGroupVersion.WithKind("ConfigMap")
	for _, tc := range []struct {
		ns, kind string
		missing  bool
	}{
		{ns: "cached", kind: "ConfigMap"},
		{ns: "new", kind: "ConfigMap"},
		{ns: "gone", kind: "ConfigMap", missing: true},
		{ns: "gone", kind: "Namespace"},
		{ns: "", kind: "ConfigMap"},
	} {
		kind := cm
		kind.Kind = tc.kind
		err := p.Validate(context.Background(), &admission.Attributes{Namespace: tc.ns, Kind: kind, Operation: admission.Delete})
		if tc.missing != (err != nil) || tc.missing && (!apierrors.IsNotFound(err) || err.Error() != `namespaces "gone" not found`) {
			t.Errorf("%s %s: %v", tc.kind, tc.ns, err)
		}
	}
}

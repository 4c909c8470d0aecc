package namespaces

import (
	"context"
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

type cache map[string]*corev1.Namespace

func (c cache) Get(name string) (*corev1.Namespace, error) {
	if ns, ok := c[name]; ok {
		return ns, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, name)
}

type live struct {
	cache
	reads int
}

func (l *live) Get(_ context.Context, name string, _ metav1.GetOptions) (*corev1.Namespace, error) {
	l.reads++
	return l.cache.Get(name)
}

func namespace(name, origin string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"from": origin}}}
}

// The cache answers what it has; the server answers only what the cache
// lacks; a namespace neither has is NotFound.
func TestGetReadsTheServerOnlyForWhatTheCacheLacks(t *testing.T) {
	srv := &live{cache: cache{"old": namespace("old", "server"), "new": namespace("new", "server")}}
	g := Getter{Cache: cache{"old": namespace("old", "cache")}, Live: srv}
	ctx := context.Background()

	if ns, err := g.Get(ctx, "old"); err != nil || ns.Labels["from"] != "cache" || srv.reads != 0 {
		t.Errorf("a cached namespace: got %v, %v after %d server reads; want the cache's, without reading the server", ns, err, srv.reads)
	}
	if ns, err := g.Get(ctx, "new"); err != nil || ns.Labels["from"] != "server" || srv.reads != 1 {
		t.Errorf("a namespace the cache lacks: got %v, %v after %d server reads; want the server's", ns, err, srv.reads)
	}
	if _, err := g.Get(ctx, "missing"); !apierrors.IsNotFound(err) {
		t.Errorf("a namespace neither has: got %v, want NotFound", err)
	}
	if _, err := (Getter{Cache: cache{}}).Get(ctx, "new"); !apierrors.IsNotFound(err) {
		t.Errorf("without a server: got %v, want NotFound", err)
	}
}

type failing struct{}

func (failing) Get(string) (*corev1.Namespace, error) { return nil, errors.New("cache broken") }

// A cache error other than NotFound is an internal error, not hidden by a
// server read.
func TestGetAnswersOtherErrorsAsInternal(t *testing.T) {
	srv := &live{cache: cache{"ns": namespace("ns", "server")}}
	_, err := (Getter{Cache: failing{}, Live: srv}).Get(context.Background(), "ns")
	if !apierrors.IsInternalError(err) || srv.reads != 0 {
		t.Errorf("got %v after %d server reads, want an internal error and no read", err, srv.reads)
	}
}

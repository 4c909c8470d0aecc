package podnodeselector

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kapi-dev/kapi/pkg/admission"
)

// The configuration file's per-namespace whitelist bounds the labels a
// pod of that namespace may select (a case the corpus cannot record: its
// namespaces are named at random).
func TestNamespaceWhitelist(t *testing.T) {
	cfg, err := ParseConfiguration([]byte("podNodeSelectorPluginConfig:\n  clusterDefaultNodeSelector: pool=general\n  team: pool=general,disk=ssd\n"))
	if err != nil {
		t.Fatal(err)
	}
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	if err := indexer.Add(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}}); err != nil {
		t.Fatal(err)
	}
	p := New(Config{Configuration: cfg, Namespaces: corelisters.NewNamespaceLister(indexer), HasSynced: func() bool { return true }})
	for _, tc := range []struct {
		selector map[string]string
		want     string
	}{
		{map[string]string{"disk": "ssd"}, ""},
		{map[string]string{"disk": "hdd"}, `pods "p" is forbidden: pod node label selector labels conflict with its namespace whitelist`},
		{map[string]string{"gpu": "yes"}, `pods "p" is forbidden: pod node label selector labels conflict with its namespace whitelist`},
	} {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: corev1.PodSpec{NodeSelector: tc.selector}}
		a := &admission.Attributes{Namespace: "team", Resource: corev1.SchemeGroupVersion.WithResource("pods"), Operation: admission.Create, Object: pod}
		err := p.Admit(context.Background(), a)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("selector %v: %q, want %q", tc.selector, got, tc.want)
		}
		if err == nil && pod.Spec.NodeSelector["pool"] != "general" {
			t.Errorf("selector %v became %v", tc.selector, pod.Spec.NodeSelector)
		}
	}
	// A namespace that exists nowhere is the lookup's NotFound.
	a := &admission.Attributes{Namespace: "gone", Resource: corev1.SchemeGroupVersion.WithResource("pods"), Operation: admission.Create, Object: &corev1.Pod{}}
	if err := p.Admit(context.Background(), a); !apierrors.IsNotFound(err) || !strings.Contains(err.Error(), "gone") {
		t.Errorf("missing namespace: %v", err)
	}
}

package resourcequota

import (
	"context"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"strconv"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/resourcequota/evaluator"
)

// server is a fake of the quotas on the server and in the cache: the
// cache is what the lister sees; writes go to the server.
type server struct {
	mu     sync.Mutex
	stored map[string]*corev1.ResourceQuota
	cached map[string]*corev1.ResourceQuota
	rv     int
	// conflicts is how many status writes to refuse with a conflict.
	conflicts int
	writes    int
}

func newServer(quotas ...*corev1.ResourceQuota) *server {
	s := &server{stored: map[string]*corev1.ResourceQuota{}, cached: map[string]*corev1.ResourceQuota{}}
	for _, q := range quotas {
		s.rv++
		q.ResourceVersion = strconv.Itoa(s.rv)
		s.stored[q.Name] = q.DeepCopy()
		s.cached[q.Name] = q.DeepCopy()
	}
	return s
}

func (s *server) List(labels.Selector) ([]*corev1.ResourceQuota, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*corev1.ResourceQuota
	for _, q := range s.cached {
		out = append(out, q.DeepCopy())
	}
	return out, nil
}

type client struct{ *server }

func (c client) List(context.Context, metav1.ListOptions) (*corev1.ResourceQuotaList, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := &corev1.ResourceQuotaList{}
	for _, q := range c.stored {
		out.Items = append(out.Items, *q.DeepCopy())
	}
	return out, nil
}

func (c client) UpdateStatus(_ context.Context, q *corev1.ResourceQuota, _ metav1.UpdateOptions) (*corev1.ResourceQuota, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes++
	if c.conflicts > 0 || q.ResourceVersion != c.stored[q.Name].ResourceVersion {
		if c.conflicts > 0 {
			c.conflicts--
			// Someone else wrote the quota meanwhile.
			c.rv++
			c.stored[q.Name].ResourceVersion = strconv.Itoa(c.rv)
		}
		return nil, apierrors.NewConflict(corev1.Resource("resourcequotas"), q.Name, nil)
	}
	c.rv++
	out := q.DeepCopy()
	out.ResourceVersion = strconv.Itoa(c.rv)
	c.stored[q.Name] = out
	return out.DeepCopy(), nil
}

func (s *server) used(name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return evaluator.String(s.stored[name].Status.Used)
}

func quota(name, hard, used string) *corev1.ResourceQuota {
	return &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"},
		Spec:       corev1.ResourceQuotaSpec{Hard: parse(hard)},
		Status:     corev1.ResourceQuotaStatus{Hard: parse(hard), Used: parse(used)},
	}
}

func parse(s string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for _, kv := range strings.Split(s, ",") {
		if kv == "" {
			continue
		}
		name, q, _ := strings.Cut(kv, "=")
		out[corev1.ResourceName(name)] = resource.MustParse(q)
	}
	return out
}

func newPlugin(s *server, cfg *Configuration) *Plugin {
	return New(Config{
		Configuration: cfg,
		Lister:        func(string) QuotaLister { return s },
		HasSynced:     func() bool { return true },
		Client:        func(string) QuotaClient { return client{s} },
		Evaluators:    evaluator.NewRegistry(evaluator.Options{}),
	})
}

func createConfigMap(name string) *admission.Attributes {
	return &admission.Attributes{
		Name: name, Namespace: "ns", Operation: admission.Create,
		Resource: corev1.SchemeGroupVersion.WithResource("configmaps"),
		Kind:     corev1.SchemeGroupVersion.WithKind("ConfigMap"),
		Object:   &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}},
	}
}

func waiters(as ...*admission.Attributes) []*waiter {
	var out []*waiter
	for _, a := range as {
		out = append(out, &waiter{a: a, done: make(chan struct{}), result: errUndecided})
	}
	return out
}

// A batch is checked in order, each write against what the earlier ones
// left, and the quota is written once for all of them.
func TestABatchIsChargedInOrderWithOneWrite(t *testing.T) {
	s := newServer(quota("q", "configmaps=2", "configmaps=0"))
	p := newPlugin(s, nil)
	batch := waiters(createConfigMap("a"), createConfigMap("b"), createConfigMap("c"))
	dry := createConfigMap("dry")
	dry.DryRun = true
	batch = append(batch, waiters(dry)...)
	p.checkBatch("ns", batch)

	if batch[0].result != nil || batch[1].result != nil {
		t.Errorf("the first two writes fit: %v, %v", batch[0].result, batch[1].result)
	}
	want := `configmaps "c" is forbidden: exceeded quota: q, requested: configmaps=1, used: configmaps=2, limited: configmaps=2`
	if err := batch[2].result; !apierrors.IsForbidden(err) || err.Error() != want {
		t.Errorf("the third: %v, want %s", err, want)
	}
	if !apierrors.IsForbidden(batch[3].result) {
		t.Errorf("a dry run is checked against the batch's usage too: %v", batch[3].result)
	}
	if s.writes != 1 || s.used("q") != "configmaps=2" {
		t.Errorf("%d status writes, used %s; want one write, configmaps=2", s.writes, s.used("q"))
	}
	for _, w := range batch {
		select {
		case <-w.done:
		default:
			t.Errorf("a waiter was not released")
		}
	}
}

// A status write that conflicts is retried against the quota read from
// the server, up to three times; after that the writes still waiting
// are refused with the conflict.
func TestConflictingStatusWritesAreRetriedThenRefused(t *testing.T) {
	for _, tc := range []struct {
		conflicts int
		admitted  bool
	}{{1, true}, {3, true}, {4, false}} {
		s := newServer(quota("q", "configmaps=5", "configmaps=1"))
		s.conflicts = tc.conflicts
		p := newPlugin(s, nil)
		batch := waiters(createConfigMap("a"))
		p.checkBatch("ns", batch)
		switch {
		case tc.admitted && (batch[0].result != nil || s.used("q") != "configmaps=2"):
			t.Errorf("%d conflicts: %v, used %s; want admitted and charged once", tc.conflicts, batch[0].result, s.used("q"))
		case !tc.admitted && (!apierrors.IsConflict(batch[0].result) || s.used("q") != "configmaps=1"):
			t.Errorf("%d conflicts: %v, used %s; want the conflict and no charge", tc.conflicts, batch[0].result, s.used("q"))
		}
	}
}

// The status a write is charged against is the newest this plugin
// wrote, even before the cache has it.
func TestTheQuotasThisPluginWroteWinOverAStaleCache(t *testing.T) {
	s := newServer(quota("q", "configmaps=1", "configmaps=0"))
	p := newPlugin(s, nil)
	first := waiters(createConfigMap("a"))
	p.checkBatch("ns", first)
	second := waiters(createConfigMap("b"))
	p.checkBatch("ns", second) // the cache still says configmaps=0
	if first[0].result != nil || !apierrors.IsForbidden(second[0].result) {
		t.Errorf("first %v, second %v; want the second refused", first[0].result, second[0].result)
	}
}

// After a client wrote a quota, its namespace's quotas are read from the
// server until the cache shows what the server has.
func TestAQuotaAClientWroteIsSeenAtOnce(t *testing.T) {
	s := newServer()
	p := newPlugin(s, nil)
	// The client creates a quota (admitted here), the server stores it,
	// the cache does not have it yet.
	created := quota("q", "configmaps=1", "configmaps=1")
	_ = p.Validate(context.Background(), &admission.Attributes{
		Name: "q", Namespace: "ns", Operation: admission.Create,
		Resource: corev1.SchemeGroupVersion.WithResource("resourcequotas"),
		Object:   created,
	})
	s.stored["q"] = created
	batch := waiters(createConfigMap("a"))
	p.checkBatch("ns", batch)
	if !apierrors.IsForbidden(batch[0].result) {
		t.Errorf("a create right after the quota's: %v, want refused", batch[0].result)
	}
}

func TestLimitedResourcesNeedACoveringQuota(t *testing.T) {
	cfg := &Configuration{LimitedResources: []LimitedResource{{Resource: "configmaps", MatchContains: []string{"configmaps"}}}}
	p := newPlugin(newServer(quota("other", "secrets=1", "secrets=0")), cfg)
	batch := waiters(createConfigMap("a"))
	p.checkBatch("ns", batch)
	want := `configmaps "a" is forbidden: insufficient quota to consume: configmaps,count/configmaps`
	if err := batch[0].result; err == nil || err.Error() != want {
		t.Errorf("%v, want %s", err, want)
	}
	p = newPlugin(newServer(quota("covering", "count/configmaps=1", "count/configmaps=0")), cfg)
	batch = waiters(createConfigMap("a"))
	p.checkBatch("ns", batch)
	want = `configmaps "a" is forbidden: insufficient quota to consume: configmaps`
	if err := batch[0].result; err == nil || err.Error() != want {
		t.Errorf("a quota covering one of the names: %v, want %s", err, want)
	}
}

func TestWritesOutsideNamespacesOrIgnoredAreNotCharged(t *testing.T) {
	p := newPlugin(newServer(quota("q", "count/namespaces=0,count/events=0", "count/namespaces=0,count/events=0")), nil)
	for _, a := range []*admission.Attributes{
		{Name: "ns", Namespace: "ns", Operation: admission.Create, Resource: corev1.SchemeGroupVersion.WithResource("namespaces"), Kind: corev1.SchemeGroupVersion.WithKind("Namespace"), Object: &corev1.Namespace{}},
		{Name: "e", Namespace: "ns", Operation: admission.Create, Resource: corev1.SchemeGroupVersion.WithResource("events"), Object: &corev1.Event{}},
		{Name: "n", Operation: admission.Create, Resource: schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "clusterthings"}},
	} {
		if err := p.Validate(context.Background(), a); err != nil {
			t.Errorf("%s: %v", a.Resource, err)
		}
	}
}

func TestLoadConfiguration(t *testing.T) {
	cases := []struct {
		data, err string
		limited   int
	}{
		{data: "apiVersion: apiserver.config.k8s.io/v1\nkind: ResourceQuotaConfiguration\nlimitedResources:\n- resource: pods\n  matchContains: [cpu]\n", limited: 1},
		{data: "apiVersion: resourcequota.admission.k8s.io/v1beta1\nkind: Configuration\nlimitedResources:\n- resource: pods\n", limited: 1},
		{data: "apiVersion: apiserver.config.k8s.io/v1\nkind: ResourceQuotaConfiguration\n"},
		{data: "apiVersion: apiserver.config.k8s.io/v1\nkind: ResourceQuotaConfiguration\nlimitedResources:\n- apiGroup: x\n", err: "limitedResources[0].resource: Required value"},
		{data: "apiVersion: apiserver.config.k8s.io/v1\nkind: ResourceQuotaConfiguration\nlimitedResource: []\n", err: `strict decoding error: unknown field "limitedResource"`},
		{data: "apiVersion: apiserver.config.k8s.io/v1\nkind: Configuration\n", err: `no kind "Configuration" is registered for version "apiserver.config.k8s.io/v1"`},
	}
	for _, tc := range cases {
		cfg, err := LoadConfiguration([]byte(tc.data))
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: %v, want %s", tc.data, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("%q: %v", tc.data, err)
		case tc.err == "" && len(cfg.LimitedResources) != tc.limited:
			t.Errorf("%q: %d limited resources, want %d", tc.data, len(cfg.LimitedResources), tc.limited)
		}
	}
}

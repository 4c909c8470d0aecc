package autoregister

import (
	"context"
	"strconv"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// store is an API server's APIServices, read as through the informer and
// written as through the loopback client; writes records what was
// written.
type store struct {
	items  map[string]*apiregistrationv1.APIService
	writes []string
	uid    int
}

func newStore(items ...*apiregistrationv1.APIService) *store {
	s := &store{items: map[string]*apiregistrationv1.APIService{}}
	for _, as := range items {
		s.put(as.DeepCopy())
	}
	return s
}

func (s *store) put(as *apiregistrationv1.APIService) {
	s.uid++
	as.UID = types.UID(strconv.Itoa(s.uid))
	s.items[as.Name] = as
}

var resource = apiregistrationv1.Resource("apiservices")

func (s *store) Get(name string) (*apiregistrationv1.APIService, error) {
	as, ok := s.items[name]
	if !ok {
		return nil, apierrors.NewNotFound(resource, name)
	}
	return as.DeepCopy(), nil
}

func (s *store) List(labels.Selector) ([]*apiregistrationv1.APIService, error) {
	var out []*apiregistrationv1.APIService
	for _, as := range s.items {
		out = append(out, as.DeepCopy())
	}
	return out, nil
}

func (s *store) Create(_ context.Context, as *apiregistrationv1.APIService, _ metav1.CreateOptions) (*apiregistrationv1.APIService, error) {
	if _, ok := s.items[as.Name]; ok {
		return nil, apierrors.NewAlreadyExists(resource, as.Name)
	}
	s.writes = append(s.writes, "create "+as.Name)
	s.put(as.DeepCopy())
	return as, nil
}

func (s *store) Update(_ context.Context, as *apiregistrationv1.APIService, _ metav1.UpdateOptions) (*apiregistrationv1.APIService, error) {
	if _, ok := s.items[as.Name]; !ok {
		return nil, apierrors.NewNotFound(resource, as.Name)
	}
	s.writes = append(s.writes, "update "+as.Name)
	s.items[as.Name] = as.DeepCopy()
	return as, nil
}

func (s *store) Delete(_ context.Context, name string, opts metav1.DeleteOptions) error {
	as, ok := s.items[name]
	if !ok {
		return apierrors.NewNotFound(resource, name)
	}
	if p := opts.Preconditions; p != nil && p.UID != nil && *p.UID != as.UID {
		return apierrors.NewConflict(resource, name, nil)
	}
	s.writes = append(s.writes, "delete "+name)
	delete(s.items, name)
	return nil
}

// userEdit changes what the user may change of a stored APIService: its
// spec, here its version priority.
func (s *store) userEdit(name string, versionPriority int32) {
	s.items[name].Spec.VersionPriority = versionPriority
}

func apiService(gv schema.GroupVersion, label string, versionPriority int32) *apiregistrationv1.APIService {
	as := local(gv, 17800, versionPriority)
	if label != "" {
		as.Labels = map[string]string{Label: label}
	}
	return as
}

var (
	apps    = schema.GroupVersion{Group: "apps", Version: "v1"}
	widgets = schema.GroupVersion{Group: "example.com", Version: "v1"}
)

// started returns a controller started against s (the APIServices s has
// now are those there at the start), wanting what want says.
func started(s *store, want func(c *Controller)) *Controller {
	c := New(s, nil)
	want(c)
	existing, _ := s.List(labels.Everything())
	for _, as := range existing {
		c.atStart[as.Name] = true
	}
	return c
}

// syncAll syncs every name the queue holds, as the worker would.
func syncAll(t *testing.T, c *Controller, s *store) {
	t.Helper()
	for c.queue.Len() > 0 {
		name, _ := c.queue.Get()
		if err := c.sync(context.Background(), s, name); err != nil {
			t.Fatalf("sync %s: %v", name, err)
		}
		c.queue.Done(name)
	}
}

func syncName(t *testing.T, c *Controller, s *store, name string) {
	t.Helper()
	if err := c.sync(context.Background(), s, name); err != nil {
		t.Fatalf("sync %s: %v", name, err)
	}
}

func wantWrites(t *testing.T, s *store, want ...string) {
	t.Helper()
	if len(s.writes) != len(want) {
		t.Fatalf("writes %q, want %q", s.writes, want)
	}
	for i := range want {
		if s.writes[i] != want[i] {
			t.Fatalf("writes %q, want %q", s.writes, want)
		}
	}
	s.writes = nil
}

// A built-in group version's APIService is created at start with the
// onstart label; once synced, a user's change or deletion stays until the
// next start, as kube-apiserver's.
func TestOnStartAPIServicesAreKeptOnce(t *testing.T) {
	s := newStore()
	c := started(s, func(c *Controller) { c.SyncOnStart(apiService(apps, "", 15)) })
	syncAll(t, c, s)
	wantWrites(t, s, "create v1.apps")
	if got := s.items["v1.apps"]; got.Labels[Label] != OnStart || got.Spec.VersionPriority != 15 {
		t.Fatalf("created %+v", got)
	}

	s.userEdit("v1.apps", 99)
	syncName(t, c, s, "v1.apps")
	wantWrites(t, s)
	delete(s.items, "v1.apps")
	syncName(t, c, s, "v1.apps")
	wantWrites(t, s)
}

// At the next start, a changed onstart APIService has its spec put back
// (its labels and the rest kept), and one whose group version is no
// longer served is deleted.
func TestOnStartAPIServicesAreResetAndPrunedAtStart(t *testing.T) {
	changed := apiService(apps, OnStart, 99)
	changed.Labels["mine"] = "yes"
	gone := apiService(schema.GroupVersion{Group: "gone.k8s.io", Version: "v1"}, OnStart, 15)
	s := newStore(changed, gone)
	c := started(s, func(c *Controller) { c.SyncOnStart(apiService(apps, "", 15)) })
	c.Enqueue(gone.Name)
	syncAll(t, c, s)
	wantWrites(t, s, "update v1.apps", "delete v1.gone.k8s.io")
	if got := s.items["v1.apps"]; got.Spec.VersionPriority != 15 || got.Labels["mine"] != "yes" {
		t.Errorf("reset to %+v", got)
	}
}

// An onstart APIService created after the start by someone else, and any
// APIService without the label, are not the controller's.
func TestAPIServicesNotOursAreLeftAlone(t *testing.T) {
	s := newStore(apiService(apps, "", 99))
	c := started(s, func(c *Controller) {
		c.SyncOnStart(apiService(apps, "", 15))
		c.Sync(apiService(widgets, "", 100))
	})
	s.put(apiService(schema.GroupVersion{Group: "late.example.com", Version: "v1"}, OnStart, 15))
	s.items["v1.example.com"] = apiService(widgets, "", 5)
	c.Enqueue("v1.late.example.com")
	syncAll(t, c, s)
	wantWrites(t, s)
}

// A CRD's APIService (automanaged=true) is created again when deleted,
// put back when changed, and deleted when no longer wanted, at any time.
func TestContinuouslyManagedAPIServicesAreKept(t *testing.T) {
	s := newStore()
	c := started(s, func(c *Controller) { c.Sync(apiService(widgets, "", 100)) })
	syncAll(t, c, s)
	wantWrites(t, s, "create v1.example.com")
	if got := s.items["v1.example.com"]; got.Labels[Label] != Continuously {
		t.Fatalf("created with labels %v", got.Labels)
	}

	s.userEdit("v1.example.com", 7)
	syncName(t, c, s, "v1.example.com")
	wantWrites(t, s, "update v1.example.com")
	delete(s.items, "v1.example.com")
	syncName(t, c, s, "v1.example.com")
	wantWrites(t, s, "create v1.example.com")

	c.Remove("v1.example.com")
	syncAll(t, c, s)
	wantWrites(t, s, "delete v1.example.com")
	syncName(t, c, s, "v1.example.com")
	wantWrites(t, s)
}

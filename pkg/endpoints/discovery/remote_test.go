package discovery

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"sync"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// flunders is what a remote server publishes for wardle.example.com/v1alpha1.
func flunders(freshness apidiscoveryv2.DiscoveryFreshness) apidiscoveryv2.APIVersionDiscovery {
	return apidiscoveryv2.APIVersionDiscovery{
		Version: "v1alpha1",
		Resources: []apidiscoveryv2.APIResourceDiscovery{{
			Resource:         "flunders",
			ResponseKind:     &metav1.GroupVersionKind{Group: "wardle.example.com", Version: "v1alpha1", Kind: "Flunder"},
			Scope:            apidiscoveryv2.ScopeNamespace,
			SingularResource: "flunder",
			Verbs:            []string{"get", "list"},
		}},
		Freshness: freshness,
	}
}

func aggregatedGroupNamed(t *testing.T, h http.Handler, name string) (apidiscoveryv2.APIGroupDiscovery, string) {
	t.Helper()
	w := get(t, h, "/apis", acceptAggregated)
	var list apidiscoveryv2.APIGroupDiscoveryList
	if err := json.Unmarshal(w.Body.Bytes(), &list); err != nil {
		t.Fatal(err)
	}
	for _, g := range list.Items {
		if g.Name == name {
			return g, w.Header().Get("ETag")
		}
	}
	return apidiscoveryv2.APIGroupDiscovery{}, w.Header().Get("ETag")
}

// TestRemoteGroupVersion: a group version served by another server is
// listed by the legacy /apis and /apis/<group>, ordered by its APIService's
// priorities, carries the remote's own aggregated entry, and leaves its
// resource list to the remote server.
func TestRemoteGroupVersion(t *testing.T) {
	reg := referenceRegistry()
	h := mux(&Handler{Registry: reg})
	gv := schema.GroupVersion{Group: "wardle.example.com", Version: "v1alpha1"}
	reg.SetRemote(RemoteGroupVersion{GroupVersion: gv, GroupPriority: 20500, VersionPriority: 15, Discovery: flunders(apidiscoveryv2.DiscoveryFreshnessCurrent)})

	if reg.Has(gv) || !reg.HasGroup(gv.Group) || reg.HasResource(gv.Group, "flunders") {
		t.Errorf("Has=%v HasGroup=%v HasResource=%v, want false true false", reg.Has(gv), reg.HasGroup(gv.Group), reg.HasResource(gv.Group, "flunders"))
	}
	var groups metav1.APIGroupList
	if err := json.Unmarshal(get(t, h, "/apis", "").Body.Bytes(), &groups); err != nil {
		t.Fatal(err)
	}
	// Priority 20500 is above every built-in group: it comes first.
	want := metav1.APIGroup{
		Name:             gv.Group,
		Versions:         []metav1.GroupVersionForDiscovery{{GroupVersion: gv.String(), Version: gv.Version}},
		PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: gv.String(), Version: gv.Version},
	}
	if len(groups.Groups) == 0 || !reflect.DeepEqual(groups.Groups[0], want) {
		t.Errorf("/apis groups = %+v, want %+v first", groups.Groups, want)
	}
	var group metav1.APIGroup
	if err := json.Unmarshal(get(t, h, "/apis/"+gv.Group, "").Body.Bytes(), &group); err != nil {
		t.Fatal(err)
	}
	if group.Name != gv.Group || !reflect.DeepEqual(group.Versions, want.Versions) {
		t.Errorf("/apis/%s = %+v", gv.Group, group)
	}
	if w := get(t, h, "/apis/"+gv.String(), ""); w.Code != http.StatusNotFound {
		t.Errorf("/apis/%s is served by the registry (%d): it is the remote server's", gv, w.Code)
	}

	g, _ := aggregatedGroupNamed(t, h, gv.Group)
	if len(g.Versions) != 1 || !reflect.DeepEqual(g.Versions[0], flunders(apidiscoveryv2.DiscoveryFreshnessCurrent)) {
		t.Errorf("aggregated versions = %+v", g.Versions)
	}
}

// TestRemoteGroupVersionRefresh: setting what is served already keeps the
// documents and their ETag; a change of freshness is a change.
func TestRemoteGroupVersionRefresh(t *testing.T) {
	reg := referenceRegistry()
	h := mux(&Handler{Registry: reg})
	gv := schema.GroupVersion{Group: "wardle.example.com", Version: "v1alpha1"}
	remote := RemoteGroupVersion{GroupVersion: gv, GroupPriority: 1000, VersionPriority: 15, Discovery: flunders(apidiscoveryv2.DiscoveryFreshnessCurrent)}
	reg.SetRemote(remote)
	_, etag := aggregatedGroupNamed(t, h, gv.Group)
	d := reg.docs()
	reg.SetRemote(remote)
	if reg.docs() != d {
		t.Error("setting an unchanged remote group version built the documents again")
	}
	if _, again := aggregatedGroupNamed(t, h, gv.Group); again != etag {
		t.Errorf("ETag changed from %s to %s on an unchanged refresh", etag, again)
	}
	remote.Discovery.Freshness = apidiscoveryv2.DiscoveryFreshnessStale
	reg.SetRemote(remote)
	g, stale := aggregatedGroupNamed(t, h, gv.Group)
	if stale == etag || len(g.Versions) != 1 || g.Versions[0].Freshness != apidiscoveryv2.DiscoveryFreshnessStale {
		t.Errorf("after going stale: ETag %s (was %s), versions %+v", stale, etag, g.Versions)
	}
}

// TestRemoteGroupVersionOrdering: versions of a group from local and
// remote servers are ordered together, by version priority; the group
// takes the highest group priority of its versions.
func TestRemoteGroupVersionOrdering(t *testing.T) {
	reg := NewRegistry()
	h := mux(&Handler{Registry: reg})
	reg.Set(GroupVersion{
		GroupVersion: schema.GroupVersion{Group: "mixed.example.com", Version: "v1"}, GroupPriority: 100, VersionPriority: 10,
		Resources: []metav1.APIResource{{Name: "things", Kind: "Thing", Verbs: []string{"get"}}},
	})
	reg.Set(GroupVersion{
		GroupVersion: schema.GroupVersion{Group: "middle.example.com", Version: "v1"}, GroupPriority: 500,
		Resources: []metav1.APIResource{{Name: "things", Kind: "Thing", Verbs: []string{"get"}}},
	})
	reg.SetRemote(RemoteGroupVersion{GroupVersion: schema.GroupVersion{Group: "mixed.example.com", Version: "v2beta1"}, GroupPriority: 1000, VersionPriority: 20})

	var groups metav1.APIGroupList
	if err := json.Unmarshal(get(t, h, "/apis", "").Body.Bytes(), &groups); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range groups.Groups {
		for _, v := range g.Versions {
			got = append(got, v.GroupVersion)
		}
	}
	want := []string{"mixed.example.com/v2beta1", "mixed.example.com/v1", "middle.example.com/v1"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("/apis versions = %q, want %q", got, want)
	}
	g, _ := aggregatedGroupNamed(t, h, "mixed.example.com")
	if len(g.Versions) != 2 || g.Versions[0].Version != "v2beta1" || g.Versions[1].Version != "v1" {
		t.Errorf("aggregated mixed.example.com = %+v", g.Versions)
	}
}

// TestRemoteGroupVersionHidesLocal: a remote group version takes the name
// from a local one while it is set, and gives it back when removed.
func TestRemoteGroupVersionHidesLocal(t *testing.T) {
	reg := referenceRegistry()
	h := mux(&Handler{Registry: reg})
	apps := schema.GroupVersion{Group: "apps", Version: "v1"}
	reg.SetRemote(RemoteGroupVersion{GroupVersion: apps, GroupPriority: 17800, VersionPriority: 15, Discovery: apidiscoveryv2.APIVersionDiscovery{Freshness: apidiscoveryv2.DiscoveryFreshnessStale}})
	if reg.Has(apps) || reg.HasResource("apps", "deployments") {
		t.Error("apps/v1 is still served locally while a remote server serves it")
	}
	if w := get(t, h, "/apis/apps/v1", ""); w.Code != http.StatusNotFound {
		t.Errorf("/apis/apps/v1 is served from the registry (%d)", w.Code)
	}
	g, _ := aggregatedGroupNamed(t, h, "apps")
	if len(g.Versions) != 1 || g.Versions[0].Version != "v1" || len(g.Versions[0].Resources) != 0 || g.Versions[0].Freshness != apidiscoveryv2.DiscoveryFreshnessStale {
		t.Errorf("aggregated apps = %+v", g.Versions)
	}
	reg.RemoveRemote(apps)
	if !reg.Has(apps) || get(t, h, "/apis/apps/v1", "").Code != http.StatusOK {
		t.Error("apps/v1 is not served locally again after the remote one was removed")
	}
	if g, _ := aggregatedGroupNamed(t, h, "apps"); len(g.Versions) != 1 || len(g.Versions[0].Resources) == 0 {
		t.Errorf("aggregated apps after removal = %+v", g.Versions)
	}
}

// TestConcurrentRemoteRefreshWhileServing: remote group versions refreshed
// (fresh, stale, removed) while clients read every document: each answer
// is whole (run with -race).
func TestConcurrentRemoteRefreshWhileServing(t *testing.T) {
	reg := referenceRegistry()
	h := mux(&Handler{Registry: reg})
	gv := schema.GroupVersion{Group: "wardle.example.com", Version: "v1alpha1"}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(done)
		for i := range 300 {
			switch i % 3 {
			case 0:
				reg.SetRemote(RemoteGroupVersion{GroupVersion: gv, GroupPriority: 1000, Discovery: flunders(apidiscoveryv2.DiscoveryFreshnessCurrent)})
			case 1:
				reg.SetRemote(RemoteGroupVersion{GroupVersion: gv, GroupPriority: 1000, Discovery: apidiscoveryv2.APIVersionDiscovery{Freshness: apidiscoveryv2.DiscoveryFreshnessStale}})
			default:
				reg.RemoveRemote(gv)
			}
		}
	})
	errs := make(chan error, 3)
	for _, rq := range []struct{ path, accept string }{{"/apis", ""}, {"/apis", acceptAggregated}, {"/apis/wardle.example.com", ""}} {
		wg.Go(func() {
			for n := 0; ; n++ {
				select {
				case <-done:
					if n > 0 {
						return
					}
				default:
				}
				w := get(t, h, rq.path, rq.accept)
				if (w.Code != http.StatusOK && !(rq.path == "/apis/wardle.example.com" && w.Code == http.StatusNotFound)) ||
					(w.Code == http.StatusOK && !json.Valid(w.Body.Bytes())) {
					errs <- fmt.Errorf("%s (%s): %d %q", rq.path, rq.accept, w.Code, w.Body)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if reg.HasGroup(gv.Group) {
		t.Error("the group is served after the last RemoveRemote")
	}
}

// TestBuildsCountsChanges: the documents are built once per change, when
// asked for, however many clients ask.
func TestBuildsCountsChanges(t *testing.T) {
	reg := referenceRegistry()
	h := mux(&Handler{Registry: reg})
	if reg.Builds() != 0 {
		t.Fatalf("built %d times before any request", reg.Builds())
	}
	for range 3 {
		get(t, h, "/apis", acceptAggregated)
	}
	gv := schema.GroupVersion{Group: "wardle.example.com", Version: "v1alpha1"}
	remote := RemoteGroupVersion{GroupVersion: gv, Discovery: flunders(apidiscoveryv2.DiscoveryFreshnessCurrent)}
	reg.SetRemote(remote)
	reg.SetRemote(remote) // no change
	for range 3 {
		get(t, h, "/apis", "")
	}
	if reg.Builds() != 2 {
		t.Errorf("built %d times for two states, want 2", reg.Builds())
	}
}

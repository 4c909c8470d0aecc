// Package discovery serves what the API offers: the legacy documents
// (/api, /apis, /apis/<group>, /apis/<group>/<version>) and aggregated
// discovery (apidiscovery.k8s.io/v2), from one registry of served group
// versions that every server of the delegation chain adds to.
package discovery

import (
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
)

// StorageVersionHash is kube-apiserver's opaque hash of a storage version:
// the first 8 bytes of the SHA-256 of "group/version/kind", in base64.
// Clients only compare it for equality to notice storage version changes.
func StorageVersionHash(gvk schema.GroupVersionKind) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s/%s/%s", gvk.Group, gvk.Version, gvk.Kind)))
	return base64.StdEncoding.EncodeToString(sum[:8])
}

// GroupVersion is one served group version and its resources, in the form
// of the legacy document (metav1.APIResource; subresources are entries
// named "resource/subresource").
type GroupVersion struct {
	GroupVersion schema.GroupVersion
	Resources    []metav1.APIResource
	// Priority orders the groups and versions: higher first. Versions of
	// a group are ordered by their own priority, the first being the
	// preferred one.
	GroupPriority   int
	VersionPriority int
}

// RemoteGroupVersion is a group version another server serves, behind an
// APIService of the aggregator (see pkg/aggregator/discovery). Its entry
// in aggregated discovery is the one that server publishes, as fetched;
// the legacy /apis and /apis/<group> list it; its /apis/<group>/<version>
// is the remote server's own, proxied, not served from the registry.
type RemoteGroupVersion struct {
	GroupVersion schema.GroupVersion
	// The APIService's groupPriorityMinimum and versionPriority.
	GroupPriority   int
	VersionPriority int
	// Discovery is the version's entry in aggregated discovery, with its
	// freshness (Stale when the last fetch failed). Its Version is that
	// of GroupVersion whatever it says.
	Discovery apidiscoveryv2.APIVersionDiscovery
}

// Registry holds the served group versions. It is safe for concurrent use:
// CRDs add and remove group versions while clients read.
//
// A group version is either local (Set: its documents are built from its
// resources) or remote (SetRemote); a remote one hides a local one of the
// same name, as an APIService with a service takes a group version from
// the local servers in kube-aggregator.
type Registry struct {
	mu     sync.RWMutex
	byGV   map[schema.GroupVersion]GroupVersion
	remote map[schema.GroupVersion]RemoteGroupVersion
	cached *documents // built lazily after each change
	builds atomic.Uint64
}

// Builds counts the times the documents were built: once after each
// change, when first asked for (kube-apiserver counts the same as
// aggregator_discovery_aggregation_count_total).
func (r *Registry) Builds() uint64 { return r.builds.Load() }

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{byGV: map[schema.GroupVersion]GroupVersion{}, remote: map[schema.GroupVersion]RemoteGroupVersion{}}
}

// Set adds or replaces a group version.
func (r *Registry) Set(gv GroupVersion) {
	r.mu.Lock()
	defer r.mu.Unlock()
	res := append([]metav1.APIResource(nil), gv.Resources...)
	sort.Slice(res, func(i, j int) bool { return res[i].Name < res[j].Name })
	gv.Resources = res
	r.byGV[gv.GroupVersion] = gv
	r.cached = nil
}

// Remove removes a group version.
func (r *Registry) Remove(gv schema.GroupVersion) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.byGV, gv)
	r.cached = nil
}

// SetRemote adds or replaces a remote group version. Setting what is
// already there (a periodic refresh that found nothing new) changes
// nothing: the documents keep their encodings and ETags.
func (r *Registry) SetRemote(gv RemoteGroupVersion) {
	gv.Discovery = *gv.Discovery.DeepCopy()
	gv.Discovery.Version = gv.GroupVersion.Version
	r.mu.Lock()
	defer r.mu.Unlock()
	if old, ok := r.remote[gv.GroupVersion]; ok && equality.Semantic.DeepEqual(old, gv) {
		return
	}
	r.remote[gv.GroupVersion] = gv
	r.cached = nil
}

// RemoveRemote removes a remote group version; a local one of the same
// name is served again.
func (r *Registry) RemoveRemote(gv schema.GroupVersion) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.remote[gv]; ok {
		delete(r.remote, gv)
		r.cached = nil
	}
}

// Has reports whether gv is served locally, that is whether the registry
// serves its /apis/<group>/<version>.
func (r *Registry) Has(gv schema.GroupVersion) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	_, ok := r.byGV[gv]
	_, remote := r.remote[gv]
	return ok && !remote
}

// GroupVersions returns the served group versions, ordered by group and
// version name. Their Resources must not be changed.
func (r *Registry) GroupVersions() []GroupVersion {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]GroupVersion, 0, len(r.byGV))
	for _, gv := range r.byGV {
		out = append(out, gv)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].GroupVersion, out[j].GroupVersion
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		return a.Version < b.Version
	})
	return out
}

// HasGroup reports whether any version of group is served, locally or
// remotely.
func (r *Registry) HasGroup(group string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for gv := range r.byGV {
		if gv.Group == group {
			return true
		}
	}
	for gv := range r.remote {
		if gv.Group == group {
			return true
		}
	}
	return false
}

// HasResource reports whether any locally served version of group has
// resource. What remote servers serve is theirs to know.
func (r *Registry) HasResource(group, resource string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for gv, v := range r.byGV {
		if _, remote := r.remote[gv]; gv.Group != group || remote {
			continue
		}
		for _, res := range v.Resources {
			if res.Name == resource {
				return true
			}
		}
	}
	return false
}

// documents are the discovery documents of one state of the registry,
// built once per change and shared by every request until the next.
type documents struct {
	legacyVersions []string                                        // /api
	groups         []metav1.APIGroup                               // /apis, in order
	groupByName    map[string]*metav1.APIGroup                     // /apis/<group>
	resourceLists  map[schema.GroupVersion]*metav1.APIResourceList // /apis/<g>/<v>, /api/v1
	aggregatedAPI  *apidiscoveryv2.APIGroupDiscoveryList           // /api, aggregated
	aggregatedAPIs *apidiscoveryv2.APIGroupDiscoveryList           // /apis, aggregated

	// encoded are the aggregated documents as sent, by document and media
	// type, encoded on first request. With a thousand CRDs /apis is half
	// a megabyte, and every kubectl whose discovery cache is stale asks
	// for it: encoding and hashing it once per change, not per request,
	// is most of the cost of answering.
	encodedMu sync.Mutex
	encoded   map[encodingKey]*encodedDocument
}

type encodingKey struct {
	list      *apidiscoveryv2.APIGroupDiscoveryList
	mediaType string
}

// encodedDocument is one encoding of an aggregated document and its ETag.
type encodedDocument struct {
	once sync.Once
	body []byte
	etag string
	err  error
}

// encodedAggregated returns the encoding of list (one of d's aggregated
// documents) by ser, made once per media type.
func (d *documents) encodedAggregated(list *apidiscoveryv2.APIGroupDiscoveryList, mediaType string, ser runtime.Encoder) *encodedDocument {
	key := encodingKey{list, mediaType}
	d.encodedMu.Lock()
	if d.encoded == nil {
		d.encoded = map[encodingKey]*encodedDocument{}
	}
	e, ok := d.encoded[key]
	if !ok {
		e = &encodedDocument{}
		d.encoded[key] = e
	}
	d.encodedMu.Unlock()
	e.once.Do(func() {
		// The list is shared by every request and already carries its
		// apiVersion and kind: encode it as is. A versioning encoder
		// would set its kind while encoding, a data race between
		// requests.
		e.body, e.err = runtime.Encode(ser, list)
		if e.err == nil {
			e.etag = fmt.Sprintf("%q", fmt.Sprintf("%X", sha512.Sum512(e.body)))
		}
	})
	return e
}

func (r *Registry) docs() *documents {
	r.mu.RLock()
	d := r.cached
	r.mu.RUnlock()
	if d != nil {
		return d
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cached == nil {
		r.cached = build(r.byGV, r.remote)
		r.builds.Add(1)
	}
	return r.cached
}

// servedVersion is a local or a remote group version, as build orders
// them.
type servedVersion struct {
	GroupVersion    schema.GroupVersion
	Resources       []metav1.APIResource
	GroupPriority   int
	VersionPriority int
	remote          *RemoteGroupVersion // nil for a local one
}

// build computes every document from the served group versions.
func build(byGV map[schema.GroupVersion]GroupVersion, remote map[schema.GroupVersion]RemoteGroupVersion) *documents {
	d := &documents{
		groupByName:    map[string]*metav1.APIGroup{},
		resourceLists:  map[schema.GroupVersion]*metav1.APIResourceList{},
		aggregatedAPI:  newAggregatedList(),
		aggregatedAPIs: newAggregatedList(),
	}
	// Group the versions, order versions within each group and groups
	// among themselves: a group by the highest priority of its versions,
	// as kube-aggregator orders the groups of its APIServices.
	byGroup := map[string][]servedVersion{}
	groupPriority := map[string]int{}
	add := func(v servedVersion) {
		g := v.GroupVersion.Group
		if p, ok := groupPriority[g]; !ok || v.GroupPriority > p {
			groupPriority[g] = v.GroupPriority
		}
		byGroup[g] = append(byGroup[g], v)
	}
	for gv, v := range byGV {
		if _, ok := remote[gv]; !ok {
			add(servedVersion{GroupVersion: gv, Resources: v.Resources, GroupPriority: v.GroupPriority, VersionPriority: v.VersionPriority})
		}
	}
	for _, v := range remote {
		add(servedVersion{GroupVersion: v.GroupVersion, GroupPriority: v.GroupPriority, VersionPriority: v.VersionPriority, remote: &v})
	}
	names := make([]string, 0, len(byGroup))
	for name, versions := range byGroup {
		sort.Slice(versions, func(i, j int) bool {
			if versions[i].VersionPriority != versions[j].VersionPriority {
				return versions[i].VersionPriority > versions[j].VersionPriority
			}
			return version.CompareKubeAwareVersionStrings(versions[i].GroupVersion.Version, versions[j].GroupVersion.Version) > 0
		})
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool {
		pi, pj := groupPriority[names[i]], groupPriority[names[j]]
		if pi != pj {
			return pi > pj
		}
		return names[i] < names[j]
	})

	for _, name := range names {
		versions := byGroup[name]
		for _, gv := range versions {
			if gv.remote != nil {
				continue // the remote server serves its resource list
			}
			tm := metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}
			if name == "" {
				// kube-apiserver leaves apiVersion out of /api/v1 (but
				// not out of /apis/<group>/<version>).
				tm.APIVersion = ""
			}
			d.resourceLists[gv.GroupVersion] = &metav1.APIResourceList{
				TypeMeta:     tm,
				GroupVersion: gv.GroupVersion.String(),
				APIResources: gv.Resources,
			}
		}
		agg := aggregatedGroup(name, versions)
		if name == "" {
			for _, gv := range versions {
				d.legacyVersions = append(d.legacyVersions, gv.GroupVersion.Version)
			}
			d.aggregatedAPI.Items = append(d.aggregatedAPI.Items, agg)
			continue
		}
		g := metav1.APIGroup{Name: name}
		for _, gv := range versions {
			g.Versions = append(g.Versions, metav1.GroupVersionForDiscovery{GroupVersion: gv.GroupVersion.String(), Version: gv.GroupVersion.Version})
		}
		g.PreferredVersion = g.Versions[0]
		d.groups = append(d.groups, g)
		d.aggregatedAPIs.Items = append(d.aggregatedAPIs.Items, agg)
	}
	for i := range d.groups {
		d.groupByName[d.groups[i].Name] = &d.groups[i]
	}
	return d
}

func newAggregatedList() *apidiscoveryv2.APIGroupDiscoveryList {
	return &apidiscoveryv2.APIGroupDiscoveryList{
		TypeMeta: metav1.TypeMeta{Kind: "APIGroupDiscoveryList", APIVersion: apidiscoveryv2.SchemeGroupVersion.String()},
	}
}

// aggregatedGroup is the apidiscovery.k8s.io/v2 form of a group: each
// resource carries its subresources. Remote versions are as their servers
// published them.
func aggregatedGroup(name string, versions []servedVersion) apidiscoveryv2.APIGroupDiscovery {
	g := apidiscoveryv2.APIGroupDiscovery{ObjectMeta: metav1.ObjectMeta{Name: name}}
	for _, gv := range versions {
		if gv.remote != nil {
			g.Versions = append(g.Versions, gv.remote.Discovery)
			continue
		}
		g.Versions = append(g.Versions, AggregatedVersion(gv.GroupVersion.Version, gv.Resources))
	}
	return g
}

// AggregatedVersion is the apidiscovery.k8s.io/v2 entry of a version whose
// legacy resource list is resources (subresources named
// "resource/subresource"): each resource carries its subresources. The
// aggregator makes it of the resource list of a remote server that does
// not serve aggregated discovery.
func AggregatedVersion(version string, resources []metav1.APIResource) apidiscoveryv2.APIVersionDiscovery {
	v := apidiscoveryv2.APIVersionDiscovery{Version: version, Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent}
	// Resources first, then their subresources, so that a
	// subresource whose resource is not served gets a bare parent
	// entry after the served resources, as in kube-apiserver.
	index := map[string]int{}
	for _, r := range resources {
		if !strings.Contains(r.Name, "/") {
			index[r.Name] = len(v.Resources)
			v.Resources = append(v.Resources, aggregatedResource(r))
		}
	}
	for _, r := range resources {
		parent, sub, isSub := strings.Cut(r.Name, "/")
		if !isSub {
			continue
		}
		i, ok := index[parent]
		if !ok {
			i = len(v.Resources)
			index[parent] = i
			v.Resources = append(v.Resources, apidiscoveryv2.APIResourceDiscovery{
				Resource:     parent,
				Scope:        aggregatedResource(r).Scope,
				ResponseKind: &metav1.GroupVersionKind{},
			})
		}
		v.Resources[i].Subresources = append(v.Resources[i].Subresources, apidiscoveryv2.APISubresourceDiscovery{
			Subresource:  sub,
			ResponseKind: &metav1.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind},
			Verbs:        r.Verbs,
		})
	}
	return v
}

func aggregatedResource(r metav1.APIResource) apidiscoveryv2.APIResourceDiscovery {
	scope := apidiscoveryv2.ScopeCluster
	if r.Namespaced {
		scope = apidiscoveryv2.ScopeNamespace
	}
	return apidiscoveryv2.APIResourceDiscovery{
		Resource:         r.Name,
		ResponseKind:     &metav1.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind},
		Scope:            scope,
		SingularResource: r.SingularName,
		Verbs:            r.Verbs,
		ShortNames:       r.ShortNames,
		Categories:       r.Categories,
	}
}

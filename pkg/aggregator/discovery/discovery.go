// Package discovery puts the group versions of remote APIServices (those
// with a service) into the discovery documents, as kube-aggregator's
// discovery manager does:
//
//   - Every remote APIService is listed, available or not: its group and
//     version appear in the legacy /apis and /apis/<group>, ordered by its
//     groupPriorityMinimum and versionPriority; /apis/<group>/<version> is
//     the remote server's own (the proxy serves it).
//   - Its entry in aggregated discovery (apidiscovery.k8s.io/v2) is the one
//     the remote server publishes at /apis, fetched with the server's ETag.
//     A server that does not answer in apidiscovery.k8s.io/v2 is asked for
//     its legacy /apis/<group>/<version> instead, converted.
//   - It is fetched when the APIService is added or changes (the status
//     the availability controller writes is a change: a server that
//     becomes available is asked at once), and every minute after a
//     success; a failure is retried with a backoff of half a second
//     doubling up to a minute.
//   - A failed fetch leaves the version listed with no resources and
//     freshness Stale, which clients take as a failed group version, as
//     kube-aggregator does whatever it fetched before (its proxy answers
//     503 and the manager keeps nothing of an error).
//   - A deleted APIService leaves discovery.
//
// Several APIServices served by one service (namespace, name, port) share
// one fetch of its /apis: a fetch made after an APIService last changed
// serves it, so that a server with ten group versions is asked once.
//
// Requests go out as user system:kube-aggregator in group system:masters
// (the legacy fallback without the group), with the proxy's transport.
package discovery

import (
	"context"
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/workqueue"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"sigs.k8s.io/json"

	"github.com/kapi-dev/kapi/pkg/aggregator/remote"
	"github.com/kapi-dev/kapi/pkg/endpoints/discovery"
)

// kube-aggregator's timings.
const (
	DefaultRefreshInterval = time.Minute
	DefaultTimeout         = 5 * time.Second
	retryBase              = 500 * time.Millisecond
)

// acceptV2 is what kube-aggregator asks a remote server's /apis for.
const acceptV2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

var (
	discoveryUser = remote.User{Name: "system:kube-aggregator", Groups: []string{"system:masters"}}
	legacyUser    = remote.User{Name: "system:kube-aggregator"}
)

// Config configures a Manager.
type Config struct {
	// Registry is the chain's discovery registry the remote group versions
	// are set in.
	Registry *discovery.Registry
	// Transport reaches the remote servers.
	Transport remote.Transport
	Logger    *slog.Logger
	// RefreshInterval is how often a remote server is asked again after a
	// success, and the longest wait between retries after failures;
	// DefaultRefreshInterval if zero.
	RefreshInterval time.Duration
	// Timeout bounds one request to a remote server; DefaultTimeout if
	// zero.
	Timeout time.Duration
}

// Manager keeps the remote group versions of the discovery registry in
// step with the APIServices and what their servers publish. Tell it of
// every APIService the informer sees (AddAPIService, RemoveAPIService);
// Run does the fetching.
type Manager struct {
	registry  *discovery.Registry
	transport remote.Transport
	log       *slog.Logger
	refresh   time.Duration
	timeout   time.Duration
	queue     workqueue.TypedRateLimitingInterface[string]

	mu sync.Mutex
	// apiServices are the remote APIServices, by name.
	apiServices map[string]*apiServiceInfo
	// fetched are the aggregated documents of the services, by service.
	fetched map[serviceKey]*fetchedDocument
	// fetching serializes the fetches of a service: the APIServices of a
	// server synced at once (at start) wait for one fetch.
	fetching map[serviceKey]*sync.Mutex
}

// apiServiceInfo is what the manager knows of an APIService.
type apiServiceInfo struct {
	apiService *apiregistrationv1.APIService
	service    serviceKey
	// changed is when the APIService was last added, changed or found due
	// for a refresh: a document fetched before then does not serve it.
	changed time.Time
}

// serviceKey names the server of an APIService.
type serviceKey struct {
	namespace, name string
	port            int32
}

func (k serviceKey) String() string { return fmt.Sprintf("%s/%s:%d", k.namespace, k.name, k.port) }

func serviceKeyOf(s *apiregistrationv1.ServiceReference) serviceKey {
	port := int32(443)
	if s.Port != nil {
		port = *s.Port
	}
	return serviceKey{namespace: s.Namespace, name: s.Name, port: port}
}

// fetchedDocument is a server's aggregated discovery document, by group
// version.
type fetchedDocument struct {
	versions map[schema.GroupVersion]apidiscoveryv2.APIVersionDiscovery
	etag     string
	// fetched is when the request that got it was sent.
	fetched time.Time
}

// New returns a Manager that does nothing until Run.
func New(c Config) *Manager {
	if c.RefreshInterval == 0 {
		c.RefreshInterval = DefaultRefreshInterval
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return &Manager{
		registry:  c.Registry,
		transport: c.Transport,
		log:       c.Logger,
		refresh:   c.RefreshInterval,
		timeout:   c.Timeout,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.NewTypedItemExponentialFailureRateLimiter[string](retryBase, c.RefreshInterval),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "discovery-manager"},
		),
		apiServices: map[string]*apiServiceInfo{},
		fetched:     map[serviceKey]*fetchedDocument{},
		fetching:    map[serviceKey]*sync.Mutex{},
	}
}

// AddAPIService tells the manager of an added or changed APIService. Local
// ones (no service) are the local servers' to describe and are ignored.
func (m *Manager) AddAPIService(apiService *apiregistrationv1.APIService) {
	if apiService.Spec.Service == nil {
		// It may have had one before.
		m.RemoveAPIService(apiService.Name)
		return
	}
	m.mu.Lock()
	m.apiServices[apiService.Name] = &apiServiceInfo{
		apiService: apiService.DeepCopy(),
		service:    serviceKeyOf(apiService.Spec.Service),
		changed:    time.Now(),
	}
	m.forgetUnusedLocked()
	m.mu.Unlock()
	m.queue.Add(apiService.Name)
}

// RemoveAPIService tells the manager that an APIService is gone.
func (m *Manager) RemoveAPIService(name string) {
	m.mu.Lock()
	_, ok := m.apiServices[name]
	delete(m.apiServices, name)
	m.forgetUnusedLocked()
	m.mu.Unlock()
	if ok {
		m.queue.Add(name)
	}
}

// forgetUnusedLocked drops the documents of services no APIService uses.
func (m *Manager) forgetUnusedLocked() {
	used := map[serviceKey]bool{}
	for _, info := range m.apiServices {
		used[info.service] = true
	}
	for k := range m.fetched {
		if !used[k] {
			delete(m.fetched, k)
		}
	}
	for k := range m.fetching {
		if !used[k] {
			delete(m.fetching, k)
		}
	}
}

// Run fetches the discovery of every APIService known so far, in
// parallel, then calls synced (if not nil): from then on every remote
// APIService is in the registry, stale if its server did not answer, as
// kube-aggregator's readiness waits for. It then keeps the registry up
// to date with workers goroutines until ctx is done.
func (m *Manager) Run(ctx context.Context, workers int, synced func()) {
	defer m.queue.ShutDown()
	go func() {
		<-ctx.Done()
		m.queue.ShutDown()
	}()
	m.mu.Lock()
	names := make([]string, 0, len(m.apiServices))
	for name := range m.apiServices {
		names = append(names, name)
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, name := range names {
		wg.Go(func() { _ = m.sync(ctx, name) })
	}
	wg.Wait()
	if synced != nil {
		synced()
	}

	wg = sync.WaitGroup{}
	for range workers {
		wg.Go(func() {
			for m.next(ctx) {
			}
		})
	}
	wg.Wait()
}

func (m *Manager) next(ctx context.Context) bool {
	name, quit := m.queue.Get()
	if quit {
		return false
	}
	defer m.queue.Done(name)
	if err := m.sync(ctx, name); err != nil {
		m.log.Info("Discovery of an APIService failed", "apiservice", name, "err", err)
		m.queue.AddRateLimited(name)
		return true
	}
	m.queue.Forget(name)
	m.markDue(name)
	m.queue.AddAfter(name, m.refresh)
	return true
}

// markDue makes the next sync of an APIService fetch again.
func (m *Manager) markDue(name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if info, ok := m.apiServices[name]; ok {
		info.changed = time.Now()
	}
}

// groupVersionOf parses an APIService name, "<version>.<group>".
func groupVersionOf(name string) schema.GroupVersion {
	version, group, _ := strings.Cut(name, ".")
	return schema.GroupVersion{Group: group, Version: version}
}

// sync puts an APIService's group version in the registry as its server
// describes it now, or takes it out if the APIService is gone. It fails
// if the server could not be asked; the version is then listed as stale.
func (m *Manager) sync(ctx context.Context, name string) error {
	m.mu.Lock()
	info, ok := m.apiServices[name]
	var snapshot apiServiceInfo
	if ok {
		snapshot = *info
	}
	m.mu.Unlock()
	if !ok {
		m.registry.RemoveRemote(groupVersionOf(name))
		return nil
	}
	gv := schema.GroupVersion{Group: snapshot.apiService.Spec.Group, Version: snapshot.apiService.Spec.Version}
	entry := apidiscoveryv2.APIVersionDiscovery{Version: gv.Version}
	doc, err := m.fetch(ctx, gv, &snapshot)
	if err == nil {
		if v, ok := doc.versions[gv]; ok {
			entry = v
		}
		entry.Freshness = apidiscoveryv2.DiscoveryFreshnessCurrent
	} else {
		entry.Freshness = apidiscoveryv2.DiscoveryFreshnessStale
	}
	// The APIService may have gone while its server was asked.
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.apiServices[name]; !ok {
		m.registry.RemoveRemote(groupVersionOf(name))
		return nil
	}
	m.registry.SetRemote(discovery.RemoteGroupVersion{
		GroupVersion:    gv,
		GroupPriority:   int(snapshot.apiService.Spec.GroupPriorityMinimum),
		VersionPriority: int(snapshot.apiService.Spec.VersionPriority),
		Discovery:       entry,
	})
	return err
}

// fetch returns the discovery document of the APIService's server: the
// one fetched already if it was fetched after the APIService last
// changed, else a new one (revalidated with its ETag).
func (m *Manager) fetch(ctx context.Context, gv schema.GroupVersion, info *apiServiceInfo) (*fetchedDocument, error) {
	m.mu.Lock()
	serial, ok := m.fetching[info.service]
	if !ok {
		serial = &sync.Mutex{}
		m.fetching[info.service] = serial
	}
	m.mu.Unlock()
	serial.Lock()
	defer serial.Unlock()
	m.mu.Lock()
	cached := m.fetched[info.service]
	m.mu.Unlock()
	if cached != nil && cached.fetched.After(info.changed) {
		return cached, nil
	}

	ctx, cancel := context.WithTimeout(ctx, m.timeout)
	defer cancel()
	header := http.Header{"Accept": {acceptV2}}
	if cached != nil && cached.etag != "" {
		header.Set("If-None-Match", cached.etag)
	}
	// Taken before the request: a change after it is sent is not in the
	// answer.
	now := time.Now()
	resp, err := remote.Get(ctx, m.transport, info.apiService, "/apis", discoveryUser, header)
	if err != nil {
		return nil, err
	}
	var doc *fetchedDocument
	switch {
	case resp.StatusCode == http.StatusNotModified && cached != nil:
		doc = &fetchedDocument{versions: cached.versions, etag: cached.etag, fetched: now}
	case resp.StatusCode == http.StatusServiceUnavailable:
		return nil, fmt.Errorf("service %s answered %d", info.service, resp.StatusCode)
	case resp.StatusCode == http.StatusOK && isAggregated(resp.Header.Get("Content-Type")):
		var list apidiscoveryv2.APIGroupDiscoveryList
		if err := json.UnmarshalCaseSensitivePreserveInts(resp.Body, &list); err != nil {
			return nil, fmt.Errorf("decoding the discovery of service %s: %w", info.service, err)
		}
		doc = &fetchedDocument{versions: byGroupVersion(&list), etag: resp.Header.Get("Etag"), fetched: now}
	default:
		// Not aggregated discovery: the legacy document of this group
		// version alone, kept for no other APIService.
		return m.fetchLegacy(ctx, gv, info, header.Get("If-None-Match"), now)
	}
	m.mu.Lock()
	if _, used := m.apiServices[info.apiService.Name]; used {
		m.fetched[info.service] = doc
	}
	m.mu.Unlock()
	return doc, nil
}

// fetchLegacy fetches /apis/<group>/<version> and converts it. Like
// kube-aggregator, it sends the ETag of the aggregated document it has,
// if any.
func (m *Manager) fetchLegacy(ctx context.Context, gv schema.GroupVersion, info *apiServiceInfo, etag string, now time.Time) (*fetchedDocument, error) {
	path := "/apis/" + gv.Group + "/" + gv.Version
	if gv.Group == "" {
		path = "/api/" + gv.Version
	}
	header := http.Header{"Accept": {"application/json"}}
	if etag != "" {
		header.Set("If-None-Match", etag)
	}
	resp, err := remote.Get(ctx, m.transport, info.apiService, path, legacyUser, header)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("service %s answered %d to %s", info.service, resp.StatusCode, path)
	}
	var list metav1.APIResourceList
	if err := json.UnmarshalCaseSensitivePreserveInts(resp.Body, &list); err != nil {
		return nil, fmt.Errorf("decoding %s of service %s: %w", path, info.service, err)
	}
	return &fetchedDocument{
		versions: map[schema.GroupVersion]apidiscoveryv2.APIVersionDiscovery{gv: discovery.AggregatedVersion(gv.Version, list.APIResources)},
		fetched:  now,
	}, nil
}

// byGroupVersion indexes a document, giving every resource a responseKind:
// client-go 0.26.0 to 0.26.3 fail on one without (kubernetes#118361).
func byGroupVersion(list *apidiscoveryv2.APIGroupDiscoveryList) map[schema.GroupVersion]apidiscoveryv2.APIVersionDiscovery {
	out := map[schema.GroupVersion]apidiscoveryv2.APIVersionDiscovery{}
	for _, g := range list.Items {
		for _, v := range g.Versions {
			for i := range v.Resources {
				if v.Resources[i].ResponseKind == nil {
					v.Resources[i].ResponseKind = &metav1.GroupVersionKind{}
				}
				for j := range v.Resources[i].Subresources {
					if v.Resources[i].Subresources[j].ResponseKind == nil {
						v.Resources[i].Subresources[j].ResponseKind = &metav1.GroupVersionKind{}
					}
				}
			}
			out[schema.GroupVersion{Group: g.Name, Version: v.Version}] = v
		}
	}
	return out
}

// isAggregated reports whether a Content-Type is that of an
// apidiscovery.k8s.io/v2 APIGroupDiscoveryList.
func isAggregated(contentType string) bool {
	_, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	return params["g"] == "apidiscovery.k8s.io" && params["v"] == "v2" && params["as"] == "APIGroupDiscoveryList"
}

// Package openapi serves the OpenAPI documents of the whole API, the local
// servers' and those of the remote servers behind APIServices, as
// kube-aggregator's OpenAPI controllers do:
//
//   - /openapi/v2 is the local document with each remote server's
//     /openapi/v2 merged in: only its paths under /apis/<group>/<version>/
//     of its APIService and the definitions they use; a path the document
//     has already is left out, a definition named as an existing different
//     one is renamed <name>_v2, _v3... (kube-openapi's merge, which
//     kube-aggregator uses), remote servers taken by priority (group, then
//     version, then name).
//   - /openapi/v3 lists the local documents and those of every remote
//     server's own /openapi/v3 index, a path listed already keeping its
//     first server, the local ones first (kube-aggregator takes them in no
//     set order: a remote server listing "version" was seen replacing
//     kube-apiserver's own); /openapi/v3/<path> of a remote one
//     is the remote server's answer, passed through with its hash, ETag and
//     cache headers, asked as the client (who the remote server sees, as
//     through the proxy). A remote server with no /openapi/v3 has its v2
//     document converted and served as apis/<group>/<version>.
//
// Remote documents are downloaded in the background, never while a client
// waits: when an APIService is added or changes, every minute after a
// success (revalidated with the server's ETag), and after a failure with a
// backoff from a minute to an hour. A server that fails keeps its last
// document in /openapi/v2, as kube-aggregator keeps it. Clients are
// served the last merged document, built once per change.
package openapi

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/util/workqueue"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"k8s.io/kube-openapi/pkg/cached"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/kapi-dev/kapi/pkg/aggregator/remote"
)

// kube-aggregator's timings.
const (
	DefaultRefreshInterval = time.Minute
	DefaultTimeout         = time.Minute
	maxRetryInterval       = time.Hour
)

// aggregatorUser is who the documents are downloaded as.
var aggregatorUser = remote.User{Name: "system:aggregator"}

// Local serves the local servers' documents (pkg/openapi.Service).
type Local interface {
	// ServeHTTP serves /openapi/v2, /openapi/v3 and /openapi/v3/<path>.
	http.Handler
	// OpenAPIV2Document is the v2 document, with an ETag that changes
	// with it.
	OpenAPIV2Document() cached.Value[*spec.Swagger]
}

// Config configures an Aggregator.
type Config struct {
	Local     Local
	Transport remote.Transport
	Logger    *slog.Logger
	// RefreshInterval is how often a remote server is asked again after a
	// success, and the first wait after a failure; DefaultRefreshInterval
	// if zero.
	RefreshInterval time.Duration
	// Timeout bounds one download; DefaultTimeout if zero.
	Timeout time.Duration
}

// Aggregator serves /openapi/ with the documents of remote servers. Tell
// it of every APIService the informer sees (AddAPIService,
// RemoveAPIService); RunV2 and RunV3 do the downloading.
type Aggregator struct {
	local     Local
	transport remote.Transport
	log       *slog.Logger
	refresh   time.Duration
	timeout   time.Duration
	// v2Queue and v3Queue are the APIServices whose /openapi/v2 and
	// /openapi/v3 are due, downloaded by RunV2 and RunV3 as
	// kube-aggregator's two controllers do.
	v2Queue, v3Queue workqueue.TypedRateLimitingInterface[string]

	mu sync.Mutex
	// remotes are the remote APIServices, by name.
	remotes map[string]*remoteSpecs
	// generation counts the changes of what remotes hold.
	generation int

	v2 *mergedV2
	v3 *mergedV3
}

// remoteSpecs is what is known of the documents of one APIService's
// server.
type remoteSpecs struct {
	apiService *apiregistrationv1.APIService

	// v2 is the last document downloaded, whole; v2Filtered is its part
	// merged into /openapi/v2; v2ETag is the server's ETag of it (or one
	// made of its content when the server sends none).
	v2         *spec.Swagger
	v2Filtered *spec.Swagger
	v2ETag     string

	// v3Paths are the documents the server lists in its /openapi/v3
	// index, with their serverRelativeURL; v3Converted says the server
	// has no /openapi/v3 and its v2 document is served converted.
	v3Paths     map[string]string
	v3Converted bool
}

// New returns an Aggregator serving the local documents alone until Run.
func New(c Config) *Aggregator {
	if c.RefreshInterval == 0 {
		c.RefreshInterval = DefaultRefreshInterval
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	a := &Aggregator{
		local:     c.Local,
		transport: c.Transport,
		log:       c.Logger,
		refresh:   c.RefreshInterval,
		timeout:   c.Timeout,
		v2Queue:   newQueue(c.RefreshInterval, "open_api_aggregation_controller"),
		v3Queue:   newQueue(c.RefreshInterval, "open_api_v3_aggregation_controller"),
		remotes:   map[string]*remoteSpecs{},
	}
	a.v2 = newMergedV2(a)
	a.v3 = newMergedV3(a)
	return a
}

// AddAPIService tells the aggregator of an added or changed APIService;
// its server's documents are downloaded again. Local ones (no service)
// are the local servers' to describe.
func (a *Aggregator) AddAPIService(apiService *apiregistrationv1.APIService) {
	if apiService.Spec.Service == nil {
		a.RemoveAPIService(apiService.Name)
		return
	}
	a.mu.Lock()
	r, ok := a.remotes[apiService.Name]
	if !ok {
		r = &remoteSpecs{}
		a.remotes[apiService.Name] = r
	}
	r.apiService = apiService.DeepCopy()
	a.generation++ // its priority may have changed
	a.mu.Unlock()
	for _, q := range []workqueue.TypedRateLimitingInterface[string]{a.v2Queue, a.v3Queue} {
		q.Forget(apiService.Name)
		q.Add(apiService.Name)
	}
}

// newQueue is a queue whose failed keys wait from refresh doubling up to
// an hour, as kube-aggregator's.
func newQueue(refresh time.Duration, name string) workqueue.TypedRateLimitingInterface[string] {
	return workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](refresh, max(refresh, maxRetryInterval)),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: name},
	)
}

// RemoveAPIService tells the aggregator that an APIService is gone: its
// documents leave at once.
func (a *Aggregator) RemoveAPIService(name string) {
	a.mu.Lock()
	r, ok := a.remotes[name]
	delete(a.remotes, name)
	if ok {
		a.generation++
	}
	a.mu.Unlock()
	if ok {
		a.v3.forgetConverted(r.apiService)
	}
	a.v2Queue.Forget(name)
	a.v3Queue.Forget(name)
}

// RunV2 downloads the remote /openapi/v2 documents with workers
// goroutines until ctx is done.
func (a *Aggregator) RunV2(ctx context.Context, workers int) {
	a.run(ctx, a.v2Queue, workers, a.syncV2)
}

// RunV3 downloads the remote /openapi/v3 indexes (and the v2 documents of
// servers with no v3) with workers goroutines until ctx is done.
func (a *Aggregator) RunV3(ctx context.Context, workers int) {
	a.run(ctx, a.v3Queue, workers, a.syncV3)
}

// run syncs the keys of queue until ctx is done: after a success again
// after the refresh interval, after a failure with backoff, not again if
// sync says so.
func (a *Aggregator) run(ctx context.Context, queue workqueue.TypedRateLimitingInterface[string], workers int, syncKey func(context.Context, string) (bool, error)) {
	go func() {
		<-ctx.Done()
		queue.ShutDown()
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				name, quit := queue.Get()
				if quit {
					return
				}
				again, err := syncKey(ctx, name)
				switch {
				case err != nil:
					a.log.Info("Downloading an OpenAPI document of an APIService failed", "apiservice", name, "err", err)
					queue.AddRateLimited(name)
				case again:
					queue.Forget(name)
					queue.AddAfter(name, a.refresh)
				default:
					queue.Forget(name)
				}
				queue.Done(name)
			}
		})
	}
	wg.Wait()
}

// current returns the APIService named name and its documents' state, or
// nil if it is gone.
func (a *Aggregator) current(name string) (*remoteSpecs, *apiregistrationv1.APIService, string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	r, ok := a.remotes[name]
	if !ok {
		return nil, nil, ""
	}
	return r, r.apiService, r.v2ETag
}

// syncV2 downloads the /openapi/v2 of an APIService's server. A server
// that fails keeps its last document; one with none (404) is not asked
// again until its APIService changes, as kube-aggregator gives up on it.
func (a *Aggregator) syncV2(ctx context.Context, name string) (again bool, err error) {
	r, apiService, etag := a.current(name)
	if r == nil {
		return false, nil
	}
	ctx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	v2, err := downloadV2(ctx, a.transport, apiService, etag)
	if err != nil {
		return false, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.remotes[name] != r || r.apiService != apiService {
		return false, nil // changed or gone meanwhile: queued again if changed
	}
	if v2.doc != nil {
		r.v2, r.v2ETag = v2.doc, v2.etag
		r.v2Filtered = filterV2(v2.doc, apiService)
		a.generation++
	}
	return !v2.notFound, nil
}

// syncV3 downloads the /openapi/v3 index of an APIService's server; for a
// server with none, it serves the conversion of its v2 document (the one
// syncV2 keeps, or one downloaded now).
func (a *Aggregator) syncV3(ctx context.Context, name string) (again bool, err error) {
	r, apiService, _ := a.current(name)
	if r == nil {
		return false, nil
	}
	ctx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	index, err := downloadV3Index(ctx, a.transport, apiService)
	if err != nil {
		return false, err
	}
	var v2 *spec.Swagger
	if index.notFound {
		a.mu.Lock()
		v2 = r.v2
		a.mu.Unlock()
		if v2 == nil {
			d, err := downloadV2(ctx, a.transport, apiService, "")
			if err != nil {
				return false, err
			}
			if d.notFound {
				return false, nil
			}
			v2 = d.doc
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.remotes[name] != r || r.apiService != apiService {
		return false, nil
	}
	if index.notFound != r.v3Converted || !equalPaths(index.paths, r.v3Paths) {
		a.generation++
	}
	r.v3Paths, r.v3Converted = index.paths, index.notFound
	if index.notFound {
		a.v3.convert(apiService, v2)
	} else {
		a.v3.forgetConverted(apiService)
	}
	return true, nil
}

func equalPaths(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// snapshot returns the remote APIServices with documents, in the order
// kube-aggregator merges them: by the highest groupPriorityMinimum of
// their group, then within a group by versionPriority, then by name.
func (a *Aggregator) snapshot() (generation int, specs []remoteSpecs) {
	a.mu.Lock()
	defer a.mu.Unlock()
	groupPriority := map[string]int32{}
	for _, r := range a.remotes {
		g := r.apiService.Spec.Group
		if p, ok := groupPriority[g]; !ok || r.apiService.Spec.GroupPriorityMinimum > p {
			groupPriority[g] = r.apiService.Spec.GroupPriorityMinimum
		}
	}
	for _, r := range a.remotes {
		specs = append(specs, *r)
	}
	less := func(x, y *apiregistrationv1.APIService) bool {
		var px, py int32
		if x.Spec.Group == y.Spec.Group {
			px, py = x.Spec.VersionPriority, y.Spec.VersionPriority
		} else {
			px, py = groupPriority[x.Spec.Group], groupPriority[y.Spec.Group]
		}
		if px != py {
			return px > py
		}
		return x.Name < y.Name
	}
	sortSpecs(specs, less)
	return a.generation, specs
}

func sortSpecs(specs []remoteSpecs, less func(x, y *apiregistrationv1.APIService) bool) {
	for i := 1; i < len(specs); i++ {
		for j := i; j > 0 && less(specs[j].apiService, specs[j-1].apiService); j-- {
			specs[j], specs[j-1] = specs[j-1], specs[j]
		}
	}
}

// ServeHTTP serves /openapi/v2, /openapi/v3 and /openapi/v3/<path>.
func (a *Aggregator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch path := r.URL.Path; {
	case path == "/openapi/v2":
		a.v2.ServeHTTP(w, r)
	case path == "/openapi/v3":
		a.v3.serveIndex(w, r)
	case strings.HasPrefix(path, "/openapi/v3/"):
		a.v3.serveDocument(w, r, strings.TrimPrefix(path, "/openapi/v3/"))
	default:
		a.local.ServeHTTP(w, r)
	}
}

// groupVersionPath is where the v3 document of an APIService is, as
// kube-aggregator names it.
func groupVersionPath(a *apiregistrationv1.APIService) string {
	return "apis/" + a.Spec.Group + "/" + a.Spec.Version
}

// Package resourcequota is the ResourceQuota admission plugin: a create
// or update in a namespace is charged to the quotas of the namespace
// that apply to it, and refused if it would take one of them past its
// hard limits, as kube-apiserver's plugin does.
//
// How a write is charged. The plugin validates (it changes no object)
// creates and updates. The evaluator of the write's resource (package
// evaluator) says whether the write can change usage and what the object
// uses; a quota applies when it limits one of those resources and the
// object is in all its scopes. Its status.hard is what kube's quota
// controller copied from spec.hard, and status.used is the usage: a
// quota whose status lacks a usage for a resource it limits refuses the
// write ("status unknown for quota"), as no controller has counted yet.
// The write's usage (on an update, only its growth) is added to each
// applying quota's status.used, through the loopback client, before the
// write is admitted. Nothing gives the charge back when the write then
// fails or the object is deleted: kube-controller-manager's quota
// controller recounts.
//
// Concurrency. Writes of a namespace are checked in batches, one batch
// of a namespace at a time (batcher): a batch is checked against the
// quotas in order, each write against the usage the earlier ones left,
// and the changed quotas are written once. A status write that conflicts
// (another server, or a client, wrote the quota) is retried with the
// quota read again from the server, up to three times. The quotas are read from an
// informer's cache, corrected by the quotas this plugin last wrote (see
// quotas). So concurrent creates against a tight quota never exceed it.
//
// Configuration: ResourceQuotaConfiguration's limitedResources, whose
// use is refused in a namespace without a quota that covers it.
package resourcequota

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/clock"
	"k8s.io/utils/lru"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/resourcequota/evaluator"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "ResourceQuota"

const (
	// workers bounds the namespaces checked at once.
	workers = 5
	// evaluationTimeout bounds how long a write waits for its verdict.
	evaluationTimeout = 10 * time.Second
	// retries is how many times conflicting status writes are retried.
	retries = 3
)

// Config is what the plugin needs.
type Config struct {
	// Configuration is the plugin's configuration (nil: none).
	Configuration *Configuration
	// Lister reads a namespace's quotas from the informer's cache;
	// HasSynced says whether it has synced once.
	Lister    NamespacedQuotaLister
	HasSynced func() bool
	// Client reads and writes a namespace's quotas on the server.
	Client func(namespace string) QuotaClient
	// Evaluators measure objects.
	Evaluators *evaluator.Registry
	// Self is the user this server's loopback client writes as: its
	// writes of quota status are known without reading them back.
	Self string
	// Clock is the time of the caches and of the evaluation timeout
	// (nil: the real clock).
	Clock clock.WithTicker
}

// Plugin is the ResourceQuota plugin.
type Plugin struct {
	admission.Handler
	limited    []LimitedResource
	evaluators *evaluator.Registry
	quotas     *quotas
	batcher    *batcher
	clock      clock.WithTicker
	self       string
}

var quotaResource = corev1.Resource("resourcequotas")

// New returns the plugin.
func New(cfg Config) *Plugin {
	c := cfg.Clock
	if c == nil {
		c = clock.RealClock{}
	}
	p := &Plugin{
		Handler:    admission.NewHandler(admission.Create, admission.Update),
		evaluators: cfg.Evaluators,
		clock:      c,
		self:       cfg.Self,
		quotas: &quotas{
			lister:    cfg.Lister,
			hasSynced: cfg.HasSynced,
			client:    cfg.Client,
			clock:     c,
			live:      lru.New(cachedEntries),
			written:   lru.New(cachedEntries),
		},
	}
	if cfg.Configuration != nil {
		p.limited = cfg.Configuration.LimitedResources
	}
	p.batcher = newBatcher(workers, p.checkBatch)
	return p
}

// Validate charges the write to the quotas of its namespace, or refuses
// it. Cluster-scoped writes, and the creation of namespaces, are not
// charged.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	if a.Namespace == "" || a.Operation == admission.Create && a.Kind.Group == "" && a.Kind.Kind == "Namespace" {
		return nil
	}
	gr := a.Resource.GroupResource()
	if gr == quotaResource && !a.DryRun && (a.User == nil || a.User.GetName() != p.self) {
		p.quotas.wroteQuota(a.Namespace, a.Name, resourceVersion(a.OldObject))
	}
	if evaluator.Ignored(gr) || !p.evaluators.For(gr).Handles(a) {
		return nil
	}
	w := &waiter{a: a, done: make(chan struct{}), result: errUndecided}
	p.batcher.add(w)
	timeout := p.clock.NewTimer(evaluationTimeout)
	defer timeout.Stop()
	select {
	case <-w.done:
		return w.result
	case <-timeout.C():
		return apierrors.NewInternalError(fmt.Errorf("resource quota evaluation timed out"))
	}
}

// checkBatch decides every write of a batch; each waiter is released
// when it returns.
func (p *Plugin) checkBatch(namespace string, batch []*waiter) {
	defer func() {
		for _, w := range batch {
			close(w.done)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), evaluationTimeout)
	defer cancel()
	quotas, err := p.quotas.get(ctx, namespace)
	if err != nil {
		for _, w := range batch {
			w.result = err
		}
		return
	}
	if len(quotas) == 0 && len(p.limited) == 0 {
		for _, w := range batch {
			w.result = nil
		}
		return
	}
	p.checkQuotas(ctx, quotas, batch, retries)
}

// checkQuotas checks the undecided writes of a batch against quotas, in
// order, then writes the status of the quotas they changed. A write
// that fits and changes no quota is admitted at once; one that changes
// some is admitted when the writes succeed. If some fail (a conflict:
// another writer changed the quota), the writes still undecided are
// checked again against those quotas read from the server.
func (p *Plugin) checkQuotas(ctx context.Context, quotas []corev1.ResourceQuota, batch []*waiter, retriesLeft int) {
	original := make([]corev1.ResourceQuota, len(quotas))
	for i := range quotas {
		original[i] = *quotas[i].DeepCopy()
	}
	changed := false
	for _, w := range batch {
		if w.result != errUndecided {
			continue
		}
		next, err := checkRequest(quotas, w.a, p.evaluators.For(w.a.Resource.GroupResource()), p.limited)
		if err != nil {
			w.result = err
			continue
		}
		if w.a.DryRun {
			w.result = nil
			continue
		}
		charged := false
		for i := range next {
			if !evaluator.Equal(quotas[i].Status.Used, next[i].Status.Used) {
				charged = true
				break
			}
		}
		if !charged {
			w.result = nil
		}
		changed = changed || charged
		quotas = next
	}
	if !changed {
		return
	}

	var failed []corev1.ResourceQuota
	var lastErr error
	for i := range quotas {
		if evaluator.Equal(original[i].Status.Used, quotas[i].Status.Used) {
			continue
		}
		if err := p.quotas.updateStatus(ctx, &quotas[i]); err != nil {
			failed = append(failed, quotas[i])
			lastErr = err
		}
	}
	decide := func(err error) {
		for _, w := range batch {
			if w.result == errUndecided {
				w.result = err
			}
		}
	}
	if len(failed) == 0 {
		decide(nil)
		return
	}
	if retriesLeft <= 0 {
		decide(lastErr)
		return
	}
	current, err := p.quotas.fresh(ctx, quotas[0].Namespace)
	if err != nil {
		decide(lastErr)
		return
	}
	// Only the quotas whose write failed: the others have the charges.
	var again []corev1.ResourceQuota
	for _, q := range current {
		for _, f := range failed {
			if q.Name == f.Name {
				again = append(again, q)
				break
			}
		}
	}
	p.checkQuotas(ctx, again, batch, retriesLeft-1)
}

// resourceVersion is obj's, "" for none.
func resourceVersion(obj runtime.Object) string {
	if obj == nil {
		return ""
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return ""
	}
	return m.GetResourceVersion()
}

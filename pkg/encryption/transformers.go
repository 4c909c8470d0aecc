package encryption

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime/schema"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/kapi-dev/kapi/pkg/metrics"
	"github.com/kapi-dev/kapi/pkg/storage/value"
	"github.com/kapi-dev/kapi/pkg/storage/value/encrypt/identity"
)

// Options are the flags of encryption at rest.
type Options struct {
	// ConfigFile is --encryption-provider-config.
	ConfigFile string
	// AutomaticReload is --encryption-provider-config-automatic-reload.
	AutomaticReload bool
	// DialKMS connects to KMS v2 plugins; nil refuses KMS providers.
	DialKMS KMSDialer
	// Metrics records every transformation; nil records nothing.
	Metrics *value.Metrics
	// Reloads records the configuration in use and the automatic
	// reloads (NewReloadMetrics); nil records nothing.
	Reloads *metrics.ConfigReloads
}

// NewReloadMetrics returns the unregistered
// apiserver_encryption_config_controller_* metrics of the server named
// serverID, with kube-apiserver 1.37's names and help.
func NewReloadMetrics(serverID string) *metrics.ConfigReloads {
	return metrics.NewConfigReloads(metrics.ConfigReloadOpts{
		Prefix:        "apiserver_encryption_config_controller",
		ReloadsHelp:   "[ALPHA] Total number of reload successes and failures of encryption configuration split by apiserver identity.",
		TimestampHelp: "[ALPHA] Timestamp of the last successful or failed automatic reload of encryption configuration split by apiserver identity.",
		InfoHelp:      "[ALPHA] Information about the last applied encryption configuration with hash as label, split by apiserver identity.",
	}, serverID)
}

// Transformers is the encryption of every resource under the current
// configuration. It implements value.ResourceTransformers; the
// transformer it gives a resource looks the configuration up on each
// call (one atomic load and a map lookup), so a reload reaches every
// store at once and a value is never written under one configuration and
// checked under another within a call.
type Transformers struct {
	opts    Options
	current atomic.Pointer[generation]
	// reloadMu serializes reloads; hash is the hash of the file content
	// current was built from.
	reloadMu sync.Mutex
	hash     string
}

// generation is one loaded configuration and what it holds open (KMS
// connections), released when it is replaced.
type generation struct {
	b      *built
	cancel context.CancelFunc
	// contentHash is the sha256 of the file's content, as
	// last_config_info labels it.
	contentHash string
}

// Load reads, validates and builds opts.ConfigFile, with the errors
// kube-apiserver gives at start-up. ctx bounds the life of the KMS
// connections.
func Load(ctx context.Context, opts Options) (*Transformers, error) {
	g, hash, err := load(ctx, opts)
	if err != nil {
		return nil, err
	}
	t := &Transformers{opts: opts, hash: hash}
	t.current.Store(g)
	opts.Reloads.InUse(g.contentHash)
	return t, nil
}

func load(ctx context.Context, opts Options) (*generation, string, error) {
	data, hash, err := readFile(opts.ConfigFile)
	if err != nil {
		return nil, "", fmt.Errorf("error while parsing file: error while loading file: %w", err)
	}
	c, err := Parse(opts.ConfigFile, data, opts.AutomaticReload)
	if err != nil {
		return nil, "", fmt.Errorf("error while parsing file: %w", err)
	}
	gctx, cancel := context.WithCancel(ctx)
	b, err := build(gctx, c, opts.DialKMS, opts.Metrics)
	if err != nil {
		cancel()
		return nil, "", fmt.Errorf("error while building transformers: %w", err)
	}
	return &generation{b: b, cancel: cancel, contentHash: metrics.Hash(string(data))}, hash, nil
}

// TransformerFor implements value.ResourceTransformers.
func (t *Transformers) TransformerFor(group, resource string) value.Transformer {
	return &resourceTransformer{gr: schema.GroupResource{Group: group, Resource: resource}, t: t}
}

type resourceTransformer struct {
	gr schema.GroupResource
	t  *Transformers
}

func (r *resourceTransformer) get() value.Transformer {
	m := r.t.current.Load().b.byResource
	if x, ok := m[r.gr]; ok {
		return x
	}
	if x, ok := m[schema.GroupResource{Group: r.gr.Group, Resource: "*"}]; ok {
		return x
	}
	if x, ok := m[anyResource]; ok {
		return x
	}
	return identity.Transformer
}

func (r *resourceTransformer) FromStorage(ctx context.Context, data, authData []byte) ([]byte, bool, error) {
	return r.get().FromStorage(ctx, data, authData)
}

func (r *resourceTransformer) ToStorage(ctx context.Context, data, authData []byte) ([]byte, error) {
	return r.get().ToStorage(ctx, data, authData)
}

// A HealthCheck has the shape of the server's health checks.
type HealthCheck interface {
	Name() string
	Check(r *http.Request) error
}

// HealthChecks returns the checks kube-apiserver adds to /healthz and
// /readyz (not /livez): "kms-providers", which checks every KMS plugin of
// the current configuration, when automatic reload is on or a KMS v2
// provider is configured; none otherwise.
func (t *Transformers) HealthChecks() []HealthCheck {
	if !t.opts.AutomaticReload && len(t.current.Load().b.kms) == 0 {
		return nil
	}
	return []HealthCheck{namedCheck{name: "kms-providers", check: t.checkKMS}}
}

func (t *Transformers) checkKMS(ctx context.Context) error {
	var errs []error
	for _, c := range t.current.Load().b.kms {
		if err := c.check(ctx); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", c.name, err))
		}
	}
	return utilerrors.Reduce(utilerrors.NewAggregate(errs))
}

type namedCheck struct {
	name  string
	check func(context.Context) error
}

func (c namedCheck) Name() string                { return c.name }
func (c namedCheck) Check(r *http.Request) error { return c.check(r.Context()) }

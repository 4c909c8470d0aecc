package app

import (
	"context"
	"log/slog"

	"github.com/kapi-dev/kapi/pkg/encryption"
	"github.com/kapi-dev/kapi/pkg/metrics"
	"github.com/kapi-dev/kapi/pkg/server"
	"github.com/kapi-dev/kapi/pkg/server/healthz"
	"github.com/kapi-dev/kapi/pkg/storage/value"
	"github.com/kapi-dev/kapi/pkg/storage/value/encrypt/kmsv2"
)

// kmsDialer connects the KMS v2 providers of the configuration to their
// plugins, counting their cache misses in m.
func kmsDialer(m *value.Metrics) encryption.KMSDialer {
	return func(ctx context.Context, c *encryption.KMSConfiguration) (value.Transformer, func(context.Context) error, error) {
		p, err := kmsv2.Dial(ctx, c.Name, c.Endpoint, c.Timeout.Duration, m)
		if err != nil {
			return nil, nil, err
		}
		return p, p.Check, nil
	}
}

// encryptionReloadMetrics are the unregistered metrics of the encryption
// configuration in use and its automatic reloads, for the server named
// identity.
func encryptionReloadMetrics(identity string) *metrics.ConfigReloads {
	return encryption.NewReloadMetrics(identity)
}

// loadEncryption builds encryption at rest from --encryption-provider-config,
// or returns nil when it is not set. The KMS connections live until the
// server closes.
func (s *Server) loadEncryption(c *Config, m *value.Metrics, reloads *metrics.ConfigReloads) (*encryption.Transformers, error) {
	if c.Etcd.EncryptionProviderConfig == "" {
		return nil, nil
	}
	ctx, stop := context.WithCancel(context.Background())
	t, err := encryption.Load(ctx, encryption.Options{
		ConfigFile:      c.Etcd.EncryptionProviderConfig,
		AutomaticReload: c.Etcd.EncryptionProviderConfigAutomaticReload,
		DialKMS:         kmsDialer(m),
		Metrics:         m,
		Reloads:         reloads,
	})
	if err != nil {
		stop()
		return nil, err
	}
	s.closers = append(s.closers, func() error { stop(); return nil })
	return t, nil
}

// addEncryptionHooks adds the KMS health checks to /healthz and /readyz,
// and the reload controller as kube-apiserver's post-start hook.
func addEncryptionHooks(srv *server.GenericAPIServer, t *encryption.Transformers, c *Config, log *slog.Logger) {
	for _, check := range t.HealthChecks() {
		srv.AddHealthzAndReadyzChecks(healthz.NamedCheck(check.Name(), check.Check))
	}
	if !c.Etcd.EncryptionProviderConfigAutomaticReload {
		return
	}
	interval := c.Etcd.EncryptionReloadInterval
	if interval <= 0 {
		interval = encryption.DefaultReloadInterval
	}
	srv.AddPostStartHook(encryption.ReloadHookName, func(ctx server.PostStartHookContext) error {
		go t.RunReload(ctx, interval, log.With("component", "encryption-provider-config-automatic-reload-controller"))
		return nil
	})
}

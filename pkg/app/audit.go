package app

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/audit"
	"github.com/kapi-dev/kapi/pkg/audit/buffered"
	auditlog "github.com/kapi-dev/kapi/pkg/audit/log"
	"github.com/kapi-dev/kapi/pkg/audit/rotate"
	"github.com/kapi-dev/kapi/pkg/audit/truncate"
	"github.com/kapi-dev/kapi/pkg/audit/webhook"
	"github.com/kapi-dev/kapi/pkg/metrics"
)

// The values of --audit-log-mode and --audit-webhook-mode.
const (
	AuditModeBatch          = "batch"
	AuditModeBlocking       = "blocking"
	AuditModeBlockingStrict = "blocking-strict"
)

// AuditModes are the modes a backend may be in, in kube-apiserver's order.
var AuditModes = []string{AuditModeBatch, AuditModeBlocking, AuditModeBlockingStrict}

// AuditConfig is the --audit-* configuration. Without a policy file
// nothing is audited.
type AuditConfig struct {
	PolicyFile string
	Log        AuditLogConfig
	Webhook    AuditWebhookConfig
}

// AuditLogConfig is the log backend's: enabled by Path ("-" is stdout).
type AuditLogConfig struct {
	Path                        string
	MaxAge, MaxBackups, MaxSize int
	Compress                    bool
	Format                      string
	Mode                        string
	Batch                       buffered.Config
	Truncate                    AuditTruncateConfig
	// Version is the API version of the events; only audit.k8s.io/v1.
	Version string
}

// AuditTruncateConfig is a backend's --audit-*-truncate-* configuration.
type AuditTruncateConfig struct {
	Enabled bool
	truncate.Config
}

// AuditWebhookConfig is the webhook backend's: enabled by ConfigFile.
type AuditWebhookConfig struct {
	ConfigFile     string
	InitialBackoff time.Duration
	Mode           string
	Batch          buffered.Config
	Truncate       AuditTruncateConfig
	Version        string
}

// NewAuditConfig is kube-apiserver's defaults: the log blocking, rotated
// at 100 MB, 100 backups kept for 366 days; the webhook batching 400
// events or 30 seconds, at most 10 batches a second.
func NewAuditConfig() AuditConfig {
	return AuditConfig{
		Log: AuditLogConfig{
			MaxAge: 366, MaxBackups: 100, MaxSize: 100, Format: auditlog.FormatJSON, Mode: AuditModeBlocking,
			Batch:    buffered.Config{BufferSize: 10000, MaxBatchSize: 1},
			Truncate: AuditTruncateConfig{Config: truncate.DefaultConfig()}, Version: audit.APIVersion,
		},
		Webhook: AuditWebhookConfig{
			InitialBackoff: webhook.DefaultInitialBackoff, Mode: AuditModeBatch,
			Batch: buffered.Config{BufferSize: 10000, MaxBatchSize: 400, MaxBatchWait: 30 * time.Second,
				ThrottleEnable: true, ThrottleQPS: 10, ThrottleBurst: 15, AsyncDelegate: true},
			Truncate: AuditTruncateConfig{Config: truncate.DefaultConfig()}, Version: audit.APIVersion,
		},
	}
}

// auditing is what the audit filter needs: the policy, the backend and
// the metrics; all nil when auditing is off.
type auditing struct {
	policy  audit.Evaluator
	backend audit.Backend
	metrics *audit.Metrics
}

// buildAudit returns the auditing of c. Its metrics are registered even
// when nothing is audited, as kube-apiserver's are. webhookX509 counts the
// posts to an audit webhook whose certificate has a deprecated trait.
func buildAudit(c AuditConfig, reg *metrics.Registry, webhookX509 *metrics.WebhookX509, log *slog.Logger) (auditing, error) {
	m := audit.NewMetrics()
	if reg != nil {
		if err := reg.Register(m); err != nil {
			return auditing{}, err
		}
	}
	if c.PolicyFile == "" {
		if c.Log.Path != "" || c.Webhook.ConfigFile != "" {
			log.Warn("Audit backends are configured but --audit-policy-file is not: nothing is audited")
		}
		return auditing{}, nil
	}
	policy, err := audit.LoadPolicyFile(c.PolicyFile, log)
	if err != nil {
		return auditing{}, fmt.Errorf("loading audit policy file: %w", err)
	}
	var backends []audit.Backend
	if c.Log.Path != "" {
		out, err := auditLogWriter(c.Log)
		if err != nil {
			return auditing{}, fmt.Errorf("--audit-log-path: %w", err)
		}
		b := auditlog.New(out, c.Log.Format, log.With("component", "audit"), m)
		backends = append(backends, withMode(withTruncate(b, c.Log.Truncate, log, m), c.Log.Mode, c.Log.Batch, log, m))
	}
	if c.Webhook.ConfigFile != "" {
		b, err := webhook.New(c.Webhook.ConfigFile, c.Webhook.InitialBackoff, log.With("component", "audit"), m, webhookX509)
		if err != nil {
			return auditing{}, fmt.Errorf("--audit-webhook-config-file: %w", err)
		}
		backends = append(backends, withMode(withTruncate(b, c.Webhook.Truncate, log, m), c.Webhook.Mode, c.Webhook.Batch, log, m))
	}
	if len(backends) == 0 {
		return auditing{}, nil
	}
	return auditing{policy: audit.NewEvaluator(policy), backend: audit.Counted(audit.Union(backends...), m), metrics: m}, nil
}

func withTruncate(b audit.Backend, t AuditTruncateConfig, log *slog.Logger, m *audit.Metrics) audit.Backend {
	if !t.Enabled {
		return b
	}
	return truncate.New(b, t.Config, log.With("component", "audit"), m)
}

func withMode(b audit.Backend, mode string, batch buffered.Config, log *slog.Logger, m *audit.Metrics) audit.Backend {
	switch mode {
	case AuditModeBatch:
		return buffered.New(b, batch, log.With("component", "audit"), m)
	case AuditModeBlocking:
		return buffered.IgnoreErrors(b)
	}
	return b
}

// auditLogWriter opens the log as kube-apiserver does: stdout for "-",
// the file created (0600) if missing, rotated unless MaxSize is 0.
func auditLogWriter(c AuditLogConfig) (io.Writer, error) {
	if c.Path == "-" {
		return nopCloser{os.Stdout}, nil
	}
	if err := os.MkdirAll(filepath.Dir(c.Path), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(c.Path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	if c.MaxSize == 0 {
		return f, nil
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	return &rotate.Writer{Filename: c.Path, MaxSize: c.MaxSize, MaxBackups: c.MaxBackups, MaxAge: c.MaxAge, Compress: c.Compress}, nil
}

// nopCloser keeps the log backend's Shutdown from closing stdout.
type nopCloser struct{ io.Writer }

// Validate returns kube-apiserver's errors for c.
func (c AuditConfig) Validate() []error {
	var errs []error
	if c.Log.Path != "" {
		if err := validateAuditMode(auditlog.PluginName, c.Log.Mode, c.Log.Batch); err != nil {
			errs = append(errs, err)
		}
		errs = append(errs, validateAuditTruncate(auditlog.PluginName, c.Log.Truncate)...)
		errs = append(errs, validateAuditVersion(c.Log.Version)...)
		if c.Log.Format != auditlog.FormatJSON && c.Log.Format != auditlog.FormatLegacy {
			errs = append(errs, fmt.Errorf("invalid audit log format %s, allowed formats are %q", c.Log.Format, "legacy,json"))
		}
		if c.Log.MaxAge < 0 {
			errs = append(errs, fmt.Errorf("--audit-log-maxage %v can't be a negative number", c.Log.MaxAge))
		}
		if c.Log.MaxBackups < 0 {
			errs = append(errs, fmt.Errorf("--audit-log-maxbackup %v can't be a negative number", c.Log.MaxBackups))
		}
		if c.Log.MaxSize < 0 {
			errs = append(errs, fmt.Errorf("--audit-log-maxsize %v can't be a negative number", c.Log.MaxSize))
		}
	}
	if c.Webhook.ConfigFile != "" {
		if err := validateAuditMode(webhook.PluginName, c.Webhook.Mode, c.Webhook.Batch); err != nil {
			errs = append(errs, err)
		}
		errs = append(errs, validateAuditTruncate(webhook.PluginName, c.Webhook.Truncate)...)
		errs = append(errs, validateAuditVersion(c.Webhook.Version)...)
	}
	return errs
}

func validateAuditTruncate(plugin string, t AuditTruncateConfig) []error {
	if t.MaxEventSize <= 0 {
		return []error{fmt.Errorf("invalid audit truncate %s max event size %v, must be a positive number", plugin, t.MaxEventSize)}
	}
	if t.MaxBatchSize < t.MaxEventSize {
		return []error{fmt.Errorf("invalid audit truncate %s max batch size %v, must be greater than max event size (%v)", plugin, t.MaxBatchSize, t.MaxEventSize)}
	}
	return nil
}

// validateAuditVersion accepts audit.k8s.io/v1, the one version
// kube-apiserver 1.37 knows.
func validateAuditVersion(v string) []error {
	gv, err := schema.ParseGroupVersion(v)
	if err != nil {
		return []error{err}
	}
	if gv.String() != audit.APIVersion {
		return []error{fmt.Errorf("invalid group version, allowed versions are %q", []string{audit.APIVersion})}
	}
	return nil
}

func validateAuditMode(plugin, mode string, b buffered.Config) error {
	switch mode {
	case AuditModeBlocking, AuditModeBlockingStrict:
		return nil
	case AuditModeBatch:
	default:
		return fmt.Errorf("invalid audit %s mode %s, allowed modes are %q", plugin, mode, "batch,blocking,blocking-strict")
	}
	switch {
	case b.BufferSize <= 0:
		return fmt.Errorf("invalid audit batch %s buffer size %v, must be a positive number", plugin, b.BufferSize)
	case b.MaxBatchSize <= 0:
		return fmt.Errorf("invalid audit batch %s max batch size %v, must be a positive number", plugin, b.MaxBatchSize)
	case b.ThrottleEnable && b.ThrottleQPS <= 0:
		return fmt.Errorf("invalid audit batch %s throttle QPS %v, must be a positive number", plugin, b.ThrottleQPS)
	case b.ThrottleEnable && b.ThrottleBurst <= 0:
		return fmt.Errorf("invalid audit batch %s throttle burst %v, must be a positive number", plugin, b.ThrottleBurst)
	}
	return nil
}

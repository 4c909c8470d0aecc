package app

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/kapi-dev/kapi/pkg/audit"
	"github.com/kapi-dev/kapi/pkg/audit/buffered"
	auditlog "github.com/kapi-dev/kapi/pkg/audit/log"
	"github.com/kapi-dev/kapi/pkg/audit/rotate"
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
}

// AuditWebhookConfig is the webhook backend's: enabled by ConfigFile.
type AuditWebhookConfig struct {
	ConfigFile     string
	InitialBackoff time.Duration
	Mode           string
	Batch          buffered.Config
}

// NewAuditConfig is kube-apiserver's defaults: the log blocking, rotated
// at 100 MB, 100 backups kept for 366 days; the webhook batching 400
// events or 30 seconds, at most 10 batches a second.
func NewAuditConfig() AuditConfig {
	return AuditConfig{
		Log: AuditLogConfig{
			MaxAge: 366, MaxBackups: 100, MaxSize: 100, Format: auditlog.FormatJSON, Mode: AuditModeBlocking,
			Batch: buffered.Config{BufferSize: 10000, MaxBatchSize: 1},
		},
		Webhook: AuditWebhookConfig{
			InitialBackoff: webhook.DefaultInitialBackoff, Mode: AuditModeBatch,
			Batch: buffered.Config{BufferSize: 10000, MaxBatchSize: 400, MaxBatchWait: 30 * time.Second,
				ThrottleEnable: true, ThrottleQPS: 10, ThrottleBurst: 15, AsyncDelegate: true},
		},
	}
}

// buildAudit returns the policy and the backend of c (nil, nil when
// auditing is off) and a function that flushes and stops the backend.
func buildAudit(c AuditConfig, reg *metrics.Registry, log *slog.Logger) (audit.Evaluator, audit.Backend, error) {
	if c.PolicyFile == "" {
		if c.Log.Path != "" || c.Webhook.ConfigFile != "" {
			log.Warn("Audit backends are configured but --audit-policy-file is not: nothing is audited")
		}
		return nil, nil, nil
	}
	policy, err := audit.LoadPolicyFile(c.PolicyFile, log)
	if err != nil {
		return nil, nil, fmt.Errorf("loading audit policy file: %w", err)
	}
	m := audit.NewMetrics()
	if reg != nil {
		if err := reg.Register(m); err != nil {
			return nil, nil, err
		}
	}
	var backends []audit.Backend
	if c.Log.Path != "" {
		out, err := auditLogWriter(c.Log)
		if err != nil {
			return nil, nil, fmt.Errorf("--audit-log-path: %w", err)
		}
		b := auditlog.New(out, c.Log.Format, log.With("component", "audit"), m)
		backends = append(backends, withMode(b, c.Log.Mode, c.Log.Batch, log, m))
	}
	if c.Webhook.ConfigFile != "" {
		b, err := webhook.New(c.Webhook.ConfigFile, c.Webhook.InitialBackoff, log.With("component", "audit"), m)
		if err != nil {
			return nil, nil, fmt.Errorf("--audit-webhook-config-file: %w", err)
		}
		backends = append(backends, withMode(b, c.Webhook.Mode, c.Webhook.Batch, log, m))
	}
	if len(backends) == 0 {
		return nil, nil, nil
	}
	return audit.NewEvaluator(policy), audit.Counted(audit.Union(backends...), m), nil
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
	}
	return errs
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

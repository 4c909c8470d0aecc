package cmd

import (
	"github.com/spf13/pflag"

	"github.com/kapi-dev/kapi/pkg/app"
	"github.com/kapi-dev/kapi/pkg/audit/buffered"
)

// AuditOptions are kube-apiserver's --audit-* flags, with its names,
// defaults and help.
type AuditOptions struct {
	app.AuditConfig
}

// NewAuditOptions returns the defaults.
func NewAuditOptions() AuditOptions { return AuditOptions{app.NewAuditConfig()} }

// AddFlags registers the --audit-* flags.
func (o *AuditOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.PolicyFile, "audit-policy-file", o.PolicyFile, "Path to the file that defines the audit policy configuration.")

	l := &o.Log
	fs.StringVar(&l.Path, "audit-log-path", l.Path, "If set, all requests coming to the apiserver will be logged to this file.  '-' means standard out.")
	fs.IntVar(&l.MaxAge, "audit-log-maxage", l.MaxAge, "The maximum number of days to retain old audit log files based on the timestamp encoded in their filename. Setting a value of 0 means old audit log files are not removed based on age.")
	fs.IntVar(&l.MaxBackups, "audit-log-maxbackup", l.MaxBackups, "The maximum number of old audit log files to retain. Setting a value of 0 will mean there's no restriction on the number of files.")
	fs.IntVar(&l.MaxSize, "audit-log-maxsize", l.MaxSize, "The maximum size in megabytes of the audit log file before it gets rotated. Setting to 0 disables rotation (not recommended).")
	fs.StringVar(&l.Format, "audit-log-format", l.Format, `Format of saved audits. "legacy" indicates 1-line text format for each event. "json" indicates structured json format. Known formats are legacy,json.`)
	fs.BoolVar(&l.Compress, "audit-log-compress", l.Compress, "If set, the rotated log files will be compressed using gzip.")
	addBatchFlags(fs, "log", &l.Mode, &l.Batch)
	addTruncateFlags(fs, "log", &l.Truncate)
	fs.StringVar(&l.Version, "audit-log-version", l.Version, "API group and version used for serializing audit events written to log.")

	w := &o.Webhook
	fs.StringVar(&w.ConfigFile, "audit-webhook-config-file", w.ConfigFile, "Path to a kubeconfig formatted file that defines the audit webhook configuration.")
	fs.DurationVar(&w.InitialBackoff, "audit-webhook-initial-backoff", w.InitialBackoff, "The amount of time to wait before retrying the first failed request.")
	fs.DurationVar(&w.InitialBackoff, "audit-webhook-batch-initial-backoff", w.InitialBackoff, "The amount of time to wait before retrying the first failed request.")
	_ = fs.MarkDeprecated("audit-webhook-batch-initial-backoff", "Deprecated, use --audit-webhook-initial-backoff instead.")
	addBatchFlags(fs, "webhook", &w.Mode, &w.Batch)
	addTruncateFlags(fs, "webhook", &w.Truncate)
	fs.StringVar(&w.Version, "audit-webhook-version", w.Version, "API group and version used for serializing audit events written to webhook.")
}

// addBatchFlags registers the --audit-<plugin>-mode and -batch-* flags.
func addBatchFlags(fs *pflag.FlagSet, plugin string, mode *string, c *buffered.Config) {
	fs.StringVar(mode, "audit-"+plugin+"-mode", *mode, "Strategy for sending audit events. Blocking indicates sending events should block server responses. Batch causes the backend to buffer and write events asynchronously. Known modes are batch,blocking,blocking-strict.")
	fs.IntVar(&c.BufferSize, "audit-"+plugin+"-batch-buffer-size", c.BufferSize, "The size of the buffer to store events before batching and writing. Only used in batch mode.")
	fs.IntVar(&c.MaxBatchSize, "audit-"+plugin+"-batch-max-size", c.MaxBatchSize, "The maximum size of a batch. Only used in batch mode.")
	fs.DurationVar(&c.MaxBatchWait, "audit-"+plugin+"-batch-max-wait", c.MaxBatchWait, "The amount of time to wait before force writing the batch that hadn't reached the max size. Only used in batch mode.")
	fs.BoolVar(&c.ThrottleEnable, "audit-"+plugin+"-batch-throttle-enable", c.ThrottleEnable, "Whether batching throttling is enabled. Only used in batch mode.")
	fs.Float32Var(&c.ThrottleQPS, "audit-"+plugin+"-batch-throttle-qps", c.ThrottleQPS, "Maximum average number of batches per second. Only used in batch mode.")
	fs.IntVar(&c.ThrottleBurst, "audit-"+plugin+"-batch-throttle-burst", c.ThrottleBurst, "Maximum number of requests sent at the same moment if ThrottleQPS was not utilized before. Only used in batch mode.")
}

// addTruncateFlags registers the --audit-<plugin>-truncate-* flags.
func addTruncateFlags(fs *pflag.FlagSet, plugin string, t *app.AuditTruncateConfig) {
	fs.BoolVar(&t.Enabled, "audit-"+plugin+"-truncate-enabled", t.Enabled, "Whether event and batch truncating is enabled.")
	fs.Int64Var(&t.MaxBatchSize, "audit-"+plugin+"-truncate-max-batch-size", t.MaxBatchSize, "Maximum size of the batch sent to the underlying backend. Actual serialized size can be several hundreds of bytes greater. If a batch exceeds this limit, it is split into several batches of smaller size.")
	fs.Int64Var(&t.MaxEventSize, "audit-"+plugin+"-truncate-max-event-size", t.MaxEventSize, "Maximum size of the audit event sent to the underlying backend. If the size of an event is greater than this number, first request and response are removed, and if this doesn't reduce the size enough, event is discarded.")
}

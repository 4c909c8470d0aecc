package embedded

import (
	"fmt"
	"strings"
	"sync/atomic"

	"go.etcd.io/etcd/client/pkg/v3/logutil"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// newLogger returns etcd's usual JSON logger on stderr at the given level,
// minus the messages etcd logs as errors when nothing is wrong. closing is
// set when the server is being closed.
func newLogger(level string, closing *atomic.Bool) (*zap.Logger, error) {
	lvl, err := zapcore.ParseLevel(level)
	if err != nil {
		return nil, fmt.Errorf("embedded etcd: log level: %w", err)
	}
	cfg := logutil.DefaultZapLoggerConfig
	cfg.Level = zap.NewAtomicLevelAt(lvl)
	cfg.OutputPaths = []string{"stderr"}
	cfg.ErrorOutputPaths = []string{"stderr"}
	// Sampling would sit between the filter and the output and decide in
	// Check, which the filter bypasses; at the levels used here (warn and
	// error by default) there is nothing to sample anyway.
	cfg.Sampling = nil
	return cfg.Build(zap.WrapCore(func(c zapcore.Core) zapcore.Core {
		return benignErrorFilter{Core: c, closing: closing}
	}))
}

// benignErrors are the (message, error) pairs that etcd logs at error level
// in normal operation of an embedded single member.
var benignErrors = []struct{ msg, err string }{
	// A new member checks its storage schema as soon as the cluster
	// version is set, which can happen before the first raft term is
	// persisted. It checks again a few seconds later and succeeds.
	{"failed to update storage version", "missing term information"},
}

// closingMessage is what etcd logs, at error level, when the serving loop
// of a client listener ends; on Close they all do.
const closingMessage = "setting up serving from embedded etcd failed."

type benignErrorFilter struct {
	zapcore.Core
	closing *atomic.Bool
}

func (f benignErrorFilter) With(fields []zapcore.Field) zapcore.Core {
	return benignErrorFilter{Core: f.Core.With(fields), closing: f.closing}
}

func (f benignErrorFilter) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if !f.Enabled(e.Level) {
		return ce
	}
	return ce.AddCore(e, f)
}

func (f benignErrorFilter) Write(e zapcore.Entry, fields []zapcore.Field) error {
	if f.isBenign(e, fields) {
		return nil
	}
	return f.Core.Write(e, fields)
}

func (f benignErrorFilter) isBenign(e zapcore.Entry, fields []zapcore.Field) bool {
	if e.Message == closingMessage && f.closing.Load() {
		return true
	}
	for _, b := range benignErrors {
		if e.Message != b.msg {
			continue
		}
		for _, fl := range fields {
			if err, ok := fl.Interface.(error); ok && fl.Type == zapcore.ErrorType && strings.Contains(err.Error(), b.err) {
				return true
			}
		}
	}
	return false
}

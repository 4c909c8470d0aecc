package embedded

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// newLogger returns the zap logger etcd is given: its entries at level
// and above go to log (nil discards them), minus the messages etcd logs as
// errors when nothing is wrong. closing is set when the server is being
// closed.
func newLogger(log *slog.Logger, level string, closing *atomic.Bool) (*zap.Logger, error) {
	lvl, err := zapcore.ParseLevel(level)
	if err != nil {
		return nil, fmt.Errorf("embedded etcd: log level: %w", err)
	}
	if log == nil {
		return zap.NewNop(), nil
	}
	core := slogCore{handler: log.Handler(), level: lvl}
	return zap.New(benignErrorFilter{Core: core, closing: closing}), nil
}

// slogCore is a zapcore.Core that writes each entry as a record of a slog
// handler, so that etcd's log goes where kapi's goes, in kapi's format.
type slogCore struct {
	handler slog.Handler
	level   zapcore.Level
}

func (c slogCore) Enabled(l zapcore.Level) bool {
	return l >= c.level && c.handler.Enabled(context.Background(), slogLevel(l))
}

func (c slogCore) With(fields []zapcore.Field) zapcore.Core {
	return slogCore{handler: c.handler.WithAttrs(attrs(fields)), level: c.level}
}

func (c slogCore) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(e.Level) {
		return ce.AddCore(e, c)
	}
	return ce
}

func (c slogCore) Write(e zapcore.Entry, fields []zapcore.Field) error {
	r := slog.NewRecord(e.Time, slogLevel(e.Level), e.Message, 0)
	if e.LoggerName != "" {
		r.AddAttrs(slog.String("logger", e.LoggerName))
	}
	r.AddAttrs(attrs(fields)...)
	return c.handler.Handle(context.Background(), r)
}

func (slogCore) Sync() error { return nil }

// slogLevel maps zap's levels onto slog's; zap's panic and fatal levels
// are errors (etcd panics or exits itself after logging them).
func slogLevel(l zapcore.Level) slog.Level {
	switch {
	case l < zapcore.InfoLevel:
		return slog.LevelDebug
	case l < zapcore.WarnLevel:
		return slog.LevelInfo
	case l < zapcore.ErrorLevel:
		return slog.LevelWarn
	default:
		return slog.LevelError
	}
}

// attrs turns zap fields into slog attributes, in the fields' order.
func attrs(fields []zapcore.Field) []slog.Attr {
	out := make([]slog.Attr, 0, len(fields))
	for _, f := range fields {
		enc := zapcore.NewMapObjectEncoder()
		f.AddTo(enc)
		for k, v := range enc.Fields {
			out = append(out, slog.Any(k, v))
		}
	}
	return out
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

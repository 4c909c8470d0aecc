// Package log is the audit backend of --audit-log-path: one event a line,
// as JSON (audit.k8s.io/v1 Event) or in the legacy one-line text. It
// writes synchronously; the buffered package makes it batch.
package log

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/kapi-dev/kapi/pkg/audit"
)

// The values of --audit-log-format.
const (
	FormatJSON   = "json"
	FormatLegacy = "legacy"
)

// AllowedFormats are the formats a log backend writes.
var AllowedFormats = []string{FormatLegacy, FormatJSON}

// PluginName names the backend in logs and metrics.
const PluginName = "log"

// Backend writes events to a writer.
type Backend struct {
	out    io.Writer
	format string
	logger *slog.Logger
	errors audit.ErrorCounter

	mu sync.Mutex
}

// New returns a backend writing to out in format. errors counts the
// events it failed to write; nil counts nothing.
func New(out io.Writer, format string, logger *slog.Logger, errors audit.ErrorCounter) *Backend {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Backend{out: out, format: format, logger: logger, errors: errors}
}

// ProcessEvents writes each event on its own line, and reports whether
// all of them were written.
func (b *Backend) ProcessEvents(events ...*audit.Event) bool {
	ok := true
	for _, ev := range events {
		if err := b.write(ev); err != nil {
			audit.HandlePluginError(b.logger, b.errors, PluginName, err, ev)
			ok = false
		}
	}
	return ok
}

func (b *Backend) write(ev *audit.Event) error {
	var line []byte
	switch b.format {
	case FormatLegacy:
		line = []byte(audit.LegacyString(ev) + "\n")
	case FormatJSON:
		js, err := json.Marshal(ev)
		if err != nil {
			return err
		}
		line = append(js, '\n')
	default:
		return fmt.Errorf("log format %q is not in list of known formats (%s)", b.format, "legacy,json")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	_, err := b.out.Write(line)
	return err
}

// Run does nothing: the backend writes as events come.
func (b *Backend) Run(context.Context) error { return nil }

// Shutdown closes the writer if it can be closed.
func (b *Backend) Shutdown() {
	if c, ok := b.out.(io.Closer); ok {
		b.mu.Lock()
		defer b.mu.Unlock()
		_ = c.Close()
	}
}

func (b *Backend) String() string { return PluginName }

// Package truncate is --audit-*-truncate-enabled: it keeps events and
// batches under a size, as kube-apiserver does. An event of Request level
// or above that is larger than MaxEventSize (as JSON) loses its request
// and response objects and gets the annotation audit.k8s.io/truncated:
// "true"; an event still too large is dropped, logged and counted. The
// events are handed on in batches of at most MaxBatchSize bytes.
package truncate

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"

	"github.com/kapi-dev/kapi/pkg/audit"
)

// PluginName names the backend in logs and metrics.
const PluginName = "truncate"

const annotationKey = "audit.k8s.io/truncated"

// Config is a --audit-*-truncate-* configuration, in bytes.
type Config struct {
	MaxEventSize int64
	MaxBatchSize int64
}

// DefaultConfig is kube-apiserver's: 100 KiB events, 10 MiB batches.
func DefaultConfig() Config { return Config{MaxEventSize: 100 * 1024, MaxBatchSize: 10 * 1024 * 1024} }

type backend struct {
	delegate audit.Backend
	c        Config
	logger   *slog.Logger
	errors   audit.ErrorCounter
}

// New returns a truncating backend in front of delegate.
func New(delegate audit.Backend, c Config, logger *slog.Logger, errors audit.ErrorCounter) audit.Backend {
	return &backend{delegate: delegate, c: c, logger: logger, errors: errors}
}

var errTooLarge = errors.New("event is too large even after truncating")

func (b *backend) ProcessEvents(events ...*audit.Event) bool {
	var batch, dropped []*audit.Event
	var batchSize int64
	ok := true
	for _, ev := range events {
		size, err := sizeOf(ev)
		if err == nil && size > b.c.MaxEventSize && (ev.Level == audit.LevelRequest || ev.Level == audit.LevelRequestResponse) {
			ev = truncated(ev)
			size, err = sizeOf(ev)
		}
		if err != nil || size > b.c.MaxEventSize {
			dropped = append(dropped, ev)
			continue
		}
		if len(batch) > 0 && batchSize+size > b.c.MaxBatchSize {
			ok = b.delegate.ProcessEvents(batch...) && ok
			batch, batchSize = nil, 0
		}
		batch = append(batch, ev)
		batchSize += size
	}
	if len(batch) > 0 {
		ok = b.delegate.ProcessEvents(batch...) && ok
	}
	if len(dropped) > 0 {
		audit.HandlePluginError(b.logger, b.errors, PluginName, errTooLarge, dropped...)
	}
	return ok
}

func truncated(ev *audit.Event) *audit.Event {
	c := *ev
	c.RequestObject, c.ResponseObject = nil, nil
	c.Annotations = maps.Clone(ev.Annotations)
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	c.Annotations[annotationKey] = "true"
	return &c
}

func sizeOf(ev *audit.Event) (int64, error) {
	b, err := json.Marshal(ev)
	return int64(len(b)) + 1, err // and its newline
}

func (b *backend) Run(ctx context.Context) error { return b.delegate.Run(ctx) }
func (b *backend) Shutdown()                     { b.delegate.Shutdown() }
func (b *backend) String() string                { return PluginName + "<" + b.delegate.String() + ">" }

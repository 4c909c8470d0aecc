// Package buffered decouples requests from a slow audit backend, as
// kube-apiserver's --audit-*-mode=batch does: events go into a bounded
// buffer, and a goroutine hands them to the backend in batches.
//
// The buffer is the one place events wait. When it is full, a request
// never waits for room: the events that do not fit are dropped, counted
// (apiserver_audit_error_total{plugin="buffered"}) and logged, in
// kube-apiserver's words ("audit buffer queue blocked"). A batch is sent
// when it holds MaxBatchSize events or MaxBatchWait has passed since its
// first event, at most ThrottleQPS batches a second (bursts of
// ThrottleBurst) when throttling is on. Shutdown sends what is buffered
// before it returns.
package buffered

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"k8s.io/client-go/util/flowcontrol"

	"github.com/kapi-dev/kapi/pkg/audit"
)

// PluginName names the buffer in logs and metrics.
const PluginName = "buffered"

// Config is a --audit-*-batch-* configuration.
type Config struct {
	// BufferSize is how many events wait at most.
	BufferSize int
	// MaxBatchSize is the most events handed to the backend at once.
	MaxBatchSize int
	// MaxBatchWait is how long a batch waits to be full.
	MaxBatchWait time.Duration
	// ThrottleEnable limits the batches sent per second.
	ThrottleEnable bool
	ThrottleQPS    float32
	ThrottleBurst  int
	// AsyncDelegate sends batches concurrently (the webhook); the log
	// writes them one after the other.
	AsyncDelegate bool
}

// Backend is a buffered backend.
type Backend struct {
	delegate audit.Backend
	config   Config
	logger   *slog.Logger
	errors   audit.ErrorCounter
	throttle flowcontrol.RateLimiter

	mu      sync.RWMutex // guards closed against sends
	closed  bool
	buffer  chan *audit.Event
	stop    chan struct{}
	done    chan struct{}
	sending sync.WaitGroup
	once    sync.Once
}

// New returns a buffered backend in front of delegate. errors counts the
// events dropped; nil counts nothing.
func New(delegate audit.Backend, c Config, logger *slog.Logger, errors audit.ErrorCounter) *Backend {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if c.MaxBatchSize < 1 {
		c.MaxBatchSize = 1
	}
	b := &Backend{delegate: delegate, config: c, logger: logger, errors: errors,
		buffer: make(chan *audit.Event, c.BufferSize), stop: make(chan struct{}), done: make(chan struct{})}
	if c.ThrottleEnable {
		b.throttle = flowcontrol.NewTokenBucketRateLimiter(c.ThrottleQPS, c.ThrottleBurst)
	}
	return b
}

var (
	errBlocked  = errors.New("audit buffer queue blocked")
	errShutDown = errors.New("audit backend shut down")
)

// ProcessEvents queues events without waiting. Events that do not fit,
// or come after Shutdown, are dropped and reported. It always returns
// true: the request goes on whether or not its event was kept.
func (b *Backend) ProcessEvents(events ...*audit.Event) bool {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		audit.HandlePluginError(b.logger, b.errors, PluginName, errShutDown, events...)
		return true
	}
	for i, ev := range events {
		select {
		case b.buffer <- ev:
		default:
			audit.HandlePluginError(b.logger, b.errors, PluginName, errBlocked, events[i:]...)
			return true
		}
	}
	return true
}

// Run starts the goroutine that sends batches, and the delegate. The
// goroutine runs until Shutdown.
func (b *Backend) Run(ctx context.Context) error {
	if err := b.delegate.Run(ctx); err != nil {
		return err
	}
	go b.loop()
	return nil
}

func (b *Backend) loop() {
	defer close(b.done)
	for {
		batch, stopped := b.collect()
		b.send(batch)
		if stopped {
			return
		}
	}
}

// collect gathers the next batch: full, timed out, or the last one.
func (b *Backend) collect() ([]*audit.Event, bool) {
	var batch []*audit.Event
	var timeout <-chan time.Time
	for len(batch) < b.config.MaxBatchSize {
		select {
		case ev, ok := <-b.buffer:
			if !ok {
				return batch, true
			}
			batch = append(batch, ev)
			if timeout == nil && b.config.MaxBatchWait > 0 {
				t := time.NewTimer(b.config.MaxBatchWait)
				defer t.Stop()
				timeout = t.C
			}
		case <-timeout:
			return batch, false
		}
	}
	return batch, false
}

func (b *Backend) send(batch []*audit.Event) {
	if len(batch) == 0 {
		return
	}
	if b.throttle != nil {
		b.throttle.Accept()
	}
	if !b.config.AsyncDelegate {
		b.delegate.ProcessEvents(batch...)
		return
	}
	b.sending.Add(1)
	go func() {
		defer b.sending.Done()
		b.delegate.ProcessEvents(batch...)
	}()
}

// Shutdown stops taking events, sends those buffered, waits for the
// batches in flight, and shuts the delegate down. Run must have been
// called.
func (b *Backend) Shutdown() {
	b.once.Do(func() {
		b.mu.Lock()
		b.closed = true
		close(b.buffer)
		b.mu.Unlock()
		<-b.done
		b.sending.Wait()
		b.delegate.Shutdown()
	})
}

func (b *Backend) String() string { return PluginName + "<" + b.delegate.String() + ">" }

// IgnoreErrors is the backend of --audit-*-mode=blocking: events are
// stored before the request goes on, but a failure to store one does not
// fail the request (blocking-strict uses the backend as it is).
func IgnoreErrors(b audit.Backend) audit.Backend { return ignoreErrors{b} }

type ignoreErrors struct{ audit.Backend }

func (i ignoreErrors) ProcessEvents(events ...*audit.Event) bool {
	i.Backend.ProcessEvents(events...)
	return true
}

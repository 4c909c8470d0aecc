package buffered

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/pkg/audit"
)

// sink is a delegate backend that records the batches it gets and, while
// stalled, blocks in ProcessEvents until released.
type sink struct {
	mu      sync.Mutex
	batches [][]*audit.Event
	entered chan struct{} // gets a value each time ProcessEvents starts
	release chan struct{} // closed to let stalled calls go on
	shut    bool
}

func newSink(stalled bool) *sink {
	s := &sink{entered: make(chan struct{}, 1000), release: make(chan struct{})}
	if !stalled {
		close(s.release)
	}
	return s
}

func (s *sink) ProcessEvents(evs ...*audit.Event) bool {
	s.entered <- struct{}{}
	<-s.release
	s.mu.Lock()
	defer s.mu.Unlock()
	s.batches = append(s.batches, evs)
	return true
}
func (s *sink) Run(context.Context) error { return nil }
func (s *sink) Shutdown()                 { s.mu.Lock(); s.shut = true; s.mu.Unlock() }
func (s *sink) String() string            { return "sink" }

func (s *sink) count() (events, batches, largest int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range s.batches {
		events += len(b)
		largest = max(largest, len(b))
	}
	return events, len(s.batches), largest
}

func event(i int) *audit.Event { return &audit.Event{AuditID: "id", RequestURI: fmt.Sprintf("/%d", i)} }

func TestBatchModeNeverBlocksAndCountsWhatItDrops(t *testing.T) {
	s := newSink(true)
	var log bytes.Buffer
	m := audit.NewMetrics()
	b := New(s, Config{BufferSize: 3, MaxBatchSize: 1}, slog.New(slog.NewTextHandler(&log, nil)), m)
	if err := b.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The first event reaches the sink, which stalls with it.
	b.ProcessEvents(event(0))
	<-s.entered
	// With the sink stalled, the buffer holds 3 more; the other 7 are
	// dropped, and every call returns (a blocked call would hang here).
	returned := 0
	for i := 1; i <= 10; i++ {
		if !b.ProcessEvents(event(i)) {
			t.Errorf("ProcessEvents reported a failure: batch mode never fails a request")
		}
		returned++
	}
	if returned != 10 {
		t.Fatalf("%d of 10 calls returned", returned)
	}
	if got := m.Errors(PluginName); got != 7 {
		t.Errorf("apiserver_audit_error_total{plugin=buffered} = %v, want 7", got)
	}
	if !strings.Contains(log.String(), "Error in audit plugin 'buffered' affecting 1 audit events: audit buffer queue blocked") {
		t.Errorf("log does not say the queue was blocked:\n%s", log.String())
	}
	close(s.release)
	b.Shutdown()
	if events, _, _ := s.count(); events != 4 {
		t.Errorf("the sink got %d events, want the 4 that were kept", events)
	}
}

func TestShutdownSendsWhatIsBuffered(t *testing.T) {
	s := newSink(false)
	b := New(s, Config{BufferSize: 1000, MaxBatchSize: 1000, MaxBatchWait: time.Hour}, nil, nil)
	if err := b.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		b.ProcessEvents(event(i))
	}
	b.Shutdown()
	if events, _, _ := s.count(); events != 100 || !s.shut {
		t.Errorf("after Shutdown the sink has %d events (shut down: %v), want 100", events, s.shut)
	}
	// Events after Shutdown are dropped, not sent on a closed buffer.
	b.ProcessEvents(event(101))
}

func TestBatchesAreAtMostMaxBatchSize(t *testing.T) {
	s := newSink(false)
	b := New(s, Config{BufferSize: 100, MaxBatchSize: 7, MaxBatchWait: time.Hour, AsyncDelegate: true, ThrottleEnable: true, ThrottleQPS: 1000, ThrottleBurst: 100}, nil, nil)
	if err := b.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 50; i++ {
		b.ProcessEvents(event(i))
	}
	b.Shutdown()
	events, batches, largest := s.count()
	if events != 50 || largest > 7 || batches < 8 {
		t.Errorf("%d events in %d batches of at most %d, want 50 in batches of at most 7", events, batches, largest)
	}
}

func TestBlockingModeNeverLosesAnEvent(t *testing.T) {
	s := newSink(true)
	b := IgnoreErrors(s)
	const writers, each = 20, 25
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if !b.ProcessEvents(event(i)) {
					t.Error("blocking mode reported a failure")
				}
			}
		}()
	}
	// Every writer is waiting in the stalled sink: none went on without
	// its event being taken.
	for w := 0; w < writers; w++ {
		<-s.entered
	}
	if events, _, _ := s.count(); events != 0 {
		t.Fatalf("a stalled sink stored %d events", events)
	}
	close(s.release)
	wg.Wait()
	if events, _, _ := s.count(); events != writers*each {
		t.Errorf("the sink got %d events, want %d", events, writers*each)
	}
}

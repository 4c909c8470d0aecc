package truncate

import (
	"context"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/pkg/audit"
)

type sink struct{ batches [][]*audit.Event }

func (s *sink) ProcessEvents(evs ...*audit.Event) bool {
	s.batches = append(s.batches, evs)
	return true
}
func (s *sink) Run(context.Context) error { return nil }
func (s *sink) Shutdown()                 {}
func (s *sink) String() string            { return "sink" }

func big(level audit.Level, n int, annotation int) *audit.Event {
	ev := &audit.Event{Level: level, RequestObject: audit.RawObject(`"` + strings.Repeat("x", n) + `"`)}
	if annotation > 0 {
		ev.Annotations = map[string]string{"a": strings.Repeat("y", annotation)}
	}
	return ev
}

func TestLargeEventsLoseTheirObjects(t *testing.T) {
	s := &sink{}
	m := audit.NewMetrics()
	b := New(s, Config{MaxEventSize: 1000, MaxBatchSize: 1000}, nil, m)
	orig := big(audit.LevelRequest, 2000, 0)
	b.ProcessEvents(orig, big(audit.LevelMetadata, 2000, 0), big(audit.LevelRequest, 10, 2000), big(audit.LevelRequest, 10, 0))
	var got []*audit.Event
	for _, batch := range s.batches {
		got = append(got, batch...)
	}
	if len(got) != 2 {
		t.Fatalf("%d events handed on, want the truncated one and the small one", len(got))
	}
	if got[0].RequestObject != nil || got[0].Annotations["audit.k8s.io/truncated"] != "true" {
		t.Errorf("truncated event = %+v", got[0])
	}
	if orig.RequestObject == nil || orig.Annotations != nil {
		t.Error("the original event was changed")
	}
	if m.Errors(PluginName) != 2 {
		t.Errorf("dropped %v, want 2 (a Metadata event is never truncated, only dropped)", m.Errors(PluginName))
	}
}

func TestBatchesStayUnderMaxBatchSize(t *testing.T) {
	s := &sink{}
	b := New(s, Config{MaxEventSize: 1000, MaxBatchSize: 1000}, nil, nil)
	var evs []*audit.Event
	for i := 0; i < 10; i++ {
		evs = append(evs, big(audit.LevelRequest, 300, 0))
	}
	b.ProcessEvents(evs...)
	n := 0
	for _, batch := range s.batches {
		var size int64
		for _, ev := range batch {
			sz, _ := sizeOf(ev)
			size += sz
		}
		if size > 1000 {
			t.Errorf("a batch of %d bytes", size)
		}
		n += len(batch)
	}
	if n != 10 || len(s.batches) < 4 {
		t.Errorf("%d events in %d batches", n, len(s.batches))
	}
}

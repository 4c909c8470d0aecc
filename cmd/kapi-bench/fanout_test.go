package main

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestAnalyzeFanout(t *testing.T) {
	// Three writes, sent at 5, 15 and 25 ms and acked at 10, 20 and 30 ms.
	acks := map[uint64]ackedWrite{101: {sent: ms(5), ack: ms(10)}, 102: {sent: ms(15), ack: ms(20)}, 103: {sent: ms(25), ack: ms(30)}}
	complete := &watcher{rvs: []uint64{101, 102, 103}, recv: []time.Duration{ms(12), ms(25), ms(40)}}
	// One event read before its write's ack; one event no write made.
	early := &watcher{rvs: []uint64{101, 999, 102, 103}, recv: []time.Duration{ms(9), ms(21), ms(22), ms(50)}}
	short := &watcher{rvs: []uint64{101}, recv: []time.Duration{ms(11)}}
	broken := &watcher{rvs: []uint64{101, 102, 103}, recv: []time.Duration{ms(11), ms(21), ms(31)}}
	broken.failed.Store(true)

	s := analyzeFanout([]*watcher{complete, early, short, broken}, acks, 3)
	if s.complete != 2 || s.failed != 2 {
		t.Errorf("complete %d failed %d, want 2 and 2", s.complete, s.failed)
	}
	if s.delivered != 11 || s.unexpected != 1 || s.early != 1 {
		t.Errorf("delivered %d unexpected %d early %d, want 11, 1, 1", s.delivered, s.unexpected, s.early)
	}
	// The last expected event of a watcher that got them all: early's at
	// 50 ms. (broken got them all too, earlier, but then failed.)
	if s.allDelivered != ms(50) {
		t.Errorf("allDelivered %v, want 50ms", s.allDelivered)
	}
	want := []time.Duration{0, ms(1), ms(1), ms(1), ms(1), ms(2), ms(2), ms(5), ms(10), ms(20)}
	if !slices.Equal(s.latencies, want) {
		t.Errorf("latencies %v, want %v", s.latencies, want)
	}
	// Unclipped, the early delivery is a millisecond before its ack.
	wantAfterAck := []time.Duration{-ms(1), ms(1), ms(1), ms(1), ms(1), ms(2), ms(2), ms(5), ms(10), ms(20)}
	if !slices.Equal(s.afterAck, wantAfterAck) {
		t.Errorf("afterAck %v, want %v", s.afterAck, wantAfterAck)
	}
	// From the send time, the early delivery has a latency too.
	wantFromSend := []time.Duration{ms(4), ms(6), ms(6), ms(6), ms(6), ms(7), ms(7), ms(10), ms(15), ms(25)}
	if !slices.Equal(s.fromSend, wantFromSend) {
		t.Errorf("fromSend %v, want %v", s.fromSend, wantFromSend)
	}
	if got := failureReasons([]*watcher{complete, short}, 3, 3); !strings.Contains(got, "watcher 1: 1 of 3 events") {
		t.Errorf("failureReasons = %q", got)
	}
}

func TestFanoutKey(t *testing.T) {
	if got := fanoutKey(1000, "all_delivered_s"); got != "watch_fanout_1000_all_delivered_s" {
		t.Errorf("got %q", got)
	}
	if timeUnit(fanoutKey(100, "all_delivered_s")) != time.Second || timeUnit(fanoutKey(100, "events_per_s")) != 0 {
		t.Error("fan-out keys must keep their unit suffix")
	}
}

func TestEventPayload(t *testing.T) {
	base := payload(32, 0)
	a, b := eventPayload(base, 7), eventPayload(base, 1234)
	if len(a) != 32 || len(b) != 32 || a == b || a == base || !strings.HasPrefix(b, "1234:") {
		t.Errorf("payloads %q %q", a, b)
	}
	// A payload too small for the tag is the tag: still one per update.
	if got := eventPayload("", 5); got != "5:" {
		t.Errorf("got %q", got)
	}
	if payload(40, 0) == payload(40, 1) || len(payload(40, 1)) != 40 || payload(0, 1) != "" {
		t.Error("the two payload patterns must differ and keep the size")
	}
}

func TestNewResourceVersion(t *testing.T) {
	if rv, err := newResourceVersion("100", "105"); err != nil || rv != 105 {
		t.Errorf("got %d, %v", rv, err)
	}
	// An update that changed nothing comes back with the old version.
	if _, err := newResourceVersion("105", "105"); err == nil {
		t.Error("unchanged resourceVersion accepted")
	}
	if _, err := newResourceVersion("105", "x"); err == nil {
		t.Error("non-numeric resourceVersion accepted")
	}
}

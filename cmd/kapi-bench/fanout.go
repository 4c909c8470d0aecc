package main

import (
	"slices"
	"time"
)

// fanoutStats is what the watchers of one fan-out received, matched
// against the writes that caused it. All times are since the fan-out's
// base time, the send time of its first write.
type fanoutStats struct {
	complete int // watchers that got every event and no error
	failed   int // the others: error, closed early, or incomplete
	// delivered counts the events the watchers received, unexpected those
	// whose resourceVersion no write returned.
	delivered, unexpected int64
	// allDelivered is when the last complete watcher got its last
	// expected event.
	allDelivered time.Duration
	// latencies, sorted, are receive time minus the ack time of the write,
	// per event per watcher. early counts deliveries that arrived before
	// the writer had read the write's response; their latency is 0.
	latencies []time.Duration
	early     int64
	// afterAck, sorted, are the same receive time minus ack time, not
	// clipped: negative when the watcher had the event first.
	afterAck []time.Duration
	// fromSend, sorted, are receive time minus the send time of the write:
	// the write's own latency plus the delivery's.
	fromSend []time.Duration
}

// analyzeFanout matches what each watcher received against writes, the
// successful writes by the resourceVersion each returned. want is the
// number of events each watcher should have received: len(writes).
func analyzeFanout(watchers []*watcher, writes map[uint64]ackedWrite, want int) fanoutStats {
	var s fanoutStats
	total := 0
	for _, w := range watchers {
		total += len(w.recv)
	}
	s.latencies = make([]time.Duration, 0, total)
	s.fromSend = make([]time.Duration, 0, total)
	s.afterAck = make([]time.Duration, 0, total)
	for _, w := range watchers {
		s.delivered += int64(len(w.recv))
		got := 0
		for i, rv := range w.rvs {
			wr, ok := writes[rv]
			if !ok {
				s.unexpected++
				continue
			}
			got++
			lat := w.recv[i] - wr.ack
			s.afterAck = append(s.afterAck, lat)
			if lat < 0 {
				s.early++
				lat = 0
			}
			s.latencies = append(s.latencies, lat)
			s.fromSend = append(s.fromSend, w.recv[i]-wr.sent)
			if got == want {
				s.allDelivered = max(s.allDelivered, w.recv[i])
			}
		}
		if got >= want && !w.failed.Load() {
			s.complete++
		} else {
			s.failed++
		}
	}
	slices.Sort(s.latencies)
	slices.Sort(s.fromSend)
	slices.Sort(s.afterAck)
	return s
}

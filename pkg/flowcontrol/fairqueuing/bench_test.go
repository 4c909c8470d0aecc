package fairqueuing

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/kapi-dev/kapi/pkg/flowcontrol/request"
)

// The cost a request pays in the queue set, admitted at once and
// finished, with many goroutines contending for one level: the case of
// every request of a busy server.
func BenchmarkStartAndFinish(b *testing.B) {
	for _, limit := range []int{4, 100} {
		b.Run(map[int]string{4: "saturated", 100: "free"}[limit], func(b *testing.B) {
			qs, err := New(Config{Name: "pl", Queues: 64, HandSize: 8, QueueLengthLimit: 1 << 20, ConcurrencyLimit: limit}, Options{})
			if err != nil {
				b.Fatal(err)
			}
			var n atomic.Uint64
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					h := n.Add(1) * 0x9e3779b97f4a7c15
					r, _ := qs.StartRequest(context.Background(), request.WorkEstimate{InitialSeats: 1}, Flow{Hash: h, Schema: "fs"}, nil)
					r.Finish(func() {})
				}
			})
		})
	}
}

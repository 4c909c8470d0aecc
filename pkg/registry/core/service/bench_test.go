package service

import (
	"fmt"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// BenchmarkCreateNodePortService creates NodePort Services whose node
// port the server picks, from 32 concurrent clients, on the embedded etcd:
//
//	go test -run x -bench CreateNodePortService -benchtime 2000x ./pkg/registry/core/service/
//
// b.N must stay below the 2768 ports of the range.
func BenchmarkCreateNodePortService(b *testing.B) {
	for _, clients := range []int{1, 32} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			s := newCluster("10.0.0.0/16", "30000-32767").server(&testing.T{})
			var n atomic.Int64
			b.SetParallelism(max(1, clients/2))
			if clients == 1 {
				b.SetParallelism(1)
			}
			b.ResetTimer()
			run := func() {
				i := n.Add(1)
				if _, err := s.create(&testing.T{}, svc(fmt.Sprintf("s%d", i), corev1.ServiceTypeNodePort, "80")); err != nil {
					b.Error(err)
				}
			}
			if clients == 1 {
				for range b.N {
					run()
				}
				return
			}
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					run()
				}
			})
		})
	}
}

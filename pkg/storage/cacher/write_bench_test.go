package cacher_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kapi-dev/kapi/pkg/storage"
	"github.com/kapi-dev/kapi/pkg/storage/cacher"
	"github.com/kapi-dev/kapi/pkg/storage/storagetest"
)

// BenchmarkUpdate measures what a write costs when it returns only once
// the watch cache has its event (through the Cacher), against the same
// write straight to the etcd3 store below it, with the same cache
// running and applying every event. One writer, or -cpu/GOMAXPROCS × 8
// concurrent writers each on a configmap of its own.
func BenchmarkUpdate(b *testing.B) {
	for _, bc := range []struct {
		name     string
		parallel bool
	}{{"sequential", false}, {"parallel", true}} {
		for _, through := range []string{"cacher", "etcd3"} {
			b.Run(bc.name+"/"+through, func(b *testing.B) {
				e := newEnv(b, cacher.Config{})
				var s storage.Interface = e.cacher
				if through == "etcd3" {
					s = e.backend
				}
				payload := make([]byte, 1024)
				var n atomic.Int64
				write := func(name string, i int) {
					storagetest.Update(b, s, "bench", name, func(cm *corev1.ConfigMap) {
						payload[0] = byte(i)
						cm.Data = map[string]string{"payload": fmt.Sprintf("%d-%x", i, payload[:8])}
					})
				}
				setup := func() string {
					name := fmt.Sprintf("cm%d", n.Add(1))
					storagetest.Create(b, e.backend, configMap("bench", name, nil, nil))
					return name
				}
				if !bc.parallel {
					name := setup()
					b.ResetTimer()
					for i := 0; b.Loop(); i++ {
						write(name, i)
					}
					return
				}
				b.SetParallelism(8)
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					name := setup()
					for i := 0; pb.Next(); i++ {
						write(name, i)
					}
				})
			})
		}
	}
}

package worker

import (
	"context"
	"errors"
	"sync"
	"testing"
)

// Every queued key is synced; a key whose sync fails is told of and
// retried until it succeeds; Run returns once ctx is done.
func TestQueueSyncsEveryKeyAndRetriesFailures(t *testing.T) {
	var mu sync.Mutex
	synced := map[string]int{}
	var failures []string
	allDone := make(chan struct{})
	q := New("test", func(_ context.Context, key string) error {
		mu.Lock()
		defer mu.Unlock()
		synced[key]++
		if key == "flaky" && synced[key] < 3 {
			return errors.New("not yet")
		}
		if synced["a"] >= 1 && synced["b"] >= 1 && synced["flaky"] >= 3 {
			select {
			case <-allDone:
			default:
				close(allDone)
			}
		}
		return nil
	}, func(key string, err error) {
		mu.Lock()
		defer mu.Unlock()
		failures = append(failures, key+": "+err.Error())
	})
	for _, k := range []string{"a", "b", "flaky"} {
		q.Add(k)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		q.Run(ctx, 2, func() bool { return true })
		close(stopped)
	}()
	<-allDone
	cancel()
	<-stopped

	mu.Lock()
	defer mu.Unlock()
	if synced["a"] != 1 || synced["b"] != 1 || synced["flaky"] != 3 {
		t.Errorf("syncs per key: %v, want a and b once, flaky three times", synced)
	}
	if len(failures) != 2 || failures[0] != "flaky: not yet" {
		t.Errorf("failures told: %q, want flaky's two", failures)
	}
}

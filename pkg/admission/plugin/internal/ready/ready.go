// Package ready is how an admission plugin that reads an informer's
// cache waits for its first sync, as kube-apiserver's plugins do: at most
// ten seconds, looking every tenth of a second, before they refuse the
// write with "not yet ready to handle request".
package ready

import (
	"context"
	"time"
)

// Timeout bounds the wait.
const Timeout = 10 * time.Second

// Wait waits until synced() is true, Timeout passes or ctx ends, and
// says whether it synced.
func Wait(ctx context.Context, synced func() bool) bool {
	if synced() {
		return true
	}
	timeout := time.NewTimer(Timeout)
	defer timeout.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			if synced() {
				return true
			}
		case <-timeout.C:
			return synced()
		case <-ctx.Done():
			return false
		}
	}
}

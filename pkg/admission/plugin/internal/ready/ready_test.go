package ready

import (
	"context"
	"sync/atomic"
	"testing"
)

// Wait returns at once for a synced cache, waits for one that syncs, and
// gives up when the request ends.
func TestWait(t *testing.T) {
	if !Wait(context.Background(), func() bool { return true }) {
		t.Error("a synced cache: not ready")
	}
	var calls atomic.Int32
	if !Wait(context.Background(), func() bool { return calls.Add(1) >= 3 }) {
		t.Error("a cache that syncs: not ready")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if Wait(ctx, func() bool { return false }) {
		t.Error("a request that ended: ready")
	}
}

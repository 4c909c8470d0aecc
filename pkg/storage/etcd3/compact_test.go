package etcd3

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/kapi-dev/kapi/pkg/storage/embedded"
)

func TestCompactorsTakeTurns(t *testing.T) {
	s, err := embedded.Start(context.Background(), embedded.Config{DataDir: t.TempDir(), UnsafeNoFsync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	client := s.Client()
	ctx := context.Background()

	write := func() int64 {
		t.Helper()
		resp, err := client.Put(ctx, "/registry/k", "v")
		if err != nil {
			t.Fatal(err)
		}
		return resp.Header.Revision
	}
	compacted := func(rev int64) bool {
		t.Helper()
		_, err := client.Get(ctx, "/registry/k", clientv3.WithRev(rev))
		if err != nil && !errors.Is(err, rpctypes.ErrCompacted) {
			t.Fatal(err)
		}
		return err != nil
	}
	round := func(c *compactor) {
		t.Helper()
		if err := c.round(ctx, client); err != nil {
			t.Fatal(err)
		}
	}

	var a, b compactor
	old := write()
	round(&a) // a takes the first round: it only marks where the next compacts to
	mark := a.rev
	round(&b) // not b's turn
	if compacted(old) {
		t.Fatal("compacted in the first round")
	}

	write()
	round(&a) // compacts up to the first round's mark
	if !compacted(old) || compacted(mark) {
		t.Errorf("second round: history before %d compacted: %v, at %d: %v; want true, false",
			old, compacted(old), mark, compacted(mark))
	}

	// a stops. b learns of the round it missed, marks, and takes over.
	round(&b)
	mark = b.rev
	last := write()
	round(&b)
	if !compacted(mark-1) || compacted(last) {
		t.Error("the remaining compactor did not take over")
	}
}

func TestRunCompactorStopsWithItsContext(t *testing.T) {
	s, err := embedded.Start(context.Background(), embedded.Config{DataDir: t.TempDir(), UnsafeNoFsync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		RunCompactor(ctx, s.Client(), time.Millisecond, slog.New(slog.DiscardHandler))
		close(done)
	}()
	cancel()
	<-done
}

package embedded

import (
	"context"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/metadata"
)

// next returns the next response of a watch; the bound only keeps a broken
// test from hanging.
func next(t *testing.T, wc clientv3.WatchChan) (clientv3.WatchResponse, bool) {
	t.Helper()
	select {
	case resp, ok := <-wc:
		return resp, ok
	case <-time.After(30 * time.Second):
		t.Fatal("no watch response")
		return clientv3.WatchResponse{}, false
	}
}

// Watches read from the store answer as etcd's client does over gRPC:
// events with their previous values, from a past revision, filtered, a
// compacted start, and progress notifications per stream.
func TestWatchesAnswerAsEtcdsClient(t *testing.T) {
	s := start(t, Config{DataDir: t.TempDir(), UnsafeNoFsync: true})
	c := s.Client()
	ctx := context.Background()
	put := func(k, v string) int64 {
		t.Helper()
		resp, err := c.Put(ctx, k, v)
		if err != nil {
			t.Fatal(err)
		}
		return resp.Header.Revision
	}
	first := put("/w/a", "1")
	put("/w/a", "2")
	put("/w/b", "1")
	del, err := c.Delete(ctx, "/w/a")
	if err != nil {
		t.Fatal(err)
	}
	put("/x", "outside the prefix")

	t.Run("prefix from a past revision, with previous values", func(t *testing.T) {
		wc := c.Watch(ctx, "/w/", clientv3.WithPrefix(), clientv3.WithRev(first), clientv3.WithPrevKV())
		type ev struct {
			typ       mvccpb.Event_EventType
			key, val  string
			prev      string
			create    bool
			modRev    int64
			hasPrevKV bool
		}
		var got []ev
		for len(got) < 4 {
			resp, ok := next(t, wc)
			if !ok || resp.Err() != nil {
				t.Fatalf("watch ended: %v", resp.Err())
			}
			for _, e := range resp.Events {
				g := ev{typ: e.Type, key: string(e.Kv.Key), val: string(e.Kv.Value), create: e.IsCreate(), modRev: e.Kv.ModRevision, hasPrevKV: e.PrevKv != nil}
				if e.PrevKv != nil {
					g.prev = string(e.PrevKv.Value)
				}
				got = append(got, g)
			}
		}
		want := []ev{
			{typ: mvccpb.PUT, key: "/w/a", val: "1", create: true, modRev: first},
			{typ: mvccpb.PUT, key: "/w/a", val: "2", prev: "1", modRev: first + 1, hasPrevKV: true},
			{typ: mvccpb.PUT, key: "/w/b", val: "1", create: true, modRev: first + 2},
			{typ: mvccpb.DELETE, key: "/w/a", prev: "2", modRev: del.Header.Revision, hasPrevKV: true},
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("event %d = %+v, want %+v", i, got[i], want[i])
			}
		}
	})

	t.Run("filtered", func(t *testing.T) {
		wc := c.Watch(ctx, "/w/", clientv3.WithPrefix(), clientv3.WithRev(first), clientv3.WithFilterPut())
		resp, _ := next(t, wc)
		if len(resp.Events) != 1 || resp.Events[0].Type != mvccpb.DELETE {
			t.Fatalf("with puts filtered out, got %v", resp.Events)
		}
	})

	t.Run("from a compacted revision", func(t *testing.T) {
		current := put("/w/c", "1")
		if _, err := c.Compact(ctx, current, clientv3.WithCompactPhysical()); err != nil {
			t.Fatal(err)
		}
		wc := c.Watch(ctx, "/w/", clientv3.WithPrefix(), clientv3.WithRev(first))
		resp, _ := next(t, wc)
		if resp.Err() != rpctypes.ErrCompacted || resp.CompactRevision != current || !resp.Canceled {
			t.Fatalf("watch from a compacted revision: %+v, err %v; want ErrCompacted at %d", resp, resp.Err(), current)
		}
		if _, ok := next(t, wc); ok {
			t.Fatal("the watch goes on after it was compacted")
		}
	})

	t.Run("progress on request, per stream", func(t *testing.T) {
		mine := metadata.AppendToOutgoingContext(ctx, "stream", "mine")
		other := metadata.AppendToOutgoingContext(ctx, "stream", "other")
		wMine := c.Watch(mine, "/w/", clientv3.WithPrefix())
		wOther := c.Watch(other, "/w/", clientv3.WithPrefix())
		rev := put("/unwatched", "x")
		if err := c.RequestProgress(mine); err != nil {
			t.Fatal(err)
		}
		resp, _ := next(t, wMine)
		if !resp.IsProgressNotify() || resp.Header.Revision < rev {
			t.Fatalf("progress request: %+v, want a notification at %d or later", resp, rev)
		}
		// The other stream asked for nothing: its first response is the
		// event of the next write.
		put("/w/d", "1")
		if resp, _ := next(t, wOther); len(resp.Events) != 1 || string(resp.Events[0].Kv.Key) != "/w/d" {
			t.Fatalf("other stream got %+v, want only the event of /w/d", resp)
		}
	})

	t.Run("closing the client ends its watches", func(t *testing.T) {
		s := start(t, Config{DataDir: t.TempDir(), UnsafeNoFsync: true})
		wc := s.Client().Watch(ctx, "/", clientv3.WithPrefix())
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		for {
			if _, ok := next(t, wc); !ok {
				return
			}
		}
	})
}

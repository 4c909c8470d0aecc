package embedded

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// start starts an embedded etcd on dir and closes it when the test ends.
func start(t testing.TB, cfg Config) *Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := Start(ctx, cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

func TestDataSurvivesRestart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "etcd")
	ctx := context.Background()

	first := start(t, Config{DataDir: dir})
	var lastRev int64
	for i := range 100 {
		resp, err := first.Client().Put(ctx, fmt.Sprintf("/registry/k%03d", i), fmt.Sprint(i))
		if err != nil {
			t.Fatal(err)
		}
		lastRev = resp.Header.Revision
	}
	if err := first.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	second := start(t, Config{DataDir: dir})
	resp, err := second.Client().Get(ctx, "/registry/", clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) != 100 {
		t.Fatalf("after restart: %d keys, want 100", len(resp.Kvs))
	}
	for i, kv := range resp.Kvs {
		if string(kv.Value) != fmt.Sprint(i) {
			t.Errorf("%s = %q, want %q", kv.Key, kv.Value, fmt.Sprint(i))
		}
	}
	// The revision, which clients hold as resourceVersions, carries on.
	if resp.Header.Revision != lastRev {
		t.Errorf("revision after restart = %d, want %d", resp.Header.Revision, lastRev)
	}
}

func TestManyServersSideBySide(t *testing.T) {
	// No server listens anywhere, so none can collide with another.
	for i := range 4 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			s := start(t, Config{DataDir: t.TempDir()})
			if _, err := s.Client().Put(context.Background(), "k", "v"); err != nil {
				t.Fatal(err)
			}
			if got := s.ClientURL(); got != "" {
				t.Errorf("ClientURL = %q, want none", got)
			}
		})
	}
}

func TestClientURL(t *testing.T) {
	s := start(t, Config{DataDir: t.TempDir(), ClientURL: "http://127.0.0.1:0"})
	u := s.ClientURL()
	if !strings.HasPrefix(u, "http://127.0.0.1:") || strings.HasSuffix(u, ":0") {
		t.Fatalf("ClientURL = %q, want a resolved loopback URL", u)
	}
	if _, err := s.Client().Put(context.Background(), "k", "v"); err != nil {
		t.Fatal(err)
	}

	// A network client sees what the in-process one wrote.
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{u}, DialTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	resp, err := c.Get(context.Background(), "k")
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) != 1 || string(resp.Kvs[0].Value) != "v" {
		t.Errorf("Get over the network = %v", resp.Kvs)
	}
}

func TestConfigIsValidated(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
	}{
		{"no data dir", Config{}},
		{"client URL not loopback", Config{DataDir: "d", ClientURL: "http://0.0.0.0:2379"}},
		{"client URL host name", Config{DataDir: "d", ClientURL: "http://localhost:2379"}},
		{"client URL without port", Config{DataDir: "d", ClientURL: "http://127.0.0.1"}},
		{"client URL https", Config{DataDir: "d", ClientURL: "https://127.0.0.1:2379"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if s, err := Start(context.Background(), tt.cfg); err == nil {
				s.Close()
				t.Fatal("Start succeeded, want a configuration error")
			}
		})
	}
}

func TestStartGivesUpWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// A member may become ready before Start looks at the context; only
	// the outcome matters: an error, or a working server.
	s, err := Start(ctx, Config{DataDir: t.TempDir()})
	if err == nil {
		defer s.Close()
		if _, err := s.Client().Put(context.Background(), "k", "v"); err != nil {
			t.Fatal(err)
		}
	}
}

func TestClose(t *testing.T) {
	s, err := Start(context.Background(), Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.Done():
		t.Fatal("Done before Close")
	default:
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.Done():
	default:
		t.Error("Done not closed after Close")
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := s.Client().Get(context.Background(), "k"); err == nil {
		t.Error("the client works after Close")
	}
}

// The benchmarks measure the time from Start until a first write has been
// acknowledged, with fsync on as in production, on a new and on an
// existing data dir.

func BenchmarkStartNewDataDir(b *testing.B) {
	for b.Loop() {
		benchmarkStart(b, b.TempDir())
	}
}

func BenchmarkStartExistingDataDir(b *testing.B) {
	dir := b.TempDir()
	benchmarkStart(b, dir)
	for b.Loop() {
		benchmarkStart(b, dir)
	}
}

func benchmarkStart(b *testing.B, dir string) {
	s, err := Start(context.Background(), Config{DataDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.Client().Put(context.Background(), "k", "v"); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	defer b.StartTimer()
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
}

// TestWatchesWorkAfterACancellationStorm: when many watches end at once
// (their clients went away), new watches still get events. etcd's
// in-process client deadlocks here (etcd-io/etcd#18879); kapi's watches,
// read from the store, must not.
func TestWatchesWorkAfterACancellationStorm(t *testing.T) {
	s := start(t, Config{DataDir: t.TempDir(), UnsafeNoFsync: true})
	c := s.Client()
	// The deadlock is forever: the bound only has to be finite, and long
	// enough for 6000 watches under -race on a loaded 2-core machine (a
	// minute was not, in CI).
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	const watches = 2000
	for round := range 3 {
		wctx, stop := context.WithCancel(ctx)
		for i := range watches {
			// The same metadata puts them on one stream, as the etcd3
			// store's watches are.
			c.Watch(clientv3.WithRequireLeader(wctx), fmt.Sprintf("/storm/%d", i))
		}
		if _, err := c.Put(ctx, "/storm/0", "x"); err != nil {
			t.Fatal(err)
		}
		stop()

		probe := c.Watch(ctx, fmt.Sprintf("/probe/%d", round))
		if _, err := c.Put(ctx, fmt.Sprintf("/probe/%d", round), "x"); err != nil {
			t.Fatal(err)
		}
		select {
		case resp := <-probe:
			if err := resp.Err(); err != nil || len(resp.Events) != 1 {
				t.Fatalf("round %d: probe watch got %+v (%v)", round, resp, err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("round %d: a new watch got no event after %d watches were cancelled at once", round, watches)
		}
	}
}

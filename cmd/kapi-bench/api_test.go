package main

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
)

func TestRunConcurrent(t *testing.T) {
	var calls atomic.Int64
	seen := make([]atomic.Bool, 100)
	ph := runConcurrent(context.Background(), 100, 8, func(_ context.Context, i int) error {
		calls.Add(1)
		if seen[i].Swap(true) {
			t.Errorf("index %d done twice", i)
		}
		if i%10 == 0 {
			return errors.New("boom")
		}
		return nil
	})
	if calls.Load() != 100 || ph.ok != 90 || ph.errors != 10 || len(ph.latencies) != 90 {
		t.Errorf("calls %d ok %d errors %d latencies %d, want 100/90/10/90", calls.Load(), ph.ok, ph.errors, len(ph.latencies))
	}
	if ph.firstErr == nil {
		t.Error("first error not kept")
	}
	for i := 1; i < len(ph.latencies); i++ {
		if ph.latencies[i] < ph.latencies[i-1] {
			t.Fatal("latencies not sorted")
		}
	}
}

func TestRunConcurrentStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	ph := runConcurrent(ctx, 1000, 1, func(_ context.Context, i int) error {
		if i == 9 {
			cancel()
		}
		return nil
	})
	if ph.ok != 10 || ph.errors != 0 {
		t.Errorf("ok %d errors %d, want 10 done and the rest not started", ph.ok, ph.errors)
	}
}

func TestListKindKeys(t *testing.T) {
	want := []string{
		"list_json_rv_consistent",
		"list_json_rv0",
		"list_proto_rv_consistent",
		"list_proto_rv0",
		"list_json_paged500_consistent",
		"list_proto_paged500_consistent",
	}
	for i, k := range listKinds {
		if got := k.key(500); got != want[i] {
			t.Errorf("listKinds[%d].key = %q, want the baseline's %q", i, got, want[i])
		}
	}
}

func TestParseFlags(t *testing.T) {
	o, err := parseFlags([]string{"all", "--kapi-binary", "/tmp/kapi", "--n", "2000", "--c", "16", "--repeat", "1"})
	if err != nil {
		t.Fatal(err)
	}
	if o.mode != "all" || o.startup.binary != "/tmp/kapi" || o.api.n != 2000 || o.api.c != 16 ||
		o.startup.repeat != 1 || o.api.repeat != 1 {
		t.Errorf("parsed %+v", o)
	}
	// The baseline's order: flags first, mode last.
	o, err = parseFlags([]string{"--kubeconfig", "/k", "--cleanup", "api"})
	if err != nil || o.mode != "api" || !o.api.cleanup || o.api.repeat != 3 {
		t.Errorf("parsed %+v, %v", o, err)
	}
	for _, bad := range [][]string{
		{},
		{"api"},
		{"startup"},
		{"frobnicate"},
		{"--kubeconfig", "/k", "--n", "0", "api"},
		{"--kubeconfig", "/k", "api", "all"},
	} {
		if _, err := parseFlags(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestParseFlagsWatchAndBiglist(t *testing.T) {
	o, err := parseFlags([]string{"--kapi-binary", "/tmp/kapi", "--watchers", "100,1000", "--events", "500", "watch"})
	if err != nil {
		t.Fatal(err)
	}
	if o.mode != "watch" || !slices.Equal(o.watch.watchers, []int{100, 1000}) || o.watch.events != 500 || o.watch.writers != 4 {
		t.Errorf("parsed %+v", o.watch)
	}
	// Repeated, and against a given server.
	o, err = parseFlags([]string{"--kubeconfig", "/k", "--watchers", "10", "--watchers", "20", "watch"})
	if err != nil || !slices.Equal(o.watch.watchers, []int{10, 20}) {
		t.Errorf("parsed %+v, %v", o.watch.watchers, err)
	}

	// biglist has its own defaults for the sizes, unless they are given.
	o, err = parseFlags([]string{"--kapi-binary", "/tmp/kapi", "biglist"})
	if err != nil || o.api.n != 50000 || o.api.c != 64 || o.api.payloadBytes != 64 {
		t.Errorf("biglist defaults: %+v, %v", o.api, err)
	}
	o, err = parseFlags([]string{"--kapi-binary", "/tmp/kapi", "--n", "1000", "--payload-bytes", "0", "biglist"})
	if err != nil || o.api.n != 1000 || o.api.payloadBytes != 0 {
		t.Errorf("biglist with sizes: %+v, %v", o.api, err)
	}
	// Other modes keep the api defaults.
	o, err = parseFlags([]string{"--kapi-binary", "/tmp/kapi", "api"})
	if err != nil || o.api.n != 5000 || o.api.payloadBytes != 1024 {
		t.Errorf("api: %+v, %v", o.api, err)
	}

	for _, bad := range [][]string{
		{"watch"},
		{"biglist"},
		{"--kubeconfig", "/k", "--watchers", "0", "watch"},
		{"--kubeconfig", "/k", "--watchers", "x", "watch"},
		{"--kubeconfig", "/k", "--events", "0", "watch"},
		{"--kubeconfig", "/k", "--rss-interval", "0s", "--server-pid", "1", "biglist"},
		{"--kubeconfig", "/k", "biglist"},
		{"--kubeconfig", "/k", "--write-rate", "-1", "watch"},
	} {
		if _, err := parseFlags(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestWithPrefix(t *testing.T) {
	r := &result{}
	r.addInt("server_cpu_s", 1)
	p := r.withPrefix("watch_fanout_100_")
	if v, ok := p.get("watch_fanout_100_server_cpu_s"); !ok || v.f != 1 {
		t.Errorf("got %+v", p.metrics)
	}
	if _, ok := r.get("server_cpu_s"); !ok {
		t.Error("withPrefix changed r")
	}
}

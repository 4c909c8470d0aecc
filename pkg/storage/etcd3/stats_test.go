package etcd3_test

import (
	"context"
	"fmt"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/kapi-dev/kapi/pkg/storage"
)

// Stats counts the keys below the resource's prefix, as kube-apiserver's
// apiserver_resource_objects does, and estimates the average stored
// value size, checked here against the values read back from etcd.
func TestStatsCountsObjectsAndTheirStoredSize(t *testing.T) {
	e := newEnv(t)
	reader := e.store.(storage.StatsReader)
	ctx := context.Background()

	empty, err := reader.Stats(ctx, "/configmaps")
	if err != nil {
		t.Fatal(err)
	}
	if empty != (storage.Stats{}) {
		t.Errorf("stats of an empty resource = %+v, want zero", empty)
	}

	// Forty objects of the same encoded size (names and data of equal
	// length), in two namespaces: more than the sample Stats reads.
	for i := range 40 {
		ns := "ns-a"
		if i%2 == 1 {
			ns = "ns-b"
		}
		e.create(t, configMap(ns, fmt.Sprintf("cm-%02d", i), nil, map[string]string{"k": fmt.Sprintf("value-%02d", i)}))
	}
	// A neighbouring prefix that is not the resource's.
	if _, err := e.client.Put(ctx, e.prefix+"/configmapsx/other", "x"); err != nil {
		t.Fatal(err)
	}

	raw, err := e.client.Get(ctx, e.prefix+"/configmaps/", clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	size := int64(len(raw.Kvs[0].Value))
	for _, kv := range raw.Kvs {
		if int64(len(kv.Value)) != size {
			t.Fatalf("stored values differ in size (%d, %d): the test needs equal sizes", size, len(kv.Value))
		}
	}

	for _, tc := range []struct {
		key  string
		want storage.Stats
	}{
		{"/configmaps", storage.Stats{ObjectCount: 40, EstimatedAverageObjectSizeBytes: size}},
		{"/configmaps/ns-b", storage.Stats{ObjectCount: 20, EstimatedAverageObjectSizeBytes: size}},
		{"/configmaps/ns-c", storage.Stats{}},
	} {
		got, err := reader.Stats(ctx, tc.key)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("Stats(%s) = %+v, want %+v", tc.key, got, tc.want)
		}
	}
}

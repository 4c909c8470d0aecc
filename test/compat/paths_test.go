// Package compat checks kapi's answers against kube-apiserver's, recorded
// from the real server (the oracle) with cmd/kapi-diff. The recordings are
// the independent truth: a test fails on any answer that differs from
// them, unless testdata lists the difference, with its reason, as kept on
// purpose.
package compat

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/kapi-dev/kapi/pkg/testserver"
	"github.com/kapi-dev/kapi/test/compat/apidiff"
)

// TestPathGrammarMatchesKubeAPIServer replays the path and method grammar
// of the API (testdata/paths/requests.json: discovery with and without
// trailing slashes, health, version, OpenAPI, every method on collection,
// object and subresource paths, legacy watch paths, unknown groups,
// versions and resources, malformed paths) against kapi, and compares
// each answer with kube-apiserver 1.37.1's: status code, media type,
// Status reason, message and details, plain text.
//
// To re-record after changing the request list, with the oracle running:
//
//	go run ./cmd/kapi-diff -requests test/compat/testdata/paths/requests.json \
//	    -a ~/.cache/kapi-oracle/run/admin.kubeconfig -record test/compat/testdata/paths/kube-apiserver.json
func TestPathGrammarMatchesKubeAPIServer(t *testing.T) {
	compareWithRecording(t, filepath.Join("testdata", "paths"))
}

// compareWithRecording replays dir/requests.json against a new kapi and
// compares with dir/kube-apiserver.json, allowing the differences listed
// in dir/known-differences.json and no others. A listed difference that
// no longer differs fails too, so that the list never outlives its
// reasons. Missing data is a failure, never a skip.
func compareWithRecording(t *testing.T, dir string) {
	list, err := apidiff.Load(filepath.Join(dir, "requests.json"))
	if err != nil {
		t.Fatalf("request list: %v", err)
	}
	rec, err := apidiff.ReadRecording(filepath.Join(dir, "kube-apiserver.json"))
	if err != nil {
		t.Fatalf("kube-apiserver's recorded answers: %v (record them with cmd/kapi-diff -record)", err)
	}
	known, err := apidiff.ReadKnownDifferences(filepath.Join(dir, "known-differences.json"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatalf("known differences: %v", err)
	}
	want := rec.ByRequest()
	for _, r := range list.Requests {
		if _, ok := want[r.Key()]; !ok {
			t.Errorf("%s: no recorded answer; re-record with cmd/kapi-diff -record", r.Key())
		}
	}
	for key := range known {
		if _, ok := want[key]; !ok {
			t.Errorf("known difference %q names no request of the list", key)
		}
	}
	if t.Failed() {
		t.FailNow()
	}

	s := testserver.Start(t, testserver.Options{})
	srv, err := apidiff.NewServer("kapi", s.ClientConfig)
	if err != nil {
		t.Fatal(err)
	}
	got := srv.Run(context.Background(), list, false, t.Logf)

	differing := 0
	for _, g := range got {
		diffs := apidiff.Compare(want[g.Request], g)
		reason, isKnown := known[g.Request]
		switch {
		case len(diffs) > 0 && isKnown:
			t.Logf("%s: differs as known (%s)", g.Request, reason)
		case len(diffs) > 0:
			differing++
			t.Errorf("%s:", g.Request)
			for _, d := range diffs {
				t.Errorf("    %s", d)
			}
		case isKnown:
			t.Errorf("%s: listed as a known difference (%s) but answers as kube-apiserver does; remove it from known-differences.json", g.Request, reason)
		}
	}
	if differing > 0 {
		t.Errorf("%d of %d answers differ from %s", differing, len(got), rec.Server)
	}
}

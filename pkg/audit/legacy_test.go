package audit

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestLegacyFormatAsKubeAPIServer: kube-apiserver 1.37.1 wrote the same
// events to a --audit-log-format=legacy log (kube-apiserver-legacy.log)
// and, as JSON, to a webhook (kube-apiserver-legacy-events.jsonl);
// LegacyString of each JSON event must be its legacy line. The JSON
// timestamps have microseconds where the legacy lines have nanoseconds,
// so times are compared to the microsecond.
func TestLegacyFormatAsKubeAPIServer(t *testing.T) {
	lines := readLines(t, "testdata/kube-apiserver-legacy.log")
	events := readLines(t, "testdata/kube-apiserver-legacy-events.jsonl")
	if len(lines) == 0 || len(lines) != len(events) {
		t.Fatalf("%d legacy lines, %d events: the recordings do not pair", len(lines), len(events))
	}
	for i, js := range events {
		var ev Event
		if err := json.Unmarshal([]byte(js), &ev); err != nil {
			t.Fatal(err)
		}
		got := LegacyString(&ev)
		gotTime, gotRest, _ := strings.Cut(got, " ")
		wantTime, wantRest, _ := strings.Cut(lines[i], " ")
		if gotRest != wantRest {
			t.Errorf("event %d:\n got %s\nwant %s", i, gotRest, wantRest)
		}
		// 2026-11-25T14:55:23.729390Z against 2026-11-25T14:55:23.729390281Z
		if strings.TrimSuffix(gotTime, "Z") != wantTime[:len(strings.TrimSuffix(gotTime, "Z"))] {
			t.Errorf("event %d: time %s, want %s", i, gotTime, wantTime)
		}
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

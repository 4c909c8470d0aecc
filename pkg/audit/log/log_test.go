package log

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/pkg/audit"
)

func TestOneEventALine(t *testing.T) {
	ev := &audit.Event{AuditID: "a", Stage: audit.StageRequestReceived, Level: audit.LevelRequest, RequestObject: audit.RawObject("{\"x\": 1}\n")}
	ev.Kind, ev.APIVersion = "Event", audit.APIVersion
	var out bytes.Buffer
	if !New(&out, FormatJSON, nil, nil).ProcessEvents(ev, ev) {
		t.Fatal("ProcessEvents failed")
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines: %q", len(lines), out.String())
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &got); err != nil {
		t.Fatal(err)
	}
	if got["kind"] != "Event" || got["requestObject"].(map[string]any)["x"] != 1.0 || !strings.Contains(lines[0], `"requestObject":{"x":1}`) {
		t.Errorf("line = %s", lines[0])
	}

	out.Reset()
	New(&out, FormatLegacy, nil, nil).ProcessEvents(ev)
	if want := audit.LegacyString(ev) + "\n"; out.String() != want {
		t.Errorf("legacy line = %q, want %q", out.String(), want)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteFailuresAreReportedAndCounted(t *testing.T) {
	m := audit.NewMetrics()
	if New(failingWriter{}, FormatJSON, nil, m).ProcessEvents(&audit.Event{}) {
		t.Error("a failed write was reported as stored")
	}
	if m.Errors(PluginName) != 1 {
		t.Errorf("errors = %v", m.Errors(PluginName))
	}
}

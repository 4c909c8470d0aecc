package apidiff

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestAMatrixEntryIsOneRequestPerPathAndMethodWithBodiesOnlyWhereTheMethodTakesOne(t *testing.T) {
	var e Entry
	if err := json.Unmarshal([]byte(`{
		"methods": ["GET", "PUT", "PATCH"],
		"paths": ["/a", "/b"],
		"body": {"k": "v"},
		"bodies": {"PATCH": "not json"}
	}`), &e); err != nil {
		t.Fatal(err)
	}
	reqs, err := Expand([]Entry{e})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range reqs {
		got = append(got, r.Key()+" "+string(r.Body))
	}
	want := []string{
		"GET /a ", `PUT /a {"k": "v"}`, "PATCH /a not json",
		"GET /b ", `PUT /b {"k": "v"}`, "PATCH /b not json",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("requests:\n got %q\nwant %q", got, want)
	}
}

func TestALoadedListRefusesTwoRequestsWithOneKeyAndUnknownFields(t *testing.T) {
	dir := t.TempDir()
	for name, list := range map[string]string{
		"twice":   `{"requests": [{"method": "GET", "path": "/a"}, {"method": "GET", "path": "/a"}]}`,
		"unknown": `{"requests": [{"method": "GET", "path": "/a", "bdy": {}}]}`,
	} {
		p := filepath.Join(dir, name+".json")
		if err := os.WriteFile(p, []byte(list), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(p); err == nil {
			t.Errorf("%s: loaded without error", name)
		}
	}
	p := filepath.Join(dir, "named.json")
	if err := os.WriteFile(p, []byte(`{"requests": [{"method": "GET", "path": "/a"}, {"name": "again", "method": "GET", "path": "/a"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Requests[1].Key(); got != "GET /a #again" {
		t.Errorf("key of a named request: %q", got)
	}
}

func TestNormalizeTakesOutWhatDiffersBetweenServers(t *testing.T) {
	got, err := Normalize([]byte(`{"metadata": {"name": "a", "uid": "u", "resourceVersion": "7",
		"creationTimestamp": "2026-01-01T00:00:00Z",
		"managedFields": [{"manager": "m", "time": "2026-01-01T00:00:01Z"}]},
		"data": {"when": "tomorrow"}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"data":{"when":"tomorrow"},"metadata":{"managedFields":[{"manager":"m","time":"<time>"}],"name":"a"}}`
	if string(got) != want {
		t.Errorf("normalized:\n got %s\nwant %s", got, want)
	}
}

func TestCompareReportsEachDifferenceAndIgnoresTheUIDOfAStatus(t *testing.T) {
	status := func(code int, uid string) Answer {
		body := `{"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound",
			"message": "m", "details": {"name": "x", "uid": "` + uid + `"}, "code": 404}`
		return newAnswer("GET /x", code, "application/json", []byte(body), false)
	}
	if d := Compare(status(404, "u1"), status(404, "u2")); len(d) != 0 {
		t.Errorf("same Status, other uid: %q", d)
	}
	text := newAnswer("GET /x", 404, "text/plain; charset=utf-8", []byte("404 page not found\n"), false)
	d := strings.Join(Compare(status(404, "u"), text), "\n")
	for _, want := range []string{"media type", "a Status"} {
		if !strings.Contains(d, want) {
			t.Errorf("Status against text: %q does not mention %q", d, want)
		}
	}
	a := newAnswer("GET /x", 200, "application/json", []byte(`{"spec": {"a": 1, "b": [1, 2]}}`), true)
	b := newAnswer("GET /x", 200, "application/json", []byte(`{"spec": {"a": 1, "b": [1, 3]}}`), true)
	if d := Compare(a, b); !reflect.DeepEqual(d, []string{"body.spec.b[1]: want 2, got 3"}) {
		t.Errorf("bodies: %q", d)
	}
}

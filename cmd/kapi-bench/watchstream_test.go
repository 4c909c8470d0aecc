package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// eventLine encodes a watch event the way a server writes it on a JSON
// watch stream: one object per line.
func eventLine(t *testing.T, typ string, obj any) []byte {
	t.Helper()
	raw, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	line, err := json.Marshal(metav1.WatchEvent{Type: typ, Object: runtime.RawExtension{Raw: raw}})
	if err != nil {
		t.Fatal(err)
	}
	return line
}

func TestScanWatchEvent(t *testing.T) {
	cm := &corev1.ConfigMap{
		TypeMeta: metav1.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{
			Name: "cm-000001", Namespace: "bench-1", ResourceVersion: "123456",
			// Values that mention the keys must not confuse the scan
			// when they come after the real ones.
			Labels: map[string]string{"type": "x"},
		},
		Data: map[string]string{"payload": `"resourceVersion":"1"`},
	}
	for typ, want := range map[string]eventType{"ADDED": eventAdded, "MODIFIED": eventModified, "DELETED": eventDeleted, "BOOKMARK": eventBookmark} {
		got, rv, err := scanWatchEvent(eventLine(t, typ, cm))
		if err != nil || got != want || rv != 123456 {
			t.Errorf("%s: got type %v rv %d err %v, want %v 123456", typ, got, rv, err, want)
		}
	}

	status := &metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired}
	if got, _, err := scanWatchEvent(eventLine(t, "ERROR", status)); err != nil || got != eventError {
		t.Errorf("ERROR: got %v, %v", got, err)
	}

	// Whitespace, as a pretty-printing server would write.
	if got, rv, err := scanWatchEvent([]byte(`{"type" : "MODIFIED", "object": {"metadata": {"resourceVersion" : "7"}}}`)); err != nil || got != eventModified || rv != 7 {
		t.Errorf("spaced: got %v %d %v", got, rv, err)
	}

	for name, line := range map[string]string{
		"no type":       `{"object":{}}`,
		"no rv":         `{"type":"MODIFIED","object":{"metadata":{}}}`,
		"rv not number": `{"type":"MODIFIED","object":{"metadata":{"resourceVersion":"abc"}}}`,
		"truncated":     `{"type":"MODIFIED","object":{"metadata":{"resourceVersion":"12`,
	} {
		if _, _, err := scanWatchEvent([]byte(line)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestJSONStringField(t *testing.T) {
	val, rest, ok := jsonStringField([]byte(`{"a":"1","b":"two","b":"3"}`), "b")
	if !ok || string(val) != "two" || string(rest) != `,"b":"3"}` {
		t.Errorf("got %q %q %v", val, rest, ok)
	}
	for _, in := range []string{`{"b":2}`, `{"b":"x\"y"}`, `{"b"`, `{"bb":"1"}`} {
		if _, _, ok := jsonStringField([]byte(in), "b"); ok {
			t.Errorf("%s: found", in)
		}
	}
}

func TestReadLine(t *testing.T) {
	long := strings.Repeat("x", 100)
	// A buffer smaller than a line makes readLine gather it.
	br := bufio.NewReaderSize(strings.NewReader("short\r\n"+long+"\n\nlast"), 16)
	var scratch []byte
	for _, want := range []string{"short", long, ""} {
		got, err := readLine(br, &scratch)
		if err != nil || string(got) != want {
			t.Fatalf("got %q, %v; want %q", got, err, want)
		}
	}
	// A stream that ends inside a line was cut off.
	if _, err := readLine(br, &scratch); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("cut line: %v", err)
	}
	if _, err := readLine(bufio.NewReader(strings.NewReader("")), &scratch); !errors.Is(err, io.EOF) {
		t.Errorf("end: %v", err)
	}
}

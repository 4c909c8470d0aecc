package apidiff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"os"
	"reflect"
	"sort"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"sigs.k8s.io/yaml"
)

// Answer is what a server answered to one request, in the form answers
// are compared and recorded.
type Answer struct {
	// Request is the request's Key.
	Request string `json:"request"`
	Code    int    `json:"code"`
	// MediaType is the Content-Type without its parameters ("" when the
	// answer has none).
	MediaType string `json:"mediaType,omitempty"`
	// Status is set when the body is a metav1.Status.
	Status *Status `json:"status,omitempty"`
	// Text is the body of a short text/plain answer (errors, "ok"); a
	// longer one is a document whose contents are out of scope (the
	// OpenAPI v3 index, served as text/plain) and is not kept.
	Text string `json:"text,omitempty"`
	// Body is the normalized JSON body of an answer that is not a Status,
	// kept only when bodies are asked for (see Normalize).
	Body json.RawMessage `json:"body,omitempty"`
	// Error is a transport error: no answer at all.
	Error string `json:"error,omitempty"`
}

// Status is the part of a metav1.Status that clients act on. The uid in
// its details is dropped: it differs from one server to the other.
type Status struct {
	Status  string                `json:"status,omitempty"`
	Message string                `json:"message,omitempty"`
	Reason  metav1.StatusReason   `json:"reason,omitempty"`
	Details *metav1.StatusDetails `json:"details,omitempty"`
	Code    int32                 `json:"code,omitempty"`
}

// maxText is the longest plain text kept from an answer.
const maxText = 1024

// newAnswer summarizes a response. body is the response body, possibly
// cut short; keepBody says whether a JSON body that is not a Status is
// kept.
func newAnswer(key string, code int, contentType string, body []byte, keepBody bool) Answer {
	a := Answer{Request: key, Code: code}
	if contentType != "" {
		mt, _, err := mime.ParseMediaType(contentType)
		if err != nil {
			mt = contentType
		}
		a.MediaType = mt
	}
	switch {
	case a.MediaType == "text/plain":
		if len(body) <= maxText {
			a.Text = string(body)
		}
	case a.MediaType == "application/yaml":
		if j, err := yaml.YAMLToJSON(body); err == nil {
			a.Status, _ = asStatus(j)
		}
	case a.MediaType == "application/vnd.kubernetes.protobuf":
		a.Status, _ = protobufStatus(body)
	case a.MediaType == "application/json":
		if st, ok := asStatus(body); ok {
			a.Status = st
			return a
		}
		if keepBody {
			if n, err := Normalize(body); err == nil {
				a.Body = n
			}
		}
	}
	return a
}

// asStatus decodes a body that is a metav1.Status.
func asStatus(body []byte) (*Status, bool) {
	var st metav1.Status
	if err := json.Unmarshal(body, &st); err != nil || st.Kind != "Status" {
		return nil, false
	}
	out := &Status{Status: st.Status, Message: st.Message, Reason: st.Reason, Details: st.Details, Code: st.Code}
	if out.Details != nil {
		d := *out.Details
		d.UID = ""
		out.Details = &d
	}
	return out, true
}

// protobufCodec decodes a Status sent as protobuf.
var protobufCodec = func() runtime.Decoder {
	scheme := runtime.NewScheme()
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"})
	return protobuf.NewSerializer(scheme, scheme)
}()

// protobufStatus decodes a body that is a metav1.Status in protobuf.
func protobufStatus(body []byte) (*Status, bool) {
	obj, _, err := protobufCodec.Decode(body, nil, nil)
	if err != nil {
		return nil, false
	}
	st, ok := obj.(*metav1.Status)
	if !ok {
		return nil, false
	}
	j, err := json.Marshal(struct {
		Kind string `json:"kind"`
		*metav1.Status
	}{"Status", st})
	if err != nil {
		return nil, false
	}
	return asStatus(j)
}

// volatileFields differ between two servers holding the same objects, or
// between two runs of one server.
var volatileFields = map[string]bool{
	"resourceVersion":   true,
	"uid":               true,
	"creationTimestamp": true,
	"deletionTimestamp": true,
}

// Normalize takes out of a JSON document what differs between servers
// holding the same objects: resourceVersion, uid, creation and deletion
// timestamps anywhere in it, and every string that is an RFC 3339 time
// (managedFields times, event times, conditions). What is left can be
// compared byte for byte. Generated names and allocated cluster IPs are
// left: request lists name their objects and should not depend on them.
func Normalize(doc []byte) (json.RawMessage, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	v = normalizeValue(v)
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n")), nil
}

func normalizeValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			if volatileFields[k] {
				delete(t, k)
				continue
			}
			t[k] = normalizeValue(e)
		}
	case []any:
		for i, e := range t {
			t[i] = normalizeValue(e)
		}
	case string:
		if _, err := time.Parse(time.RFC3339, t); err == nil {
			return "<time>"
		}
	}
	return v
}

// Compare lists how got differs from want, one line per difference; none
// means they match. Status fields and plain text are always compared;
// bodies only when both answers kept one.
func Compare(want, got Answer) []string {
	var diffs []string
	add := func(what string, w, g any) {
		diffs = append(diffs, fmt.Sprintf("%s: want %v, got %v", what, show(w), show(g)))
	}
	if want.Error != got.Error {
		add("transport error", want.Error, got.Error)
	}
	if want.Code != got.Code {
		add("code", want.Code, got.Code)
	}
	if want.MediaType != got.MediaType {
		add("media type", want.MediaType, got.MediaType)
	}
	switch {
	case want.Status == nil && got.Status != nil:
		add("body", "not a Status", "a Status")
	case want.Status != nil && got.Status == nil:
		add("body", "a Status", "not a Status")
	case want.Status != nil:
		w, g := want.Status, got.Status
		if w.Status != g.Status {
			add("status.status", w.Status, g.Status)
		}
		if w.Reason != g.Reason {
			add("status.reason", w.Reason, g.Reason)
		}
		if w.Message != g.Message {
			add("status.message", w.Message, g.Message)
		}
		if w.Code != g.Code {
			add("status.code", w.Code, g.Code)
		}
		if !reflect.DeepEqual(w.Details, g.Details) {
			add("status.details", jsonText(w.Details), jsonText(g.Details))
		}
	}
	if want.Text != got.Text {
		add("text", want.Text, got.Text)
	}
	if len(want.Body) > 0 && len(got.Body) > 0 && !bytes.Equal(want.Body, got.Body) {
		diffs = append(diffs, bodyDiff(want.Body, got.Body)...)
	}
	return diffs
}

// maxBodyDiffs bounds the differing fields reported for one body.
const maxBodyDiffs = 10

// bodyDiff names the fields in which two JSON documents differ, up to
// maxBodyDiffs of them.
func bodyDiff(want, got []byte) []string {
	var w, g any
	if json.Unmarshal(want, &w) != nil || json.Unmarshal(got, &g) != nil {
		return []string{fmt.Sprintf("body: want %s, got %s", want, got)}
	}
	var out []string
	var walk func(path string, w, g any)
	walk = func(path string, w, g any) {
		if len(out) >= maxBodyDiffs {
			return
		}
		wm, wok := w.(map[string]any)
		gm, gok := g.(map[string]any)
		if wok && gok {
			keys := map[string]bool{}
			for k := range wm {
				keys[k] = true
			}
			for k := range gm {
				keys[k] = true
			}
			for _, k := range SortedKeys(keys) {
				walk(path+"."+k, wm[k], gm[k])
			}
			return
		}
		wl, wok := w.([]any)
		gl, gok := g.([]any)
		if wok && gok && len(wl) == len(gl) {
			for i := range wl {
				walk(fmt.Sprintf("%s[%d]", path, i), wl[i], gl[i])
			}
			return
		}
		if !reflect.DeepEqual(w, g) {
			out = append(out, fmt.Sprintf("body%s: want %s, got %s", path, jsonText(w), jsonText(g)))
		}
	}
	walk("", w, g)
	return out
}

func show(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprint(v)
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// Recording is a server's answers to a request list, as kept in the
// repository.
type Recording struct {
	// Server says what answered, e.g. "kube-apiserver v1.37.1".
	Server  string   `json:"server"`
	Answers []Answer `json:"answers"`
}

// ReadRecording reads a recording written by WriteRecording.
func ReadRecording(path string) (*Recording, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Recording
	if err := unmarshalStrict(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

// WriteRecording writes answers one per line, so that a re-recording
// shows in a diff as the answers that changed.
func WriteRecording(path string, r *Recording) error {
	var b strings.Builder
	server, _ := json.Marshal(r.Server)
	fmt.Fprintf(&b, "{\"server\": %s,\n\"answers\": [\n", server)
	for i, a := range r.Answers {
		line, err := json.Marshal(a)
		if err != nil {
			return err
		}
		b.Write(line)
		if i < len(r.Answers)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("]}\n")
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// ByRequest indexes answers by request key.
func (r *Recording) ByRequest() map[string]Answer {
	out := make(map[string]Answer, len(r.Answers))
	for _, a := range r.Answers {
		out[a.Request] = a
	}
	return out
}

// KnownDifference is a difference from kube-apiserver that is kept on
// purpose, with the reason.
type KnownDifference struct {
	Request string `json:"request"`
	Reason  string `json:"reason"`
}

// ReadKnownDifferences reads a list of known differences; every entry
// must have a reason.
func ReadKnownDifferences(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var list []KnownDifference
	if err := unmarshalStrict(data, &list); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := map[string]string{}
	for _, d := range list {
		if d.Reason == "" {
			return nil, fmt.Errorf("%s: known difference %q has no reason", path, d.Request)
		}
		if _, dup := out[d.Request]; dup {
			return nil, fmt.Errorf("%s: known difference %q is listed twice", path, d.Request)
		}
		out[d.Request] = d.Reason
	}
	return out, nil
}

// SortedKeys returns the keys of m in order.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

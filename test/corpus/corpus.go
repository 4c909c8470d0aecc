// Package corpus is the differential corpus of kapi's built-in resources:
// request sequences sent once to a real kube-apiserver 1.37.1, whose
// answers are kept beside them, and replayed against kapi, whose answers
// must be the same.
//
// A case is a YAML file, testdata/<group>/<resource>/<case>.yaml, whose
// steps are HTTP requests; its recording, <case>.oracle.json, holds the
// status code, body and warnings of each step's response, normalised (see
// normalise) so that what legitimately differs between two runs (uids,
// resourceVersions, times, the case's namespace, generated names) does
// not. README.md says how to write and record cases.
package corpus

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

// Case is one case file.
type Case struct {
	// Steps are sent in order, whatever their answers.
	Steps []Step `json:"steps"`
	// Ignore lists the response values that differ between two servers
	// by design (an allocated address), each with the reason.
	Ignore []Ignore `json:"ignore,omitempty"`
}

// Step is one request.
type Step struct {
	Method string `json:"method"`
	// Path and Query may use the literal NAMESPACE for the case's
	// namespace.
	Path  string `json:"path"`
	Query string `json:"query,omitempty"`
	// ContentType of the body; application/json when empty.
	ContentType string `json:"contentType,omitempty"`
	// Body is sent as JSON; NAMESPACE in its strings is the case's
	// namespace.
	Body any `json:"body,omitempty"`
	// Headers are sent besides the runner's own (Accept, User-Agent,
	// Content-Type, which they may not replace), each with one value or
	// a list of them; NAMESPACE in a value is the case's namespace.
	// Impersonate-User and Impersonate-Group send the step as another
	// user.
	Headers map[string]HeaderValues `json:"headers,omitempty"`
	// Until, a dotted path, makes the step a probe: it is sent again,
	// for at most untilTimeout, until its answer's body has a value
	// there that is not null, false or "", and its last answer is the
	// one recorded. It waits for what a server knows only through a
	// cache (an admission plugin's informer, RBAC): a dry-run create
	// until a plugin defaults a field, a SelfSubjectAccessReview until
	// status.allowed. A path=value probe waits until the value there
	// prints as value (status.observedGeneration=2: a controller's
	// status of the second generation). Only steps without side effects
	// may be probes.
	Until string `json:"until,omitempty"`
}

// HeaderValues are a header's values, written as one string or a list.
type HeaderValues []string

func (v *HeaderValues) UnmarshalJSON(data []byte) error {
	var one string
	if err := json.Unmarshal(data, &one); err == nil {
		*v = HeaderValues{one}
		return nil
	}
	var list []string
	if err := json.Unmarshal(data, &list); err != nil {
		return fmt.Errorf("a header's value is a string or a list of strings: %w", err)
	}
	*v = list
	return nil
}

// untilTimeout bounds how long a probe is repeated.
const untilTimeout = 10 * time.Second

// Ignore names a value that is not compared.
type Ignore struct {
	// Path is dotted, with list indexes as numbers: spec.clusterIPs.0.
	Path string `json:"path"`
	Why  string `json:"why"`
}

// Response is what a server answered to one step, normalised.
type Response struct {
	Code     int      `json:"code"`
	Warnings []string `json:"warnings,omitempty"`
	Body     any      `json:"body,omitempty"`
}

// Load reads a case file.
func Load(path string) (*Case, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c := &Case{}
	if err := yaml.UnmarshalStrict(data, c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(c.Steps) == 0 {
		return nil, fmt.Errorf("%s: no steps", path)
	}
	for i, s := range c.Steps {
		if s.Method == "" || !strings.HasPrefix(s.Path, "/") {
			return nil, fmt.Errorf("%s: step %d needs a method and an absolute path", path, i)
		}
		if s.Until != "" && !sideEffectFree(s) {
			return nil, fmt.Errorf("%s: step %d is a probe (until) that writes: make it a dry run", path, i)
		}
		for h := range s.Headers {
			if runnerHeaders[http.CanonicalHeaderKey(h)] {
				return nil, fmt.Errorf("%s: step %d sets header %s, which the runner sets", path, i, h)
			}
		}
	}
	for _, ig := range c.Ignore {
		if ig.Path == "" || ig.Why == "" {
			return nil, fmt.Errorf("%s: every ignored path needs a reason", path)
		}
	}
	return c, nil
}

// RecordingPath is where the recorded answers of the case at path live.
func RecordingPath(path string) string {
	return strings.TrimSuffix(path, filepath.Ext(path)) + ".oracle.json"
}

// ReadRecording reads the recorded answers of the case at path.
func ReadRecording(path string) ([]Response, error) {
	data, err := os.ReadFile(RecordingPath(path))
	if err != nil {
		return nil, err
	}
	var out []Response
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		return nil, fmt.Errorf("%s: %w", RecordingPath(path), err)
	}
	return out, nil
}

// WriteRecording writes the answers of the case at path.
func WriteRecording(path string, answers []Response) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // keep the <placeholders> readable
	enc.SetIndent("", "  ")
	if err := enc.Encode(answers); err != nil {
		return err
	}
	return os.WriteFile(RecordingPath(path), buf.Bytes(), 0o644)
}

// Server is where a case is sent: an admin client and the server's URL.
type Server struct {
	Client *http.Client
	URL    string
}

// Run sends the steps of c to s in namespace ns, which it creates first
// and deletes after, with every object a step created. The answers are
// normalised.
func (s Server) Run(ctx context.Context, c *Case, ns string) ([]Response, error) {
	if _, err := s.do(ctx, Step{Method: http.MethodPost, Path: "/api/v1/namespaces",
		Body: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}}, ns); err != nil {
		return nil, err
	}
	var created []string
	defer func() {
		// Cleanup is best effort. The objects go first, newest first:
		// kapi runs no namespace controller to take a deleted
		// namespace's objects with it, and what they hold (a Service's
		// cluster IP or node port) must be free for the next case,
		// which may ask for it by number. A cluster-scoped name is the
		// case's own.
		for _, path := range slices.Backward(created) {
			_, _ = s.do(context.WithoutCancel(ctx), Step{Method: http.MethodDelete, Path: path}, ns)
		}
		_, _ = s.do(context.WithoutCancel(ctx), Step{Method: http.MethodDelete, Path: "/api/v1/namespaces/" + ns}, ns)
	}()

	raw := make([]rawResponse, 0, len(c.Steps))
	for _, step := range c.Steps {
		r, err := s.do(ctx, step, ns)
		for deadline := time.Now().Add(untilTimeout); err == nil && step.Until != "" && !reached(r.body, step.Until) && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
			r, err = s.do(ctx, step, ns)
		}
		if err != nil {
			return nil, err
		}
		raw = append(raw, r)
		if path, ok := createdObject(step, r); ok {
			created = append(created, path)
		}
	}
	return normalise(raw, ns, c.Ignore), nil
}

// rawResponse is an answer before normalisation.
type rawResponse struct {
	code     int
	warnings []string
	body     any
	at       time.Time
	// generateName is the request's metadata.generateName: the name an
	// error made up from it is in the Status' details.
	generateName string
}

func (s Server) do(ctx context.Context, step Step, ns string) (rawResponse, error) {
	u := s.URL + strings.ReplaceAll(step.Path, "NAMESPACE", ns)
	if step.Query != "" {
		q := strings.ReplaceAll(step.Query, "NAMESPACE", url.QueryEscape(ns))
		u += "?" + q
	}
	var body io.Reader
	if step.Body != nil {
		data, err := json.Marshal(replaceStrings(step.Body, "NAMESPACE", ns))
		if err != nil {
			return rawResponse{}, err
		}
		body = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, step.Method, u, body)
	if err != nil {
		return rawResponse{}, err
	}
	for k, values := range step.Headers {
		for _, v := range values {
			req.Header.Add(k, strings.ReplaceAll(v, "NAMESPACE", ns))
		}
	}
	req.Header.Set("Accept", "application/json")
	// The user agent names the field manager of every write.
	req.Header.Set("User-Agent", "corpus")
	if body != nil {
		ct := step.ContentType
		if ct == "" {
			ct = "application/json"
		}
		req.Header.Set("Content-Type", ct)
	}
	resp, err := s.Client.Do(req)
	if err != nil {
		return rawResponse{}, fmt.Errorf("%s %s: %w", step.Method, u, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return rawResponse{}, fmt.Errorf("%s %s: %w", step.Method, u, err)
	}
	r := rawResponse{code: resp.StatusCode, warnings: resp.Header.Values("Warning"), at: time.Now()}
	r.generateName, _ = lookup(step.Body, "metadata.generateName").(string)
	if len(bytes.TrimSpace(data)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&r.body); err != nil {
			// Not JSON (a plain-text 404): compare it as text.
			r.body = string(data)
		}
	}
	return r, nil
}

// sideEffectFree says whether a step changes nothing: a read, a dry run,
// or an access review.
func sideEffectFree(s Step) bool {
	return s.Method == http.MethodGet || strings.Contains(s.Query, "dryRun=All") ||
		s.Method == http.MethodPost && strings.HasSuffix(s.Path, "accessreviews")
}

// truthy says whether a probe's value is there: not null, false or "".
// reached says whether a probe's answer is the one it waits for: a
// value at path, or with path=value, that value.
func reached(body any, until string) bool {
	if path, want, ok := strings.Cut(until, "="); ok {
		v := lookup(body, path)
		return v != nil && fmt.Sprint(v) == want
	}
	return truthy(lookup(body, until))
}

func truthy(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case string:
		return v != ""
	default:
		return true
	}
}

// runnerHeaders are the headers the runner sets on every request, which
// a step may not set.
var runnerHeaders = map[string]bool{"Accept": true, "User-Agent": true, "Content-Type": true}

// createdObject returns the path of the object a successful POST
// created. (A POST to a subresource answers with something else, whose
// path, if it has a name, is none: its delete is refused, harmlessly.)
func createdObject(step Step, r rawResponse) (string, bool) {
	if step.Method != http.MethodPost || r.code != http.StatusCreated || strings.Contains(step.Query, "dryRun") {
		return "", false
	}
	meta, _ := lookup(r.body, "metadata").(map[string]any)
	name, _ := meta["name"].(string)
	if name == "" {
		return "", false
	}
	return strings.TrimSuffix(step.Path, "/") + "/" + name, true
}

// replaceStrings returns v with old replaced by new in every string,
// keys included.
func replaceStrings(v any, old, new string) any {
	switch v := v.(type) {
	case string:
		return strings.ReplaceAll(v, old, new)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[strings.ReplaceAll(k, old, new)] = replaceStrings(e, old, new)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = replaceStrings(e, old, new)
		}
		return out
	default:
		return v
	}
}

// lookup returns the value at a dotted path of v, nil if there is none.
func lookup(v any, path string) any {
	for _, part := range strings.Split(path, ".") {
		switch c := v.(type) {
		case map[string]any:
			v = c[part]
		case []any:
			var i int
			if _, err := fmt.Sscan(part, &i); err != nil || i < 0 || i >= len(c) {
				return nil
			}
			v = c[i]
		default:
			return nil
		}
	}
	return v
}

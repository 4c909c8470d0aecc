// Package apidiff replays a list of HTTP requests against Kubernetes API
// servers and compares their answers: status code, media type, the
// reason, message and details of a Status, the text of a plain-text
// answer and, when asked, the whole body with what differs between any
// two servers (resourceVersion, uid, timestamps) taken out.
//
// It is the differential oracle of kapi's compatibility tests: the same
// request list is sent to kube-apiserver and to kapi (cmd/kapi-diff), and
// kube-apiserver's answers are recorded in the repository, so that a test
// replays the list against an in-process kapi and compares without the
// real server.
package apidiff

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// File is a request list as it is written in the repository.
//
// Requests run in order, on one server at a time: Teardown (to clean up
// what an interrupted run left), Setup, Requests, Teardown again. Only the
// answers to Requests are compared; setup and teardown only prepare and
// clean the state the requests see, so their answers are reported but
// never compared.
type File struct {
	// Description says what the list covers.
	Description string  `json:"description,omitempty"`
	Setup       []Entry `json:"setup,omitempty"`
	Requests    []Entry `json:"requests"`
	Teardown    []Entry `json:"teardown,omitempty"`
}

// Entry is one request, or the cross product of several methods and
// several paths, so that a method matrix over a path reads as one line.
type Entry struct {
	// Name tells apart requests with the same method and path (a GET
	// before and after a DELETE); it becomes part of their key.
	Name string `json:"name,omitempty"`
	// Method and Path make a single request. Path includes the query.
	Method string `json:"method,omitempty"`
	Path   string `json:"path,omitempty"`
	// Methods and Paths make one request per (path, method), paths
	// outermost, in the order written.
	Methods []string          `json:"methods,omitempty"`
	Paths   []string          `json:"paths,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Body is sent with every method of the entry that takes a body
	// (POST, PUT, PATCH) unless Bodies has one for that method. A JSON
	// string is sent as its text (to send YAML or broken JSON); any other
	// JSON value is sent as JSON.
	Body   json.RawMessage            `json:"body,omitempty"`
	Bodies map[string]json.RawMessage `json:"bodies,omitempty"`
	// Stream marks requests whose answer may be a stream (watches): only
	// the status line and headers are read, so that they cost no time.
	Stream bool `json:"stream,omitempty"`
	// WaitFor resends the request until it is answered with this code
	// (for a while: see waitTimeout), for setup that takes effect
	// asynchronously, such as a CRD's resources being served.
	WaitFor int `json:"waitFor,omitempty"`
}

// Request is one expanded request of a list.
type Request struct {
	Name    string            `json:"name,omitempty"`
	Method  string            `json:"method"`
	Path    string            `json:"path"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    []byte            `json:"-"`
	Stream  bool              `json:"stream,omitempty"`
	WaitFor int               `json:"waitFor,omitempty"`
}

// Key identifies a request in recorded answers and in the list of known
// differences: "METHOD PATH", followed by " #name" when it has a name.
func (r Request) Key() string {
	k := r.Method + " " + r.Path
	if r.Name != "" {
		k += " #" + r.Name
	}
	return k
}

// takesBody reports whether a method carries a request body.
func takesBody(method string) bool {
	switch method {
	case "POST", "PUT", "PATCH":
		return true
	}
	return false
}

// Expand turns entries into requests, in order.
func Expand(entries []Entry) ([]Request, error) {
	var out []Request
	for i, e := range entries {
		methods, paths := e.Methods, e.Paths
		if e.Method != "" {
			methods = append([]string{e.Method}, methods...)
		}
		if e.Path != "" {
			paths = append([]string{e.Path}, paths...)
		}
		if len(methods) == 0 || len(paths) == 0 {
			return nil, fmt.Errorf("entry %d (%q) has no method or no path", i, e.Name)
		}
		for _, p := range paths {
			for _, m := range methods {
				r := Request{Name: e.Name, Method: m, Path: p, Headers: e.Headers, Stream: e.Stream, WaitFor: e.WaitFor}
				if takesBody(m) {
					body := e.Body
					if b, ok := e.Bodies[m]; ok {
						body = b
					}
					raw, err := bodyBytes(body)
					if err != nil {
						return nil, fmt.Errorf("entry %d (%s %s): %w", i, m, p, err)
					}
					r.Body = raw
				}
				out = append(out, r)
			}
		}
	}
	return out, nil
}

// bodyBytes is what is sent for a body as written in a list.
func bodyBytes(body json.RawMessage) ([]byte, error) {
	if len(body) == 0 {
		return nil, nil
	}
	if strings.HasPrefix(strings.TrimSpace(string(body)), `"`) {
		var s string
		if err := json.Unmarshal(body, &s); err != nil {
			return nil, err
		}
		return []byte(s), nil
	}
	return body, nil
}

// List is a request list ready to run.
type List struct {
	Setup, Requests, Teardown []Request
}

// Load reads and expands a request list. Keys of Requests must be unique.
func Load(path string) (*List, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f File
	if err := unmarshalStrict(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	l := &List{}
	for _, part := range []struct {
		entries []Entry
		into    *[]Request
	}{{f.Setup, &l.Setup}, {f.Requests, &l.Requests}, {f.Teardown, &l.Teardown}} {
		if *part.into, err = Expand(part.entries); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	seen := map[string]bool{}
	for _, r := range l.Requests {
		if seen[r.Key()] {
			return nil, fmt.Errorf("%s: request %q appears twice; give one a name", path, r.Key())
		}
		seen[r.Key()] = true
	}
	return l, nil
}

// unmarshalStrict decodes JSON and refuses unknown fields, so that a typo
// in a list is an error rather than a request that silently lost a part.
func unmarshalStrict(data []byte, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

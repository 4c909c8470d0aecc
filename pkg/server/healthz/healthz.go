// Package healthz serves /healthz, /livez and /readyz: a set of named
// checks, each also reachable on its own path, with kube-apiserver's
// plain-text output (`ok`, or `[+]name ok` lines with ?verbose).
package healthz

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Checker is one named health check.
type Checker interface {
	Name() string
	Check(r *http.Request) error
}

// NamedCheck adapts a function to Checker.
func NamedCheck(name string, check func(r *http.Request) error) Checker {
	return namedCheck{name: name, check: check}
}

type namedCheck struct {
	name  string
	check func(r *http.Request) error
}

func (c namedCheck) Name() string                { return c.name }
func (c namedCheck) Check(r *http.Request) error { return c.check(r) }

// PingCheck always passes: the server answers.
var PingCheck = NamedCheck("ping", func(*http.Request) error { return nil })

// LogCheck passes while logging works; kapi logs through slog and has
// nothing that can block it, so it always passes, as kube-apiserver's
// does once its log flushing is healthy.
var LogCheck = NamedCheck("log", func(*http.Request) error { return nil })

// ContextCheck adapts a function of a context, such as a storage health
// check, to Checker.
func ContextCheck(name string, check func(ctx context.Context) error) Checker {
	return NamedCheck(name, func(r *http.Request) error { return check(r.Context()) })
}

// Endpoint is one of /healthz, /livez, /readyz with its checks.
type Endpoint struct {
	name string // "healthz", "livez", "readyz"

	mu     sync.RWMutex
	checks []Checker
}

// NewEndpoint returns an endpoint with no checks.
func NewEndpoint(name string) *Endpoint { return &Endpoint{name: name} }

// Add appends checks. Checks are added while the server is built and as
// post-start hooks are registered.
func (e *Endpoint) Add(checks ...Checker) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.checks = append(e.checks, checks...)
}

func (e *Endpoint) list() []Checker {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return append([]Checker(nil), e.checks...)
}

// ServeHTTP serves /<name> and /<name>/<check>.
func (e *Endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	prefix := "/" + e.name
	rest := strings.TrimPrefix(r.URL.Path, prefix)
	if rest == "" {
		e.serveAll(w, r)
		return
	}
	// Each check has its own path; anything else below the endpoint,
	// "/<name>/" included, is kube-apiserver's plain 404.
	name := strings.TrimPrefix(rest, "/")
	for _, c := range e.list() {
		if c.Name() != name {
			continue
		}
		if err := c.Check(r); err != nil {
			writeText(w, http.StatusInternalServerError, fmt.Sprintf("internal server error: %v\n", err))
			return
		}
		// kube-apiserver writes a passing check's "ok" without
		// X-Content-Type-Options.
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok"))
		return
	}
	http.NotFound(w, r)
}

func (e *Endpoint) serveAll(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	// Checks are excluded one per parameter (?exclude=a&exclude=b), as
	// in kube-apiserver; "a,b" names no check.
	excluded := map[string]bool{}
	for _, n := range q["exclude"] {
		excluded[n] = true
	}
	_, verbose := q["verbose"]
	var out bytes.Buffer
	failed := false
	for _, c := range e.list() {
		if excluded[c.Name()] {
			fmt.Fprintf(&out, "[+]%s excluded: ok\n", c.Name())
			delete(excluded, c.Name())
			continue
		}
		if err := c.Check(r); err != nil {
			failed = true
			// The reason is withheld from the body, as kube-apiserver does:
			// health endpoints are public.
			fmt.Fprintf(&out, "[-]%s failed: reason withheld\n", c.Name())
			continue
		}
		fmt.Fprintf(&out, "[+]%s ok\n", c.Name())
	}
	if len(excluded) > 0 {
		unknown := make([]string, 0, len(excluded))
		for name := range excluded {
			unknown = append(unknown, strconv.Quote(name))
		}
		sort.Strings(unknown)
		fmt.Fprintf(&out, "warn: some health checks cannot be excluded: no matches for %s\n", strings.Join(unknown, ","))
	}
	if failed {
		fmt.Fprintf(&out, "%s check failed\n", e.name)
		writeText(w, http.StatusInternalServerError, out.String())
		return
	}
	if !verbose {
		writeText(w, http.StatusOK, "ok")
		return
	}
	fmt.Fprintf(&out, "%s check passed\n", e.name)
	writeText(w, http.StatusOK, out.String())
}

func writeText(w http.ResponseWriter, code int, body string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(body))
}

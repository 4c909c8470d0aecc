package healthz

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/kapi-dev/kapi/internal/required"
)

type ctxKey struct{}

// failing is a check that fails with a message that must never reach the
// public aggregate endpoint.
func failing(name string) Checker {
	return NamedCheck(name, func(*http.Request) error { return errors.New("secret detail") })
}

func passing(name string) Checker {
	return NamedCheck(name, func(*http.Request) error { return nil })
}

func serve(e *Endpoint, target string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	e.ServeHTTP(w, httptest.NewRequest(http.MethodGet, target, nil))
	return w
}

func TestEndpoint(t *testing.T) {
	newReadyz := func() *Endpoint {
		e := NewEndpoint("readyz")
		e.Add(PingCheck, LogCheck, passing("etcd"), failing("poststarthook/start-widgets"), passing("shutdown"))
		return e
	}
	healthy := func() *Endpoint {
		e := NewEndpoint("livez")
		e.Add(PingCheck, LogCheck, passing("etcd"), passing("poststarthook/start-widgets"))
		return e
	}
	cases := []struct {
		name     string
		endpoint func() *Endpoint
		target   string
		wantCode int
		wantBody string
	}{
		{name: "healthy", endpoint: healthy, target: "/livez", wantCode: 200, wantBody: "ok"},
		{name: "healthy verbose", endpoint: healthy, target: "/livez?verbose",
			wantCode: 200, wantBody: "[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]poststarthook/start-widgets ok\nlivez check passed\n"},
		{name: "verbose=false is still verbose", endpoint: healthy, target: "/livez?verbose=false",
			wantCode: 200, wantBody: "[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]poststarthook/start-widgets ok\nlivez check passed\n"},
		{name: "failing is always verbose and withholds the reason", endpoint: newReadyz, target: "/readyz",
			wantCode: 500, wantBody: "[+]ping ok\n[+]log ok\n[+]etcd ok\n[-]poststarthook/start-widgets failed: reason withheld\n[+]shutdown ok\nreadyz check failed\n"},
		{name: "failing, verbose", endpoint: newReadyz, target: "/readyz?verbose",
			wantCode: 500, wantBody: "[+]ping ok\n[+]log ok\n[+]etcd ok\n[-]poststarthook/start-widgets failed: reason withheld\n[+]shutdown ok\nreadyz check failed\n"},
		{name: "excluding the failing check", endpoint: newReadyz, target: "/readyz?exclude=poststarthook/start-widgets",
			wantCode: 200, wantBody: "ok"},
		{name: "excluding the failing check, verbose", endpoint: newReadyz, target: "/readyz?verbose&exclude=poststarthook/start-widgets",
			wantCode: 200, wantBody: "[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]poststarthook/start-widgets excluded: ok\n[+]shutdown ok\nreadyz check passed\n"},
		{name: "excluding several checks", endpoint: newReadyz, target: "/readyz?verbose&exclude=etcd&exclude=poststarthook/start-widgets",
			wantCode: 200, wantBody: "[+]ping ok\n[+]log ok\n[+]etcd excluded: ok\n[+]poststarthook/start-widgets excluded: ok\n[+]shutdown ok\nreadyz check passed\n"},
		{name: "excluding an unknown check warns", endpoint: healthy, target: "/livez?verbose&exclude=nope",
			wantCode: 200, wantBody: "[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]poststarthook/start-widgets ok\n" +
				"warn: some health checks cannot be excluded: no matches for \"nope\"\nlivez check passed\n"},
		{name: "unknown excludes share one warning", endpoint: healthy, target: "/livez?verbose&exclude=nope&exclude=etcd&exclude=also-nope",
			wantCode: 200, wantBody: "[+]ping ok\n[+]log ok\n[+]etcd excluded: ok\n[+]poststarthook/start-widgets ok\n" +
				"warn: some health checks cannot be excluded: no matches for \"also-nope\",\"nope\"\nlivez check passed\n"},
		{name: "a comma does not separate excludes", endpoint: newReadyz, target: "/readyz?exclude=etcd,poststarthook/start-widgets",
			wantCode: 500, wantBody: "[+]ping ok\n[+]log ok\n[+]etcd ok\n[-]poststarthook/start-widgets failed: reason withheld\n[+]shutdown ok\n" +
				"warn: some health checks cannot be excluded: no matches for \"etcd,poststarthook/start-widgets\"\nreadyz check failed\n"},
		{name: "unknown exclude, not verbose", endpoint: healthy, target: "/livez?exclude=nope", wantCode: 200, wantBody: "ok"},

		// One check on its own path: its own status and, as it is not
		// public by default, its error.
		{name: "passing check", endpoint: newReadyz, target: "/readyz/etcd", wantCode: 200, wantBody: "ok"},
		{name: "check with a slash in its name", endpoint: healthy, target: "/livez/poststarthook/start-widgets", wantCode: 200, wantBody: "ok"},
		{name: "failing check tells why", endpoint: newReadyz, target: "/readyz/poststarthook/start-widgets",
			wantCode: 500, wantBody: "internal server error: secret detail\n"},
		{name: "unknown check", endpoint: healthy, target: "/livez/nonexistent", wantCode: 404, wantBody: "404 page not found\n"},
		{name: "trailing slash is no check", endpoint: healthy, target: "/livez/", wantCode: 404, wantBody: "404 page not found\n"},
		{name: "prefix of a check name", endpoint: healthy, target: "/livez/poststarthook", wantCode: 404, wantBody: "404 page not found\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := serve(tc.endpoint(), tc.target)
			if w.Code != tc.wantCode || w.Body.String() != tc.wantBody {
				t.Errorf("GET %s = %d %q, want %d %q", tc.target, w.Code, w.Body, tc.wantCode, tc.wantBody)
			}
			if ct := w.Header().Get("Content-Type"); ct != "text/plain; charset=utf-8" {
				t.Errorf("Content-Type = %q", ct)
			}
		})
	}
}

// TestVerboseBodiesMatchReference rebuilds the endpoints kube-apiserver
// had, with passing checks of the same names, and compares the verbose
// output byte for byte: the format, whatever the list of checks.
func TestVerboseBodiesMatchReference(t *testing.T) {
	for _, name := range []string{"healthz", "livez", "readyz"} {
		t.Run(name, func(t *testing.T) {
			want := readReference(t, "health/"+name+"-verbose.txt")
			e := NewEndpoint(name)
			for _, line := range strings.Split(strings.TrimSuffix(string(want), "\n"), "\n") {
				if check, ok := strings.CutPrefix(line, "[+]"); ok {
					e.Add(passing(strings.TrimSuffix(check, " ok")))
				}
			}
			w := serve(e, "/"+name+"?verbose")
			if w.Code != http.StatusOK || !bytes.Equal(w.Body.Bytes(), want) {
				t.Errorf("got %d:\n%s\nwant 200:\n%s", w.Code, w.Body, want)
			}
		})
	}
}

// TestResponsesMatchReference compares status, body and the headers the
// endpoint itself sets (not those of the filter chain) with recorded
// responses.
func TestResponsesMatchReference(t *testing.T) {
	newEndpoint := func(name string) *Endpoint {
		e := NewEndpoint(name)
		e.Add(PingCheck, LogCheck, passing("etcd"))
		return e
	}
	cases := []struct{ file, endpoint, target string }{
		{"health/healthz.txt", "healthz", "/healthz"},
		{"health/livez.txt", "livez", "/livez"},
		{"health/readyz.txt", "readyz", "/readyz"},
		{"health/readyz-etcd.txt", "readyz", "/readyz/etcd"},
		{"health/livez-nonexistent-check.txt", "livez", "/livez/nonexistent"},
	}
	for _, tc := range cases {
		t.Run(tc.target, func(t *testing.T) {
			wantCode, wantHeader, wantBody := parseRecorded(t, readReference(t, tc.file))
			w := serve(newEndpoint(tc.endpoint), tc.target)
			if w.Code != wantCode || w.Body.String() != wantBody {
				t.Errorf("got %d %q, want %d %q", w.Code, w.Body, wantCode, wantBody)
			}
			for _, h := range []string{"Content-Type", "X-Content-Type-Options"} {
				if got, want := w.Header().Get(h), wantHeader.Get(h); got != want {
					t.Errorf("%s = %q, want %q", h, got, want)
				}
			}
		})
	}
}

func TestContextCheckSeesRequestContext(t *testing.T) {
	var got any
	e := NewEndpoint("readyz")
	e.Add(ContextCheck("storage", func(ctx context.Context) error {
		got = ctx.Value(ctxKey{})
		return nil
	}))
	r := httptest.NewRequest(http.MethodGet, "/readyz/storage", nil)
	r = r.WithContext(context.WithValue(r.Context(), ctxKey{}, "from the request"))
	e.ServeHTTP(httptest.NewRecorder(), r)
	if got != "from the request" {
		t.Errorf("check saw %v, want the request's context", got)
	}
}

// TestAddWhileServing: checks are added (post-start hooks registering)
// while the endpoint serves. Run with -race.
func TestAddWhileServing(t *testing.T) {
	e := NewEndpoint("readyz")
	e.Add(PingCheck)
	const added = 50
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := 0; i < added; i++ {
			e.Add(passing(fmt.Sprintf("check-%d", i)))
		}
	}()
	go func() {
		defer wg.Done()
		for i := 0; i < added; i++ {
			if w := serve(e, "/readyz?verbose"); w.Code != http.StatusOK || !strings.HasSuffix(w.Body.String(), "readyz check passed\n") {
				t.Errorf("got %d %q", w.Code, w.Body)
				return
			}
		}
	}()
	wg.Wait()
	w := serve(e, "/readyz?verbose")
	if n := strings.Count(w.Body.String(), "[+]"); n != added+1 {
		t.Errorf("%d checks reported, want %d", n, added+1)
	}
}

// parseRecorded parses a response recorded with curl -i.
func parseRecorded(t *testing.T, data []byte) (int, http.Header, string) {
	t.Helper()
	head, body, ok := bytes.Cut(data, []byte("\r\n\r\n"))
	if !ok {
		t.Fatal("recorded response has no header/body separator")
	}
	lines := strings.Split(string(head), "\r\n")
	var proto string
	var code int
	if _, err := fmt.Sscan(lines[0], &proto, &code); err != nil {
		t.Fatalf("status line %q: %v", lines[0], err)
	}
	h := http.Header{}
	for _, l := range lines[1:] {
		k, v, _ := strings.Cut(l, ":")
		h.Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	return code, h, string(body)
}

// readReference reads a file of the facts recorded from kube-apiserver,
// which live beside the repository in ../shared/reference.
func readReference(t *testing.T, rel string) []byte {
	t.Helper()
	return required.ReadReference(t, rel)
}

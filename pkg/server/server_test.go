package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/required"
	"github.com/kapi-dev/kapi/pkg/endpoints/discovery"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/server/filters"
	"github.com/kapi-dev/kapi/pkg/server/healthz"
)

var (
	appsV1    = schema.GroupVersion{Group: "apps", Version: "v1"}
	exampleV1 = schema.GroupVersion{Group: "example.com", Version: "v1"}
	coreV1    = schema.GroupVersion{Version: "v1"}
)

// waitLimit bounds every wait for something the server does on its own
// (a hook finishing, shutdown progressing). It only turns a hang into a
// failure; nothing is asserted about how long things take.
const waitLimit = 30 * time.Second

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// requestInfoChain is the part of the filter chain the delegation chain
// depends on: the RequestInfo (resource requests are routed by group
// version, long-running ones are told apart) and the request timeout.
func requestInfoChain(h http.Handler) http.Handler {
	h = filters.WithTimeout(h, request.IsLongRunning, time.Minute, nil, quietLogger())
	return filters.WithRequestInfo(h, request.NewRequestInfoFactory())
}

// text answers with a fixed body, to tell which server handled a request.
func text(body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, body)
	})
}

// chainOfThree builds aggregator -> kube -> apiextensions -> not found,
// each owning some group versions and paths.
func chainOfThree() (aggregator, kube, apiextensions *GenericAPIServer) {
	disc := discovery.NewRegistry()
	apiextensions = New("apiextensions", NotFoundServer{}, disc)
	kube = New("kube", apiextensions, disc)
	aggregator = New("aggregator", kube, disc)

	aggregator.Handle("/version", text("aggregator /version"))
	aggregator.Handle("/openapi/", text("aggregator /openapi/"))
	aggregator.SetGroupVersionHandler(schema.GroupVersion{Group: "apiregistration.k8s.io", Version: "v1"}, text("aggregator apiregistration.k8s.io/v1"))

	kube.SetGroupVersionHandler(coreV1, text("kube v1"))
	kube.SetGroupVersionHandler(appsV1, text("kube apps/v1"))
	kube.Handle("/kube-only", text("kube /kube-only"))

	apiextensions.SetGroupVersionHandler(exampleV1, text("apiextensions example.com/v1"))
	apiextensions.SetGroupVersionHandler(appsV1, text("apiextensions apps/v1")) // hidden by kube's
	apiextensions.Handle("/apiextensions/", text("apiextensions /apiextensions/"))
	return aggregator, kube, apiextensions
}

func do(t *testing.T, h http.Handler, method, target string) *httptest.ResponseRecorder {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(method, target, nil))
	return w
}

func TestDelegation(t *testing.T) {
	aggregator, _, apiextensions := chainOfThree()
	p, err := aggregator.PrepareRun(ServingConfig{BuildHandlerChain: requestInfoChain, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	notFound := "404 page not found\n"
	cases := []struct {
		target, want string
		wantCode     int
	}{
		{"/apis/apiregistration.k8s.io/v1/apiservices", "aggregator apiregistration.k8s.io/v1", 200},
		{"/api/v1/namespaces/default/configmaps/cm1", "kube v1", 200},
		{"/api/v1/watch/namespaces/default/configmaps", "kube v1", 200},
		{"/apis/apps/v1/namespaces/default/deployments", "kube apps/v1", 200}, // the first server that owns it
		{"/apis/example.com/v1/namespaces/default/widgets/w1/status", "apiextensions example.com/v1", 200},
		{"/version", "aggregator /version", 200},
		{"/openapi/v3/apis/apps/v1", "aggregator /openapi/", 200},
		{"/kube-only", "kube /kube-only", 200},
		{"/apiextensions/anything", "apiextensions /apiextensions/", 200},
		{"/kube-only/below", notFound, 404}, // an exact path owns no subtree
		{"/nonexistent", notFound, 404},
		{"/apis/nonexistent.example.com/v1/foos", notFound, 404},
		{"/apis/example.com/v2/widgets", notFound, 404},
	}
	for _, tc := range cases {
		t.Run(tc.target, func(t *testing.T) {
			w := do(t, p.Handler(), http.MethodGet, tc.target)
			if w.Code != tc.wantCode || w.Body.String() != tc.want {
				t.Errorf("got %d %q, want %d %q", w.Code, w.Body, tc.wantCode, tc.want)
			}
		})
	}

	t.Run("the 404 is kube-apiserver's plain text", func(t *testing.T) {
		wantCode, wantHeader, wantBody := parseRecorded(t, "errors/unknown-path.txt")
		w := do(t, p.Handler(), http.MethodGet, "/nonexistent")
		if w.Code != wantCode || w.Body.String() != wantBody {
			t.Errorf("got %d %q, want %d %q", w.Code, w.Body, wantCode, wantBody)
		}
		for _, h := range []string{"Content-Type", "X-Content-Type-Options"} {
			if got, want := w.Header().Get(h), wantHeader.Get(h); got != want {
				t.Errorf("%s = %q, want %q", h, got, want)
			}
		}
	})

	t.Run("a removed group version passes on", func(t *testing.T) {
		apiextensions.SetGroupVersionHandler(exampleV1, nil)
		if w := do(t, p.Handler(), http.MethodGet, "/apis/example.com/v1/widgets"); w.Code != http.StatusNotFound {
			t.Errorf("got %d %q, want 404", w.Code, w.Body)
		}
		apiextensions.SetGroupVersionHandler(exampleV1, text("apiextensions example.com/v1 again"))
		if w := do(t, p.Handler(), http.MethodGet, "/apis/example.com/v1/widgets"); w.Body.String() != "apiextensions example.com/v1 again" {
			t.Errorf("got %d %q after re-adding", w.Code, w.Body)
		}
	})
}

func TestHealthChecksOfTheWholeChain(t *testing.T) {
	aggregator, kube, apiextensions := chainOfThree()
	kube.AddHealthChecks(healthz.NamedCheck("etcd", func(*http.Request) error { return nil }))
	kube.AddReadyzChecks(healthz.NamedCheck("etcd-readiness", func(*http.Request) error { return nil }))
	apiextensions.AddHealthChecks(healthz.NamedCheck("crd-check", func(*http.Request) error { return nil }))
	p, err := aggregator.PrepareRun(ServingConfig{BuildHandlerChain: requestInfoChain, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ endpoint, want string }{
		{"healthz", "[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]crd-check ok\nhealthz check passed\n"},
		{"livez", "[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]crd-check ok\nlivez check passed\n"},
		// Readiness also waits for shutdown, reported last.
		{"readyz", "[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]etcd-readiness ok\n[+]crd-check ok\n[+]shutdown ok\nreadyz check passed\n"},
	}
	for _, tc := range cases {
		t.Run(tc.endpoint, func(t *testing.T) {
			if w := do(t, p.Handler(), http.MethodGet, "/"+tc.endpoint+"?verbose"); w.Code != http.StatusOK || w.Body.String() != tc.want {
				t.Errorf("got %d:\n%s\nwant 200:\n%s", w.Code, w.Body, tc.want)
			}
			if w := do(t, p.Handler(), http.MethodGet, "/"+tc.endpoint); w.Code != http.StatusOK || w.Body.String() != "ok" {
				t.Errorf("got %d %q, want 200 ok", w.Code, w.Body)
			}
			if w := do(t, p.Handler(), http.MethodGet, "/"+tc.endpoint+"/nonexistent"); w.Code != http.StatusNotFound {
				t.Errorf("unknown check: got %d %q, want 404", w.Code, w.Body)
			}
		})
	}
}

func TestDuplicatePostStartHooksAreRejected(t *testing.T) {
	noop := func(PostStartHookContext) error { return nil }
	cases := []struct {
		name  string
		setup func(aggregator, kube, apiextensions *GenericAPIServer)
	}{
		{"twice on one server", func(a, _, _ *GenericAPIServer) {
			a.AddPostStartHook("start-things", noop)
			a.AddPostStartHook("start-things", noop)
		}},
		{"on two servers of the chain", func(a, _, x *GenericAPIServer) {
			a.AddPostStartHook("start-things", noop)
			x.AddPostStartHook("start-things", noop)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, k, x := chainOfThree()
			tc.setup(a, k, x)
			if _, err := a.PrepareRun(ServingConfig{Logger: quietLogger()}); err == nil || !strings.Contains(err.Error(), `"start-things"`) {
				t.Errorf("PrepareRun: %v, want an error naming the hook", err)
			}
		})
	}
}

// running is a server serving on a loopback port.
type running struct {
	url    string
	cancel context.CancelFunc
	done   chan struct{} // closed when Run has returned
	err    error         // what Run returned
}

// wait waits for Run to return and returns its result.
func (r *running) wait(t *testing.T) error {
	t.Helper()
	select {
	case <-r.done:
		return r.err
	case <-time.After(waitLimit):
		t.Fatal("Run did not return")
		return nil
	}
}

func start(t *testing.T, root *GenericAPIServer, cfg ServingConfig) *running {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Listener = ln
	if cfg.BuildHandlerChain == nil {
		cfg.BuildHandlerChain = requestInfoChain
	}
	cfg.Logger = quietLogger()
	p, err := root.PrepareRun(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{url: "http://" + ln.Addr().String(), cancel: cancel, done: make(chan struct{})}
	go func() {
		r.err = p.Run(ctx)
		close(r.done)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-r.done:
		case <-time.After(waitLimit):
			t.Error("Run did not return")
		}
	})
	return r
}

// client opens a new connection for each request, so that a request
// after the listener closed fails instead of reusing a connection.
var client = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

func (r *running) get(t *testing.T, path string) (int, string) {
	t.Helper()
	resp, err := client.Get(r.url + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: reading body: %v", path, err)
	}
	return resp.StatusCode, string(body)
}

// eventually polls cond until it is true.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestPostStartHooks(t *testing.T) {
	aggregator, kube, _ := chainOfThree()
	release := make(chan struct{})
	var gotLoopback atomic.Value
	hookCtxDone := make(chan struct{})
	aggregator.AddPostStartHook("slow", func(ctx PostStartHookContext) error {
		gotLoopback.Store(ctx.Loopback)
		go func() {
			<-ctx.Done()
			close(hookCtxDone)
		}()
		<-release
		return nil
	})
	kube.AddPostStartHook("fails", func(PostStartHookContext) error { return errors.New("cannot start widgets") })
	kube.AddPostStartHook("panics", func(PostStartHookContext) error { panic("widgets exploded") })
	kube.AddPostStartHook("quick", func(PostStartHookContext) error { return nil })
	loopback := LoopbackConfig{Host: "https://127.0.0.1:6443", BearerToken: "loopback-token"}
	srv := start(t, aggregator, ServingConfig{Loopback: loopback})

	// Until the failing and panicking hooks have returned their checks
	// say "not finished"; then they say why they failed.
	eventually(t, "the failing hooks to return", func() bool {
		_, fails := srv.get(t, "/readyz/poststarthook/fails")
		_, panics := srv.get(t, "/readyz/poststarthook/panics")
		return fails == "internal server error: cannot start widgets\n" && panics == "internal server error: panic: widgets exploded\n"
	})
	eventually(t, "the quick hook to return", func() bool {
		code, _ := srv.get(t, "/readyz/poststarthook/quick")
		return code == http.StatusOK
	})

	if code, body := srv.get(t, "/readyz/poststarthook/slow"); code != http.StatusInternalServerError || body != "internal server error: not finished\n" {
		t.Errorf("slow hook still running: got %d %q", code, body)
	}
	wantVerbose := "[+]ping ok\n[+]log ok\n" +
		"[-]poststarthook/slow failed: reason withheld\n" +
		"[-]poststarthook/fails failed: reason withheld\n" +
		"[-]poststarthook/panics failed: reason withheld\n" +
		"[+]poststarthook/quick ok\n"
	for _, endpoint := range []string{"healthz", "livez", "readyz"} {
		want := wantVerbose
		if endpoint == "readyz" {
			want += "[+]shutdown ok\n"
		}
		want += endpoint + " check failed\n"
		if code, body := srv.get(t, "/"+endpoint); code != http.StatusInternalServerError || body != want {
			t.Errorf("/%s = %d:\n%s\nwant 500:\n%s", endpoint, code, body, want)
		}
	}
	if got := gotLoopback.Load(); !reflect.DeepEqual(got, loopback) {
		t.Errorf("hook got loopback %+v, want %+v", got, loopback)
	}

	// The server keeps serving despite the broken hooks.
	if code, body := srv.get(t, "/apis/apps/v1/deployments"); code != http.StatusOK || body != "kube apps/v1" {
		t.Errorf("serving with broken hooks: got %d %q", code, body)
	}

	// The slow hook finishes; the broken ones stay red.
	close(release)
	eventually(t, "the slow hook to return", func() bool {
		code, _ := srv.get(t, "/readyz/poststarthook/slow")
		return code == http.StatusOK
	})
	if code, body := srv.get(t, "/readyz?exclude=poststarthook/fails"); code != http.StatusInternalServerError || !strings.Contains(body, "[-]poststarthook/panics failed: reason withheld\n") {
		t.Errorf("a panicked hook must stay red: got %d %q", code, body)
	}
	if code, body := srv.get(t, "/readyz?exclude=poststarthook/fails&exclude=poststarthook/panics"); code != http.StatusOK || body != "ok" {
		t.Errorf("with the broken hooks excluded: got %d %q, want 200 ok", code, body)
	}

	// Shutting down cancels the hooks' context.
	srv.cancel()
	select {
	case <-hookCtxDone:
	case <-time.After(waitLimit):
		t.Fatal("the hooks' context was not cancelled on shutdown")
	}
}

// TestGracefulShutdown follows a shutdown: /readyz turns red while the
// server still serves (pre-shutdown hooks, then ShutdownDelayDuration),
// then the listener closes, long-running requests are ended cleanly and
// in-flight requests complete undisturbed before Run returns.
func TestGracefulShutdown(t *testing.T) {
	aggregator, kube, _ := chainOfThree()

	slowStarted, releaseSlow := make(chan struct{}), make(chan struct{})
	kube.SetGroupVersionHandler(appsV1, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(slowStarted)
		select {
		case <-releaseSlow:
			_, _ = io.WriteString(w, "slow request completed")
		case <-r.Context().Done():
			http.Error(w, "slow request interrupted: "+r.Context().Err().Error(), http.StatusServiceUnavailable)
		}
	}))
	watchStarted, watchEnded := make(chan struct{}), make(chan struct{})
	kube.SetGroupVersionHandler(coreV1, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(watchEnded)
		_, _ = io.WriteString(w, "event 1\n")
		w.(http.Flusher).Flush()
		close(watchStarted)
		<-r.Context().Done() // as a watch handler does
		_, _ = io.WriteString(w, "last event\n")
	}))
	inPreShutdown, releasePreShutdown := make(chan struct{}), make(chan struct{})
	kube.AddPreShutdownHook("drain-widgets", func() error {
		close(inPreShutdown)
		<-releasePreShutdown
		return nil
	})

	srv := start(t, aggregator, ServingConfig{ShutdownDelayDuration: 2 * time.Second, ShutdownTimeout: waitLimit})
	if code, body := srv.get(t, "/readyz"); code != http.StatusOK {
		t.Fatalf("/readyz before shutdown: %d %q", code, body)
	}

	// A watch and a slow request are in flight.
	watchResp, err := client.Get(srv.url + "/api/v1/namespaces/default/pods?watch=true")
	if err != nil {
		t.Fatal(err)
	}
	defer watchResp.Body.Close()
	watchBody := bufio.NewReader(watchResp.Body)
	if line, err := watchBody.ReadString('\n'); err != nil || line != "event 1\n" {
		t.Fatalf("first watch event: %q, %v", line, err)
	}
	<-watchStarted
	type result struct {
		code int
		body string
		err  error
	}
	slowResult := make(chan result, 1)
	go func() {
		resp, err := client.Get(srv.url + "/apis/apps/v1/namespaces/default/deployments")
		if err != nil {
			slowResult <- result{err: err}
			return
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		slowResult <- result{resp.StatusCode, string(body), err}
	}()
	<-slowStarted

	srv.cancel()

	// Pre-shutdown hooks run once /readyz is red, while serving goes on.
	<-inPreShutdown
	wantRed := "[+]ping ok\n[+]log ok\n[-]shutdown failed: reason withheld\nreadyz check failed\n"
	if code, body := srv.get(t, "/readyz"); code != http.StatusInternalServerError || body != wantRed {
		t.Errorf("/readyz during shutdown = %d %q, want 500 %q", code, body, wantRed)
	}
	if code, _ := srv.get(t, "/readyz/shutdown"); code != http.StatusInternalServerError {
		t.Errorf("/readyz/shutdown during shutdown = %d, want 500", code)
	}
	if code, body := srv.get(t, "/livez"); code != http.StatusOK {
		t.Errorf("/livez during shutdown = %d %q, want 200: the server is alive", code, body)
	}
	close(releasePreShutdown)

	// During the shutdown delay new requests are still served, and
	// /readyz stays red.
	if code, body := srv.get(t, "/readyz"); code != http.StatusInternalServerError || body != wantRed {
		t.Errorf("/readyz during the shutdown delay = %d %q, want 500", code, body)
	}
	if code, body := srv.get(t, "/version"); code != http.StatusOK || body != "aggregator /version" {
		t.Errorf("/version during the shutdown delay = %d %q", code, body)
	}

	// After the delay the watch is told to end: the client reads the
	// rest of the stream and a clean end of body.
	rest, err := io.ReadAll(watchBody)
	if err != nil {
		t.Errorf("watch body ended with %v, want a clean end", err)
	}
	if string(rest) != "last event\n" {
		t.Errorf("watch body after the first event = %q", rest)
	}
	<-watchEnded

	// The listener closes while the slow request is still in flight...
	eventually(t, "the listener to close", func() bool {
		resp, err := client.Get(srv.url + "/version")
		if err == nil {
			resp.Body.Close()
		}
		return err != nil
	})
	select {
	case r := <-slowResult:
		t.Fatalf("the slow request ended before it was released: %+v", r)
	case <-srv.done:
		t.Fatalf("Run returned with a request in flight: %v", srv.err)
	default:
	}

	// ...which completes undisturbed, and then Run returns.
	close(releaseSlow)
	if r := <-slowResult; r.err != nil || r.code != http.StatusOK || r.body != "slow request completed" {
		t.Errorf("slow request: %d %q %v, want 200 %q", r.code, r.body, r.err, "slow request completed")
	}
	if err := srv.wait(t); err != nil {
		t.Errorf("Run: %v", err)
	}
}

// TestShutdownTimeout: a request that outlives ShutdownTimeout does not
// keep Run from returning; its connection is closed.
func TestShutdownTimeout(t *testing.T) {
	aggregator, kube, _ := chainOfThree()
	started, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	kube.SetGroupVersionHandler(appsV1, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "partial")
		w.(http.Flusher).Flush()
		close(started)
		<-release // ignores its context
	}))
	srv := start(t, aggregator, ServingConfig{ShutdownTimeout: 100 * time.Millisecond})
	resp, err := client.Get(srv.url + "/apis/apps/v1/deployments")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	<-started

	srv.cancel()
	if err := srv.wait(t); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Run = %v, want the shutdown deadline", err)
	}
	readErr := make(chan error, 1)
	go func() {
		_, err := io.ReadAll(resp.Body)
		readErr <- err
	}()
	select {
	case err := <-readErr:
		if err == nil {
			t.Error("the request outliving the shutdown ended as if complete, want its connection closed")
		}
	case <-time.After(waitLimit):
		t.Fatal("the connection of the request outliving the shutdown is still open after Run returned")
	}
}

// parseRecorded parses a response recorded from kube-apiserver with
// curl -i: a "> METHOD PATH" line, a blank line, the status line, the
// headers, a blank line and the body.
func parseRecorded(t *testing.T, rel string) (int, http.Header, string) {
	t.Helper()
	data := strings.ReplaceAll(string(readReference(t, rel)), "\r\n", "\n")
	if strings.HasPrefix(data, ">") {
		_, data, _ = strings.Cut(data, "\n\n")
	}
	head, body, ok := strings.Cut(data, "\n\n")
	if !ok {
		t.Fatalf("%s: no header/body separator", rel)
	}
	lines := strings.Split(head, "\n")
	var proto string
	var code int
	if _, err := fmt.Sscan(lines[0], &proto, &code); err != nil {
		t.Fatalf("%s: status line %q: %v", rel, lines[0], err)
	}
	h := http.Header{}
	for _, l := range lines[1:] {
		k, v, _ := strings.Cut(l, ":")
		h.Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	return code, h, strings.TrimRight(body, "\n") + "\n"
}

// readReference reads a file of the facts recorded from kube-apiserver,
// which live beside the repository in ../shared/reference.
func readReference(t *testing.T, rel string) []byte {
	t.Helper()
	return required.ReadReference(t, rel)
}

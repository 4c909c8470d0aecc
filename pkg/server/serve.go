package server

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"runtime/debug"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/server/healthz"
	"github.com/kapi-dev/kapi/pkg/version"
)

// LoopbackConfig lets in-process clients (post-start hooks, controllers)
// call the server as a privileged user.
type LoopbackConfig struct {
	Host        string // https://host:port
	BearerToken string
	CAData      []byte
	ServerName  string
}

// RESTConfig is a client-go config for the loopback connection.
//
// Its user agent is kube-apiserver's: kube-apiserver's loopback client
// has client-go's default agent, named after its binary, so what the
// server writes for itself (bootstrap objects, RBAC policy, the
// authentication ConfigMap) is recorded under the field manager
// "kube-apiserver". kapi's writes carry the same managedFields.
func (c LoopbackConfig) RESTConfig() *rest.Config {
	return &rest.Config{
		Host:            c.Host,
		BearerToken:     c.BearerToken,
		TLSClientConfig: rest.TLSClientConfig{CAData: c.CAData, ServerName: c.ServerName},
		QPS:             -1, // the server does not throttle itself
		UserAgent:       "kube-apiserver/" + version.Get().GitVersion + " (" + runtime.GOOS + "/" + runtime.GOARCH + ") kapi",
	}
}

// ServingConfig says how the outermost server serves.
type ServingConfig struct {
	// Listener is the bound secure port.
	Listener net.Listener
	// TLS is the serving TLS configuration (certificates, client CAs).
	TLS *tls.Config
	// BuildHandlerChain wraps the delegation chain in the filter chain.
	BuildHandlerChain func(apiHandler http.Handler) http.Handler
	// ShutdownDelayDuration keeps serving after /readyz turns red, so load
	// balancers notice before connections are refused.
	ShutdownDelayDuration time.Duration
	// ShutdownTimeout bounds how long in-flight requests may take to
	// finish once the server stops accepting new ones.
	ShutdownTimeout time.Duration
	// IdleTimeout closes a keep-alive connection (HTTP/1.1 or HTTP/2)
	// that has carried no request for this long; zero means
	// kube-apiserver's 90 seconds. kube-apiserver has no flag for it.
	IdleTimeout time.Duration
	// HTTP2MaxStreamsPerConnection bounds the concurrent streams of one
	// HTTP/2 connection (--http2-max-streams-per-connection); zero means
	// kube-apiserver's 100.
	HTTP2MaxStreamsPerConnection int
	Loopback                     LoopbackConfig
	// Logger receives the serving log (hook failures, shutdown, the HTTP
	// server's errors); nil discards it.
	Logger *slog.Logger
}

// Prepared is a server chain ready to run.
type Prepared struct {
	root    *GenericAPIServer
	cfg     ServingConfig
	servers []DelegationTarget
	handler http.Handler

	shuttingDown atomic.Bool
	// longRunning is cancelled when shutdown ends the long-running
	// requests (watches, logs, exec...); other requests are left to
	// finish.
	longRunning    context.Context
	endLongRunning context.CancelFunc

	hooksMu   sync.Mutex
	hooksDone map[string]bool
	hookErrs  map[string]error
}

// PrepareRun installs the health endpoints of the whole chain on root and
// builds the filter chain around it.
func (s *GenericAPIServer) PrepareRun(cfg ServingConfig) (*Prepared, error) {
	servers := chain(s)
	if err := checkUniqueHooks(servers); err != nil {
		return nil, err
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.ShutdownTimeout == 0 {
		cfg.ShutdownTimeout = 60 * time.Second
	}
	if cfg.IdleTimeout == 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	p := &Prepared{root: s, cfg: cfg, servers: servers, hooksDone: map[string]bool{}, hookErrs: map[string]error{}}

	hz, lz, rz := healthz.NewEndpoint("healthz"), healthz.NewEndpoint("livez"), healthz.NewEndpoint("readyz")
	for _, e := range []*healthz.Endpoint{hz, lz, rz} {
		e.Add(healthz.PingCheck, healthz.LogCheck)
	}
	for _, srv := range servers {
		h := srv.HealthChecks()
		hz.Add(h.Healthz...)
		lz.Add(h.Livez...)
		rz.Add(h.Readyz...)
	}
	for _, srv := range servers {
		for _, hook := range srv.PostStartHooks() {
			c := p.hookCheck(hook.Name)
			hz.Add(c)
			lz.Add(c)
			rz.Add(c)
		}
	}
	rz.Add(healthz.NamedCheck("shutdown", func(*http.Request) error {
		if p.shuttingDown.Load() {
			return errors.New("server is shutting down")
		}
		return nil
	}))
	for _, e := range []struct {
		name string
		h    http.Handler
	}{{"healthz", hz}, {"livez", lz}, {"readyz", rz}} {
		s.Handle("/"+e.name, e.h)
		s.Handle("/"+e.name+"/", e.h)
	}

	s.mu.Lock()
	// "/" is an exact path: Handle would make it the prefix of everything.
	s.paths["/"] = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { writeRootPaths(w, servers) })
	s.mu.Unlock()

	p.longRunning, p.endLongRunning = context.WithCancel(context.Background())
	p.handler = p.endLongRunningOnShutdown(s.UnprotectedHandler())
	if cfg.BuildHandlerChain != nil {
		p.handler = cfg.BuildHandlerChain(p.handler)
	}
	return p, nil
}

// Handler is the full handler: filter chain and delegation chain.
func (p *Prepared) Handler() http.Handler { return p.handler }

// endLongRunningOnShutdown gives each long-running request (by its
// RequestInfo, which the filter chain has parsed by the time the
// delegation chain runs) a context that is also cancelled when shutdown
// ends long-running requests, so that watches end cleanly instead of
// holding up the shutdown. Other requests keep their context and finish.
func (p *Prepared) endLongRunningOnShutdown(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info, ok := request.RequestInfoFrom(r.Context())
		if !ok || !request.IsLongRunning(info) {
			h.ServeHTTP(w, r)
			return
		}
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		stop := context.AfterFunc(p.longRunning, cancel)
		defer stop()
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}

// hookCheck fails until the named post-start hook has returned without
// error.
func (p *Prepared) hookCheck(name string) healthz.Checker {
	return healthz.NamedCheck("poststarthook/"+name, func(*http.Request) error {
		p.hooksMu.Lock()
		defer p.hooksMu.Unlock()
		if err := p.hookErrs[name]; err != nil {
			return err
		}
		if !p.hooksDone[name] {
			return errors.New("not finished")
		}
		return nil
	})
}

// Run serves until ctx is done, then shuts down gracefully: /readyz turns
// red, the pre-shutdown hooks run, the shutdown delay passes, the listener
// closes, long-running requests (watches) are told to end, and in-flight
// requests get ShutdownTimeout to finish. stopped is closed once the
// server is no longer serving.
func (p *Prepared) Run(ctx context.Context) error {
	defer p.endLongRunning()

	conns := newBusyConns()
	srv := &http.Server{
		Handler:   p.handler,
		ConnState: conns.connState,
		TLSConfig: p.cfg.TLS,
		// A client has this long to send its request headers, just less
		// than the longest request may take (kube-apiserver's 32 s): a
		// connection that trickles them in (slowloris) is closed.
		ReadHeaderTimeout: 32 * time.Second,
		IdleTimeout:       p.cfg.IdleTimeout,
		MaxHeaderBytes:    1 << 20,
		HTTP2:             http2Config(p.cfg.HTTP2MaxStreamsPerConnection),
		ErrorLog:          slog.NewLogLogger(p.cfg.Logger.Handler(), slog.LevelDebug),
	}
	serveErr := make(chan error, 1)
	go func() {
		var err error
		if p.cfg.TLS != nil {
			err = srv.ServeTLS(p.cfg.Listener, "", "")
		} else {
			err = srv.Serve(p.cfg.Listener)
		}
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		serveErr <- err
	}()

	hooksCtx, cancelHooks := context.WithCancel(ctx)
	defer cancelHooks()
	p.runPostStartHooks(hooksCtx)

	select {
	case err := <-serveErr:
		return fmt.Errorf("serving: %w", err)
	case <-ctx.Done():
	}

	log := p.cfg.Logger
	log.Info("shutting down: /readyz now fails")
	p.shuttingDown.Store(true)
	for _, srvr := range p.servers {
		for _, h := range srvr.PreShutdownHooks() {
			if err := h.Fn(); err != nil {
				log.Error("pre-shutdown hook failed", "hook", h.Name, "err", err)
			}
		}
	}
	if d := p.cfg.ShutdownDelayDuration; d > 0 {
		time.Sleep(d)
	}
	cancelHooks()
	// Watches end cleanly: their handlers see the context cancelled and
	// return, closing the chunked response properly. Other in-flight
	// requests are not interrupted: Shutdown waits for them.
	p.endLongRunning()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), p.cfg.ShutdownTimeout)
	defer cancel()
	shutdown := make(chan error, 1)
	go func() { shutdown <- srv.Shutdown(shutdownCtx) }()
	var err error
	select {
	case err = <-shutdown:
	case <-conns.idle():
		// Every response has been written. Shutdown would still wait
		// for the clients to close their idle HTTP/2 connections, which
		// Go's clients do not do on GOAWAY: the server closes each after
		// a second (net/http's goAwayTimeout). Nothing is left to finish
		// on them, so they are closed now.
		_ = srv.Close()
		err = <-shutdown
	}
	if err != nil {
		// ShutdownTimeout passed: drop what is still open rather than
		// leave it served after Run has returned.
		_ = srv.Close()
	}
	if serr := <-serveErr; err == nil {
		err = serr
	}
	log.Info("server stopped")
	return err
}

// DefaultIdleTimeout is kube-apiserver's: the keep-alive of Go's default
// client transport, so that clients, not the server, usually close idle
// connections.
const DefaultIdleTimeout = 90 * time.Second

// defaultHTTP2MaxStreams is kube-apiserver's bound on the concurrent
// streams of an HTTP/2 connection: what Go's clients assume before the
// server says otherwise.
const defaultHTTP2MaxStreams = 100

// http2Frame is kube-apiserver's largest HTTP/2 frame and per-stream
// upload buffer: 256 KiB holds at least 99% of the objects of surveyed
// clusters in one frame, and keeps a connection's buffers (one per
// stream) small.
const http2Frame = 256 << 10

// http2Config is kube-apiserver's HTTP/2 serving: at most maxStreams
// concurrent streams per connection (zero: 100) and 256 KiB frames and
// stream buffers, so a connection buffers at most maxStreams * 256 KiB.
// Go's server closes a connection whose client opens and resets streams
// faster than their handlers end (HTTP/2 rapid reset): it runs at most
// maxStreams handlers and queues at most four times as many.
func http2Config(maxStreams int) *http.HTTP2Config {
	if maxStreams <= 0 {
		maxStreams = defaultHTTP2MaxStreams
	}
	return &http.HTTP2Config{
		MaxConcurrentStreams:          maxStreams,
		MaxReadFrameSize:              http2Frame,
		MaxReceiveBufferPerStream:     http2Frame,
		MaxReceiveBufferPerConnection: http2Frame * maxStreams,
	}
}

// runPostStartHooks runs every hook of the chain concurrently; each
// becomes healthy in /readyz when it returns.
func (p *Prepared) runPostStartHooks(ctx context.Context) {
	hookCtx := PostStartHookContext{Context: ctx, Loopback: p.cfg.Loopback}
	var hooks sync.WaitGroup
	defer func() { go releaseStartupMemory(&hooks) }()
	for _, srv := range p.servers {
		for _, h := range srv.PostStartHooks() {
			hooks.Add(1)
			go func(h PostStartHook) {
				defer hooks.Done()
				err := runHook(h, hookCtx)
				p.hooksMu.Lock()
				defer p.hooksMu.Unlock()
				if err != nil {
					p.hookErrs[h.Name] = err
					p.cfg.Logger.Error("post-start hook failed", "hook", h.Name, "err", err)
					return
				}
				p.hooksDone[h.Name] = true
			}(h)
		}
	}
}

// releaseStartupMemory returns to the operating system, once every
// post-start hook has returned, the memory the start-up used and no
// longer needs. Building the server's documents, definitions and
// bootstrap objects leaves about as much garbage as the server keeps;
// the Go runtime would hand it back only over minutes, and an idle
// server would hold it until then. One collection, once, while nothing
// else runs.
func releaseStartupMemory(hooks *sync.WaitGroup) {
	hooks.Wait()
	debug.FreeOSMemory()
}

// runHook runs a hook, turning a panic into an error so one broken hook
// cannot take the server down.
func runHook(h PostStartHook, ctx PostStartHookContext) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return h.Fn(ctx)
}

// writeRootPaths answers "/" as kube-apiserver does: a JSON object whose
// "paths" lists, sorted, the paths the chain serves: API roots and
// non-resource paths.
func writeRootPaths(w http.ResponseWriter, servers []DelegationTarget) {
	seen := map[string]bool{}
	for _, srv := range servers {
		g, ok := srv.(*GenericAPIServer)
		if !ok {
			continue
		}
		g.mu.RLock()
		for p := range g.apiRoots {
			seen[p] = true
		}
		for p := range g.paths {
			seen[p] = true
		}
		for p := range g.prefixes {
			seen[p] = true
		}
		g.mu.RUnlock()
	}
	delete(seen, "/")
	paths := make([]string, 0, len(seen))
	for p := range seen {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	body, _ := json.MarshalIndent(struct {
		Paths []string `json:"paths"`
	}{paths}, "", "  ")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

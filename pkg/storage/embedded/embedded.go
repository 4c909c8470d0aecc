// Package embedded runs a single-member etcd inside the kapi process, so
// that kapi needs no etcd binary and its reads and writes pay no network
// hop: the client it hands out calls the etcd server's KV, lease and
// cluster services directly, in memory (etcd's v3client).
//
// Watches are the exception: they are read from the member's store
// directly (watch.go), so that a write's event is in its watchers' hands
// as the write returns. v3client's own watch, gRPC's protocol over Go
// channels, deadlocks under a storm of watch cancellations
// (etcd-io/etcd#18879, #20716); kapi used to send watches over gRPC on a
// unix socket instead, which delivered each event 60 to 100 µs (p10 to
// p50) after the write had returned.
//
// The member opens no TCP listener unless asked for a client URL (to let
// etcdctl look at the store). Many embedded servers can therefore run in
// one process or on one machine, as tests do, without port collisions.
package embedded

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"sync"
	"sync/atomic"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.etcd.io/etcd/server/v3/etcdserver/api/v3client"
)

// Config configures an embedded etcd.
type Config struct {
	// DataDir holds etcd's write-ahead log and database. It is created if
	// missing; a member started on a DataDir that holds data resumes with
	// that data.
	DataDir string

	// LogLevel is the lowest level of etcd's own log that reaches Logger:
	// "debug", "info", "warn" or "error". Empty means "error": etcd is
	// chatty at info level and kapi has its own log.
	LogLevel string

	// Logger receives etcd's log (etcd logs through zap; each entry
	// becomes one record of Logger, fields as attributes). Nil discards
	// it.
	Logger *slog.Logger

	// ClientURL, if set, also serves the etcd client API there, for
	// etcdctl and other debugging tools; kapi itself never uses it. It
	// must be an http URL on a loopback address, such as
	// "http://127.0.0.1:2379"; the port may be 0 to pick a free one (see
	// Server.ClientURL).
	ClientURL string

	// UnsafeNoFsync skips fsync on writes. Data survives a process crash
	// but not a machine crash. For tests only.
	UnsafeNoFsync bool
}

// Timing of the raft clock. There is one member, so nothing is ever sent
// to a peer: the heartbeat drives only etcd's internal timers, and an
// election is the member voting for itself. What the timing decides is how
// soon after start that vote happens. etcd moves a lone member's election
// clock to one tick before the election timeout, but raft draws the actual
// timeout at random between one and two election timeouts, so the vote
// comes 1 to electionTicks ticks after start. With etcd's defaults (100ms
// ticks, 1s election timeout) that is half a second on average; with 10ms
// ticks and the smallest election timeout etcd accepts (5 ticks) it is
// about 30ms. The price is 100 idle wake-ups a second, negligible next to
// an API server's own work, and no risk of spurious elections since no
// other member could win one.
const (
	tickMs     = 10
	electionMs = 5 * tickMs
)

// placeholderPeerURL is the peer URL the member advertises. etcd records a
// peer URL for every member and derives the member ID from it, but a lone
// member never dials it, so nothing listens there. It is kept constant so
// that the member ID stays the same across restarts.
const placeholderPeerURL = "http://127.0.0.1:2380"

// Server is a running embedded etcd.
type Server struct {
	etcd      *embed.Etcd
	client    *clientv3.Client
	clientURL string

	// closing silences the errors etcd logs about its listeners while it
	// shuts them down.
	closing   *atomic.Bool
	closeOnce sync.Once
	closeErr  error
}

// Start starts an etcd member on cfg.DataDir and returns once it is leader
// and serves requests, so the client of the returned Server is usable
// right away. If ctx ends first, the member is shut down and Start returns
// the context's error. ctx only bounds start-up: use Close to stop the
// server.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	closing := new(atomic.Bool)
	ecfg, err := etcdConfig(cfg, closing)
	if err != nil {
		return nil, err
	}
	e, err := embed.StartEtcd(ecfg)
	if err != nil {
		return nil, fmt.Errorf("starting embedded etcd in %s: %w", cfg.DataDir, err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		closing.Store(true)
		e.Close()
		return nil, fmt.Errorf("embedded etcd in %s failed to start: %w", cfg.DataDir, err)
	case <-ctx.Done():
		closing.Store(true)
		e.Close()
		return nil, fmt.Errorf("embedded etcd in %s did not start: %w", cfg.DataDir, ctx.Err())
	}
	client := v3client.New(e.Server)
	client.Watcher.Close()
	client.Watcher = newLocalWatcher(e.Server.Watchable())
	s := &Server{etcd: e, client: client, closing: closing}
	for _, l := range e.Clients {
		if addr, ok := l.Addr().(*net.TCPAddr); ok {
			s.clientURL = "http://" + addr.String()
		}
	}
	return s, nil
}

func etcdConfig(cfg Config, closing *atomic.Bool) (*embed.Config, error) {
	if cfg.DataDir == "" {
		return nil, errors.New("embedded etcd: DataDir is required")
	}
	ecfg := embed.NewConfig()
	ecfg.Name = "kapi"
	ecfg.Dir = cfg.DataDir

	level := cfg.LogLevel
	if level == "" {
		level = "error"
	}
	lg, err := newLogger(cfg.Logger, level, closing)
	if err != nil {
		return nil, err
	}
	ecfg.Logger = "zap"
	ecfg.LogLevel = level
	ecfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(lg)

	ecfg.TickMs = tickMs
	ecfg.ElectionMs = electionMs
	ecfg.InitialElectionTickAdvance = true
	ecfg.UnsafeNoFsync = cfg.UnsafeNoFsync

	peer, err := url.Parse(placeholderPeerURL)
	if err != nil {
		return nil, err
	}
	ecfg.ListenPeerUrls = nil
	ecfg.AdvertisePeerUrls = []url.URL{*peer}
	ecfg.InitialCluster = ecfg.InitialClusterFromName(ecfg.Name)

	ecfg.ListenClientUrls, ecfg.AdvertiseClientUrls = nil, nil
	if cfg.ClientURL != "" {
		u, err := loopbackHTTPURL(cfg.ClientURL)
		if err != nil {
			return nil, err
		}
		ecfg.ListenClientUrls = []url.URL{*u}
		ecfg.AdvertiseClientUrls = []url.URL{*u}
	}
	return ecfg, nil
}

func loopbackHTTPURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("embedded etcd: client URL %q: %w", s, err)
	}
	if u.Scheme != "http" {
		return nil, fmt.Errorf("embedded etcd: client URL %q: scheme must be http", s)
	}
	ip := net.ParseIP(u.Hostname())
	if ip == nil || !ip.IsLoopback() || u.Port() == "" {
		return nil, fmt.Errorf("embedded etcd: client URL %q must be a loopback IP address and a port", s)
	}
	return u, nil
}

// Client returns an in-process client of the member. It stays valid
// until Close; do not close it yourself.
func (s *Server) Client() *clientv3.Client { return s.client }

// ClientURL returns the URL the etcd client API is served on, with the
// port resolved, or "" if Config.ClientURL was not set.
func (s *Server) ClientURL() string { return s.clientURL }

// Done returns a channel that is closed when the member stops serving:
// after Close, or on its own after a fatal error, which etcd logs.
func (s *Server) Done() <-chan struct{} { return s.etcd.Server.StopNotify() }

// Close stops the member and releases the data dir. Every write that
// returned success is on disk already (etcd syncs its write-ahead log
// before acknowledging, unless UnsafeNoFsync), and Close also commits the
// database, so a member started again on the same DataDir starts from
// exactly this state. Requests still running fail. Close returns the
// failure of the client listener, if there is one and it failed. It may
// be called more than once.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		// Closing the client first ends its watches before the server
		// goes away. The error it reports is that cancellation.
		_ = s.client.Close()
		s.closing.Store(true)
		s.etcd.Close()
		// Once stopping, etcd reports no more errors, so whatever is
		// left in the channel (closed by etcd.Close) happened before.
		for err := range s.etcd.Err() {
			if err != nil && s.closeErr == nil {
				s.closeErr = fmt.Errorf("embedded etcd in %s: %w", s.etcd.Config().Dir, err)
			}
		}
	})
	return s.closeErr
}

// Package testserver starts a kapi inside a test process, on embedded etcd
// in a temporary directory, and gives the test an admin client config.
// It is meant for other projects' tests as much as for kapi's own.
package testserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kapi-dev/kapi/pkg/cmd"
)

// Server is a running kapi.
type Server struct {
	// ClientConfig authenticates as the admin user (system:masters).
	ClientConfig *rest.Config
	// Kubeconfig is the path of the admin kubeconfig.
	Kubeconfig string
	URL        string
	// Address is the host:port the server listens on.
	Address string
	// DataDir holds etcd's data and the certificates.
	DataDir string

	cancel context.CancelFunc
	done   chan error
}

// Options tune a test server.
type Options struct {
	// DataDir reuses a data dir (to test restarts); empty means a new
	// temporary one.
	DataDir string
	// Flags are extra command-line flags, as kapi's binary takes them.
	Flags []string
	// Address is the host:port to serve on (to restart a server where
	// its clients expect it); empty means a free port on 127.0.0.1.
	Address string
	// Log receives the server's log; nil discards it.
	Log io.Writer
}

// Start starts kapi and waits until it is ready. It is stopped when the
// test ends.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	s, err := StartE(opts, t.TempDir)
	if err != nil {
		t.Fatalf("starting kapi: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("stopping kapi: %v", err)
		}
	})
	return s
}

// StartE starts kapi; tempDir makes the data dir when opts has none.
func StartE(opts Options, tempDir func() string) (*Server, error) {
	o := cmd.NewOptions()
	fs := pflagSet(o)
	if err := fs.Parse(opts.Flags); err != nil {
		return nil, err
	}
	o.DataDir = opts.DataDir
	if o.DataDir == "" {
		o.DataDir = tempDir()
	}
	addr := opts.Address
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	o.Listener = ln
	w := opts.Log
	if w == nil {
		w = io.Discard
	}
	log := slog.New(slog.NewTextHandler(w, nil))
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := cmd.NewServer(ctx, o, log)
	if err != nil {
		cancel()
		ln.Close()
		return nil, err
	}
	s := &Server{Kubeconfig: srv.Kubeconfig, URL: srv.URL, Address: ln.Addr().String(), DataDir: o.DataDir, cancel: cancel, done: make(chan error, 1)}
	go func() { s.done <- srv.Run(ctx) }()

	cfg, err := clientcmd.BuildConfigFromFlags("", srv.Kubeconfig)
	if err != nil {
		_ = s.Stop()
		return nil, err
	}
	s.ClientConfig = cfg
	if err := s.waitReady(30 * time.Second); err != nil {
		_ = s.Stop()
		return nil, err
	}
	return s, nil
}

// waitReady polls /readyz until it answers ok.
func (s *Server) waitReady(timeout time.Duration) error {
	client, err := rest.HTTPClientFor(s.ClientConfig)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(timeout)
	for {
		resp, err := client.Get(s.URL + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case err := <-s.done:
			s.done <- err
			return fmt.Errorf("kapi stopped before it was ready: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			return errors.New("kapi was not ready in time")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop shuts kapi down and waits until it has stopped.
func (s *Server) Stop() error {
	if s.cancel == nil {
		return nil
	}
	s.cancel()
	s.cancel = nil
	return <-s.done
}

func pflagSet(o *cmd.Options) *pflag.FlagSet {
	fs := pflag.NewFlagSet("kapi", pflag.ContinueOnError)
	o.AddFlags(fs)
	return fs
}

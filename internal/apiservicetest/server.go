// Package apiservicetest serves HTTPS as the server behind a remote
// APIService would, for the tests of the aggregator's proxy and
// availability checks: it records what it receives and answers
//
//	GET /apis/<group>/<version>      the group version's APIResourceList (a resource foos),
//	                                 or the status SetDiscoveryStatus set
//	.../redirect                     302 to https://example.com/x
//	any path with ?watch=true|1      a watch: one event, flushed; a second once Release is called
//	an upgrade (Connection: Upgrade) 101 Switching Protocols, then echoes the bytes it reads
//	anything else                    200, the Request it received as JSON
//
// It is not an API server (the extension server of the e2e tests, built
// with k8s.io/apiserver, lives in a module of its own).
package apiservicetest

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kapi-dev/kapi/internal/testpki"
	"k8s.io/streaming/pkg/httpstream"
)

// Options says how the server is reached and whom it trusts.
type Options struct {
	// Group and Version are the group version it serves.
	Group, Version string
	// DNSNames are the names of its serving certificate, besides
	// 127.0.0.1 and its address: <service>.<namespace>.svc, which the
	// aggregator verifies.
	DNSNames []string
	// ServingCA signs the serving certificate; nil makes one.
	ServingCA *testpki.CA
	// Addr is where it listens; 127.0.0.1:0 if empty.
	Addr string
	// ClientCAs, if set, are the CAs a client certificate must be
	// signed by; a request without one is refused at the handshake.
	// Without it a client certificate is asked for and recorded.
	ClientCAs *x509.CertPool
}

// Server is a running server.
type Server struct {
	// Addr is host:port; CABundle is the PEM of the CA that signed its
	// serving certificate.
	Addr     string
	CABundle []byte

	opts      Options
	ts        *httptest.Server
	discovery atomic.Int32
	release   chan struct{}
	once      sync.Once

	mu       sync.Mutex
	requests []Request
}

// Request is what the server received.
type Request struct {
	Method string      `json:"method"`
	URI    string      `json:"uri"`
	Host   string      `json:"host"`
	Proto  string      `json:"proto"`
	SNI    string      `json:"sni"`
	Header http.Header `json:"header"`
	// Peers are the subjects of the client's certificate chain.
	Peers []string `json:"peers"`
	Body  string   `json:"body"`
}

// Start starts a server, stopped at the end of the test.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	ca := opts.ServingCA
	if ca == nil {
		ca = testpki.NewCA(t, "backend-ca")
	}
	addr := opts.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	host, _, _ := net.SplitHostPort(l.Addr().String())
	ips := []net.IP{net.IPv4(127, 0, 0, 1)}
	if ip := net.ParseIP(host); ip != nil {
		ips = append(ips, ip)
	}
	s := &Server{Addr: l.Addr().String(), CABundle: ca.PEM, opts: opts, release: make(chan struct{})}
	s.ts = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.ts.Listener.Close()
	s.ts.Listener = l
	s.ts.EnableHTTP2 = true
	s.ts.TLS = &tls.Config{Certificates: []tls.Certificate{ca.Serving(t, opts.DNSNames, ips)}, ClientAuth: tls.RequestClientCert}
	if opts.ClientCAs != nil {
		s.ts.TLS.ClientAuth, s.ts.TLS.ClientCAs = tls.RequireAndVerifyClientCert, opts.ClientCAs
	}
	s.ts.StartTLS()
	t.Cleanup(s.Close)
	return s
}

// Close stops the server (idempotent); what it is streaming ends.
func (s *Server) Close() {
	s.Release()
	s.ts.CloseClientConnections()
	s.ts.Close()
}

// SetDiscoveryStatus makes the discovery document answer with code (0
// restores 200 and the document).
func (s *Server) SetDiscoveryStatus(code int) { s.discovery.Store(int32(code)) }

// Release lets the watches send their second event and end.
func (s *Server) Release() { s.once.Do(func() { close(s.release) }) }

// Requests returns what the server received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// RequestsFor returns what the server received for the paths starting
// with prefix.
func (s *Server) RequestsFor(prefix string) []Request {
	var out []Request
	for _, r := range s.Requests() {
		if strings.HasPrefix(r.URI, prefix) {
			out = append(out, r)
		}
	}
	return out
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	rec := Request{Method: r.Method, URI: r.RequestURI, Host: r.Host, Proto: r.Proto, Header: r.Header.Clone(), Body: string(body)}
	if r.TLS != nil {
		rec.SNI = r.TLS.ServerName
		for _, c := range r.TLS.PeerCertificates {
			rec.Peers = append(rec.Peers, c.Subject.String())
		}
	}
	s.mu.Lock()
	s.requests = append(s.requests, rec)
	s.mu.Unlock()

	gv := "/apis/" + s.opts.Group + "/" + s.opts.Version
	q := r.URL.Query()
	switch {
	case httpstream.IsUpgradeRequest(r):
		s.upgrade(w, r)
	case r.URL.Path == gv || r.URL.Path == gv+"/":
		if code := s.discovery.Load(); code != 0 {
			http.Error(w, "discovery refused", int(code))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":%q,"resources":[{"name":"foos","singularName":"foo","namespaced":true,"kind":"Foo","verbs":["get","list","watch"]}]}`,
			s.opts.Group+"/"+s.opts.Version)
	case strings.HasSuffix(r.URL.Path, "/redirect"):
		http.Redirect(w, r, "https://example.com/x", http.StatusFound)
	case q.Get("watch") == "true" || q.Get("watch") == "1":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintln(w, `{"type":"ADDED","object":{"kind":"Foo","apiVersion":"`+s.opts.Group+"/"+s.opts.Version+`","metadata":{"name":"a"}}}`)
		w.(http.Flusher).Flush()
		select {
		case <-s.release:
		case <-r.Context().Done():
			return
		}
		fmt.Fprintln(w, `{"type":"MODIFIED","object":{"kind":"Foo","apiVersion":"`+s.opts.Group+"/"+s.opts.Version+`","metadata":{"name":"a"}}}`)
	default:
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(rec)
	}
}

// upgrade switches protocols and echoes what it reads until the client
// closes the connection.
func (s *Server) upgrade(w http.ResponseWriter, r *http.Request) {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	defer conn.Close()
	fmt.Fprintf(buf, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: %s\r\n\r\n", r.Header.Get("Upgrade"))
	if err := buf.Flush(); err != nil {
		return
	}
	rd := buf.Reader
	for {
		line, err := rd.ReadString('\n')
		if line != "" {
			if _, werr := io.WriteString(conn, "echo: "+line); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

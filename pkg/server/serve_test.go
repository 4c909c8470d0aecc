package server

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"testing"
	"time"
)

// A keep-alive connection that carries no request for IdleTimeout is
// closed by the server, over HTTP/1.1 and over HTTP/2, as kube-apiserver
// closes its idle connections (after 90 s; here after a short timeout
// set for the test).
func TestIdleConnectionsAreClosed(t *testing.T) {
	aggregator, _, _ := chainOfThree()
	r := start(t, aggregator, ServingConfig{IdleTimeout: 200 * time.Millisecond, TLS: selfSignedTLS(t)})
	addr := r.url[len("http://"):]

	t.Run("HTTP/1.1", func(t *testing.T) {
		conn, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"http/1.1"}})
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := io.WriteString(conn, "GET /healthz HTTP/1.1\r\nHost: kapi\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(conn)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.Close {
			t.Fatal("the server closed the connection after the request: it was never idle")
		}
		// Nothing more is sent: the next read ends when the server closes.
		expectClosed(t, conn, br)
	})

	t.Run("HTTP/2", func(t *testing.T) {
		conn, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2"}})
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if p := conn.ConnectionState().NegotiatedProtocol; p != "h2" {
			t.Fatalf("negotiated %q, want h2", p)
		}
		// The client preface and an empty SETTINGS frame open the
		// connection; no stream is ever opened on it.
		preface := "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + "\x00\x00\x00\x04\x00\x00\x00\x00\x00"
		if _, err := io.WriteString(conn, preface); err != nil {
			t.Fatal(err)
		}
		expectClosed(t, conn, bufio.NewReader(conn))
	})
}

// expectClosed reads (and drops) what the server sends until it closes
// the connection, failing if it has not within waitLimit.
func expectClosed(t *testing.T, conn net.Conn, r io.Reader) {
	t.Helper()
	if err := conn.SetReadDeadline(time.Now().Add(waitLimit)); err != nil {
		t.Fatal(err)
	}
	_, err := io.Copy(io.Discard, r)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatal("the idle connection was still open")
	}
}

// kube-apiserver's HTTP/2 serving: 100 streams per connection unless
// --http2-max-streams-per-connection says otherwise, 256 KiB frames and
// stream buffers, and a connection buffer for every stream.
func TestHTTP2Config(t *testing.T) {
	for _, tt := range []struct{ flag, wantStreams int }{{0, 100}, {250, 250}, {1, 1}} {
		c := http2Config(tt.flag)
		if c.MaxConcurrentStreams != tt.wantStreams || c.MaxReadFrameSize != 256<<10 || c.MaxReceiveBufferPerStream != 256<<10 ||
			c.MaxReceiveBufferPerConnection != tt.wantStreams*256<<10 {
			t.Errorf("http2Config(%d) = %+v", tt.flag, *c)
		}
	}
}

// selfSignedTLS is a serving configuration with a throwaway certificate.
func selfSignedTLS(t *testing.T) *tls.Config {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "kapi"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
}

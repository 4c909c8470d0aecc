package proxy

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"
	"time"
)

// ClientCert is the client certificate the aggregator proves its identity
// with to the servers it proxies to (--proxy-client-cert-file and
// --proxy-client-key-file), read from its files and read again when they
// change, as kube-apiserver's dynamic certificate content does: a pair
// that does not load (a half-written file, a key that does not match) is
// refused and the one in force kept. A nil *ClientCert has no certificate.
type ClientCert struct {
	certFile, keyFile string
	log               *slog.Logger
	current           atomic.Pointer[loadedCert]
}

// loadedCert is one content of the files; a new one is a new pointer, so
// that whoever built something from a content can tell it was replaced.
type loadedCert struct {
	certPEM, keyPEM []byte
	cert            *tls.Certificate
}

// NewClientCert reads the pair; it fails, as kube-apiserver fails to
// start, if the files cannot be read or do not hold a matching pair.
func NewClientCert(certFile, keyFile string, log *slog.Logger) (*ClientCert, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &ClientCert{certFile: certFile, keyFile: keyFile, log: log}
	if _, err := c.Reload(); err != nil {
		return nil, err
	}
	return c, nil
}

// Certificate returns the certificate in force; nil if c is nil.
func (c *ClientCert) Certificate() *tls.Certificate {
	if l := c.load(); l != nil {
		return l.cert
	}
	return nil
}

// load returns the content in force; nil if c is nil.
func (c *ClientCert) load() *loadedCert {
	if c == nil {
		return nil
	}
	return c.current.Load()
}

// Reload reads the files again and reports whether the content changed.
// On error the pair in force is kept.
func (c *ClientCert) Reload() (bool, error) {
	certPEM, err := os.ReadFile(c.certFile)
	if err != nil {
		return false, err
	}
	keyPEM, err := os.ReadFile(c.keyFile)
	if err != nil {
		return false, err
	}
	if old := c.current.Load(); old != nil && bytes.Equal(old.certPEM, certPEM) && bytes.Equal(old.keyPEM, keyPEM) {
		return false, nil
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return false, fmt.Errorf("%s, %s: %w", c.certFile, c.keyFile, err)
	}
	if c.current.Swap(&loadedCert{certPEM: certPEM, keyPEM: keyPEM, cert: &cert}) != nil {
		c.log.Info("Loaded a new proxy client certificate", "certFile", c.certFile, "keyFile", c.keyFile)
	}
	return true, nil
}

// Run reads the files every interval until ctx ends. kube-apiserver
// also reacts to file events; polling bounds the delay by interval.
func (c *ClientCert) Run(ctx context.Context, interval time.Duration) {
	if c == nil {
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := c.Reload(); err != nil {
				c.log.Error("Keeping the previous proxy client certificate", "err", err)
			}
		}
	}
}

// Package cafile keeps a CA bundle read from a file up to date.
//
// kube-apiserver re-reads --client-ca-file and --requestheader-client-ca-file
// when they change (its dynamic CA content watches the file and re-checks it
// every minute), so that a CA can be rotated without a restart. A new
// content that holds no certificate is refused and the previous bundle kept,
// as kube-apiserver does: a half-written file must not lock everyone out.
package cafile

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"
	"time"
)

// Bundle is a CA bundle and the pool made from it.
type Bundle struct {
	// PEM is the file's content, as published in
	// extension-apiserver-authentication.
	PEM  []byte
	Pool *x509.CertPool
}

// Parse makes a Bundle from PEM text; it must hold at least one certificate.
func Parse(data []byte) (*Bundle, error) {
	pool := x509.NewCertPool()
	n := 0
	rest := data
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, err
		}
		pool.AddCert(c)
		n++
	}
	if n == 0 {
		return nil, fmt.Errorf("data does not contain any valid RSA or ECDSA certificates")
	}
	return &Bundle{PEM: data, Pool: pool}, nil
}

// File is a CA bundle that follows a file.
type File struct {
	path    string
	current atomic.Pointer[Bundle]
	log     *slog.Logger
}

// New reads path; it fails if the file is unreadable or holds no
// certificate.
func New(path string, log *slog.Logger) (*File, error) {
	f := &File{path: path, log: log}
	if err := f.Reload(); err != nil {
		return nil, err
	}
	return f, nil
}

// Static returns a File that never changes, for a bundle kapi generated.
func Static(b *Bundle) *File {
	f := &File{log: slog.New(slog.DiscardHandler)}
	f.current.Store(b)
	return f
}

// Current returns the bundle in force.
func (f *File) Current() *Bundle { return f.current.Load() }

// Pool returns the pool in force; it suits x509.CAPool and
// headerrequest.CAPool.
func (f *File) Pool() *x509.CertPool { return f.current.Load().Pool }

// Reload re-reads the file. On error the bundle in force is kept.
func (f *File) Reload() error {
	if f.path == "" {
		return nil
	}
	data, err := os.ReadFile(f.path)
	if err != nil {
		return err
	}
	if old := f.current.Load(); old != nil && bytes.Equal(old.PEM, data) {
		return nil
	}
	b, err := Parse(data)
	if err != nil {
		return fmt.Errorf("%s: %w", f.path, err)
	}
	if f.current.Swap(b) != nil {
		f.log.Info("Loaded a new CA bundle", "file", f.path)
	}
	return nil
}

// Run re-reads the file every interval until ctx ends. kube-apiserver also
// reacts to file events; polling is the simpler half of that and bounds the
// delay by interval.
func (f *File) Run(ctx context.Context, interval time.Duration) {
	if f.path == "" {
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := f.Reload(); err != nil {
				f.log.Error("Keeping the previous CA bundle", "file", f.path, "err", err)
			}
		}
	}
}

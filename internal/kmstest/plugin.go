// Package kmstest is a KMS v2 plugin for tests: a gRPC server on a unix
// socket that encrypts with local AES-GCM keys, one per key ID, and can
// rotate its key, fail, or count its calls.
package kmstest

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"net"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc"
	kmsapi "k8s.io/kms/apis/v2"
)

// Plugin is a running fake KMS plugin.
type Plugin struct {
	kmsapi.UnimplementedKeyManagementServiceServer
	// Endpoint is the unix:// URL to put in the configuration.
	Endpoint string

	mu      sync.Mutex
	keyID   string
	keys    map[string]cipher.AEAD
	healthz string

	// Calls count the requests of each kind.
	Encrypts, Decrypts, Statuses atomic.Int64
}

// Start serves a plugin with key ID "key-1" (a random key) on a socket in
// a temporary directory until the test ends.
func Start(t testing.TB) *Plugin {
	t.Helper()
	// Socket paths are short on some platforms: t.TempDir can be long.
	dir, err := filepathShort(t)
	if err != nil {
		t.Fatal(err)
	}
	p, stop, err := Serve(filepath.Join(dir, "kms.sock"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	p.Rotate("key-1")
	return p
}

// Serve serves a plugin without keys on the unix socket sock until stop.
func Serve(sock string) (p *Plugin, stop func(), err error) {
	ln, err := net.Listen("unix", sock)
	if err != nil {
		return nil, nil, err
	}
	p = &Plugin{Endpoint: "unix://" + sock, keys: map[string]cipher.AEAD{}, healthz: "ok"}
	srv := grpc.NewServer()
	kmsapi.RegisterKeyManagementServiceServer(srv, p)
	go func() { _ = srv.Serve(ln) }()
	return p, srv.Stop, nil
}

// Rotate makes keyID the plugin's current key, a new random one if the
// plugin does not have it.
func (p *Plugin) Rotate(keyID string) {
	k := make([]byte, 32)
	_, _ = rand.Read(k)
	p.SetKey(keyID, k, false)
}

// SetKey gives the plugin the AES key of keyID (unless it has one and
// replace is false) and makes it current: for data recorded with a known
// key.
func (p *Plugin) SetKey(keyID string, key []byte, replace bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.keys[keyID]; !ok || replace {
		block, err := aes.NewCipher(key)
		if err != nil {
			panic(err)
		}
		p.keys[keyID], _ = cipher.NewGCM(block)
	}
	p.keyID = keyID
}

// SetHealthz sets what Status reports as healthz ("ok" is healthy).
func (p *Plugin) SetHealthz(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.healthz = s
}

func (p *Plugin) Status(context.Context, *kmsapi.StatusRequest) (*kmsapi.StatusResponse, error) {
	p.Statuses.Add(1)
	p.mu.Lock()
	defer p.mu.Unlock()
	return &kmsapi.StatusResponse{Version: "v2", Healthz: p.healthz, KeyId: p.keyID}, nil
}

func (p *Plugin) Encrypt(_ context.Context, req *kmsapi.EncryptRequest) (*kmsapi.EncryptResponse, error) {
	p.Encrypts.Add(1)
	p.mu.Lock()
	defer p.mu.Unlock()
	aead := p.keys[p.keyID]
	nonce := make([]byte, aead.NonceSize())
	_, _ = rand.Read(nonce)
	return &kmsapi.EncryptResponse{
		Ciphertext:  aead.Seal(nonce, nonce, req.Plaintext, nil),
		KeyId:       p.keyID,
		Annotations: map[string][]byte{"kms.kapi.example.com": []byte(p.keyID)},
	}, nil
}

func (p *Plugin) Decrypt(_ context.Context, req *kmsapi.DecryptRequest) (*kmsapi.DecryptResponse, error) {
	p.Decrypts.Add(1)
	p.mu.Lock()
	defer p.mu.Unlock()
	aead, ok := p.keys[req.KeyId]
	if !ok {
		return nil, errors.New("unknown key ID " + req.KeyId)
	}
	if len(req.Ciphertext) < aead.NonceSize() {
		return nil, errors.New("short ciphertext")
	}
	out, err := aead.Open(nil, req.Ciphertext[:aead.NonceSize()], req.Ciphertext[aead.NonceSize():], nil)
	if err != nil {
		return nil, err
	}
	return &kmsapi.DecryptResponse{Plaintext: out}, nil
}

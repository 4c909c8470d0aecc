// Package kmsv2 is the KMS v2 provider: envelope encryption through a KMS
// plugin reached by gRPC on a unix socket (the k8s.io/kms v2 API), in
// kube-apiserver's format, so that values move between the two servers
// when both use the same plugin.
//
// The plugin never sees the data. kapi makes a random 32-byte seed, has
// the plugin encrypt it once (Encrypt), and keeps using it for writes:
// each value gets a random 32-byte info, its key is
// HKDF-SHA256-Expand(seed, info), and it is sealed with AES-GCM (random
// 12-byte nonce, the etcd key as authenticated data). The value stored
// after "k8s:enc:kms:v2:<name>:" is an EncryptedObject protobuf holding
// info+nonce+ciphertext, the plugin's key ID, the encrypted seed and the
// plugin's annotations.
//
// The plugin's Status is polled (every minute, every 10 seconds after a
// failure; health checks answer from a result at most 20 seconds old, 3
// after a failure). A new key ID in Status means the plugin rotated its
// key: a new seed is made and encrypted, and values read under another key
// ID are stale, so an update rewrites them. A seed is used for writes
// only 3 minutes past the last good Status: a plugin that stops answering
// stops writes, not reads. Reads decrypt each distinct encrypted seed
// once (Decrypt) and keep the result for a day.
package kmsv2

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"net"
	"net/url"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	kmsapi "k8s.io/kms/apis/v2"

	"github.com/kapi-dev/kapi/pkg/storage/value"
)

// kube-apiserver's timings.
const (
	probeInterval       = time.Minute
	probeRetryInterval  = 10 * time.Second
	healthyTTL          = 20 * time.Second
	unhealthyTTL        = 3 * time.Second
	writeSeedTTL        = 3 * time.Minute
	readCacheTTL        = 24 * time.Hour
	seedSize            = 32
	infoSize            = 32
	apiVersion          = "v2"
	apiVersionV2beta1   = "v2beta1"
	statusHealthy       = "ok"
	maxReadCacheEntries = 10000
)

// Provider is one KMS v2 provider of the configuration.
type Provider struct {
	name    string
	client  kmsapi.KeyManagementServiceClient
	timeout time.Duration
	now     func() time.Time
	metrics *value.Metrics

	// write is the seed writes use, nil until the first good Status.
	write atomic.Pointer[writeState]

	mu      sync.Mutex // guards the fields below: one Status at a time
	checked time.Time
	result  error
	ttl     time.Duration
	version string

	readMu sync.Mutex
	read   map[string]readEntry // by cache key of the encrypted seed
}

type writeState struct {
	seed        []byte
	keyID       string
	dekSource   []byte
	annotations map[string][]byte
	expires     time.Time
}

type readEntry struct {
	secret  []byte
	expires time.Time
}

// Dial connects to the plugin at endpoint (unix:///path), asks its Status
// once, and keeps polling it until ctx ends. A plugin that is not up yet
// is no error: writes wait for its first good Status, as in
// kube-apiserver.
//
// m, which may be nil, records the calls of the plugin, the data keys it
// had to decrypt and the key IDs used.
func Dial(ctx context.Context, name, endpoint string, timeout time.Duration, m *value.Metrics) (*Provider, error) {
	u, err := url.Parse(endpoint)
	if err != nil || u.Scheme != "unix" {
		return nil, fmt.Errorf("invalid endpoint %q for the KMS provider", endpoint)
	}
	socket := u.Path
	if strings.HasPrefix(u.Host, "@") { // an abstract socket: unix://@name
		socket = u.Host + u.Path
	}
	conn, err := grpc.NewClient("passthrough:///kms",
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		// Every call is timed by method and outcome, as kube-apiserver's
		// apiserver_envelope_encryption_kms_operations_latency_seconds.
		grpc.WithUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
			start := time.Now()
			err := invoker(ctx, method, req, reply, cc, opts...)
			m.KMSCall(name, method, time.Since(start), err)
			return err
		}),
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", socket)
		}))
	if err != nil {
		return nil, err
	}
	p := New(name, kmsapi.NewKeyManagementServiceClient(conn), timeout, m)
	go func() {
		<-ctx.Done()
		_ = conn.Close()
	}()
	err = p.Check(ctx)
	go p.probe(ctx, err != nil)
	return p, nil
}

// New returns the provider of a plugin client; Dial is the usual way.
func New(name string, client kmsapi.KeyManagementServiceClient, timeout time.Duration, m *value.Metrics) *Provider {
	return &Provider{name: name, client: client, timeout: timeout, now: time.Now, read: map[string]readEntry{}, metrics: m}
}

func (p *Provider) probe(ctx context.Context, failing bool) {
	for {
		wait := probeInterval
		if failing {
			wait = probeRetryInterval
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		failing = p.Check(ctx) != nil
	}
}

// Check asks the plugin's Status (or answers from a recent one), and makes
// a new seed when the plugin's key ID changed. It is the provider's health
// check.
func (p *Provider) Check(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.checked.IsZero() && p.now().Sub(p.checked) < p.ttl {
		return p.result
	}
	err := p.check(ctx)
	p.checked, p.result, p.ttl = p.now(), err, healthyTTL
	if err != nil {
		p.ttl = unhealthyTTL
	}
	return err
}

func (p *Provider) check(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	st, err := p.client.Status(cctx, &kmsapi.StatusRequest{})
	if err != nil {
		return fmt.Errorf("failed to perform status section of the healthz check for KMS Provider %s, error: %w", p.name, err)
	}
	var errs []string
	if st.Healthz != statusHealthy {
		errs = append(errs, fmt.Sprintf("got unexpected healthz status: %s", st.Healthz))
	}
	if st.Version != apiVersion && st.Version != apiVersionV2beta1 {
		errs = append(errs, fmt.Sprintf("expected KMSv2 API version %s, got %s", apiVersion, st.Version))
	} else {
		if p.version == "" {
			p.version = st.Version
		}
		if p.version != st.Version {
			errs = append(errs, fmt.Sprintf("KMSv2 API version should not change after the initial status response version %s, got %s", p.version, st.Version))
		}
	}
	if err := validateKeyID(st.KeyId); err != nil {
		p.metrics.InvalidKeyIDFromStatus(p.name, invalidKeyIDCode(st.KeyId))
		errs = append(errs, fmt.Sprintf("got invalid KMSv2 KeyID hash %q: %v", keyIDHash(st.KeyId), err))
	} else {
		p.metrics.KeyIDFromStatus(p.name, st.KeyId)
		if err := p.rotate(ctx, st.KeyId); err != nil {
			errs = append(errs, err.Error())
		}
	}
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("kmsv2 Provider %s is not healthy, error: %s", p.name, errs[0])
	}
	return fmt.Errorf("kmsv2 Provider %s is not healthy, error: [%s]", p.name, strings.Join(errs, ", "))
}

// rotate keeps the write seed while the plugin's key ID is the one it was
// encrypted with (extending its life), and makes a new one otherwise.
func (p *Provider) rotate(ctx context.Context, keyID string) error {
	expires := p.now().Add(writeSeedTTL)
	if cur := p.write.Load(); cur != nil && cur.keyID == keyID {
		next := *cur
		next.expires = expires
		p.write.Store(&next)
		return nil
	}
	seed := make([]byte, seedSize)
	if _, err := rand.Read(seed); err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	resp, err := p.client.Encrypt(cctx, &kmsapi.EncryptRequest{Plaintext: seed, Uid: newUID()})
	if err != nil {
		return fmt.Errorf("failed to rotate DEK: failed to encrypt DEK, error: %w", err)
	}
	o := &encryptedObject{data: []byte{0}, keyID: resp.KeyId, dekSource: resp.Ciphertext, annotations: resp.Annotations, sourceType: sourceHKDFSeed}
	if err := o.validate(); err != nil {
		return fmt.Errorf("failed to rotate DEK: %w", err)
	}
	// The plugin encrypted with another key than Status named: it is
	// rotating; try again at the next check.
	if resp.KeyId != keyID {
		return fmt.Errorf("failed to rotate DEK: statusKeyIDHash=%q, encryptKeyIDHash=%q", keyIDHash(keyID), keyIDHash(resp.KeyId))
	}
	p.write.Store(&writeState{seed: seed, keyID: resp.KeyId, dekSource: resp.Ciphertext, annotations: resp.Annotations, expires: expires})
	p.remember(cacheKey(sourceHKDFSeed, resp.Ciphertext, resp.KeyId, resp.Annotations), seed)
	return nil
}

// ToStorage implements value.Transformer.
func (p *Provider) ToStorage(_ context.Context, data, authData []byte) ([]byte, error) {
	w := p.write.Load()
	if w == nil {
		return nil, errors.New("got unexpected nil transformer")
	}
	if now := p.now(); now.After(w.expires) {
		return nil, fmt.Errorf("encryptedDEKSource with keyID hash %q expired at %s (current time is %s)",
			keyIDHash(w.keyID), w.expires.Format(time.RFC3339), now.Format(time.RFC3339))
	}
	out := make([]byte, infoSize, infoSize+12+len(data)+16)
	if _, err := rand.Read(out); err != nil {
		return nil, err
	}
	aead, err := derivedGCM(w.seed, out[:infoSize])
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	out = append(out, nonce...)
	out = aead.Seal(out, nonce, data, authData)
	o := &encryptedObject{data: out, keyID: w.keyID, dekSource: w.dekSource, annotations: w.annotations, sourceType: sourceHKDFSeed}
	p.metrics.KeyIDWritten(p.name, w.keyID)
	return o.marshal(), nil
}

// FromStorage implements value.Transformer.
func (p *Provider) FromStorage(ctx context.Context, data, authData []byte) ([]byte, bool, error) {
	o, err := unmarshal(data)
	if err != nil {
		return nil, false, err
	}
	key := cacheKey(o.sourceType, o.dekSource, o.keyID, o.annotations)
	secret := p.recall(key)
	if secret == nil {
		p.metrics.CacheMiss()
		cctx, cancel := context.WithTimeout(ctx, p.timeout)
		defer cancel()
		resp, err := p.client.Decrypt(cctx, &kmsapi.DecryptRequest{Ciphertext: o.dekSource, Uid: newUID(), KeyId: o.keyID, Annotations: o.annotations})
		if err != nil {
			return nil, false, fmt.Errorf("failed to decrypt DEK, error: %w", err)
		}
		secret = resp.Plaintext
		p.remember(key, secret)
	}
	p.metrics.KeyIDRead(p.name, o.keyID)
	var aead cipher.AEAD
	sealed := o.data
	if o.sourceType == sourceHKDFSeed {
		if len(sealed) < infoSize {
			return nil, false, errors.New("the stored data was shorter than the required size")
		}
		if aead, err = derivedGCM(secret, sealed[:infoSize]); err != nil {
			return nil, false, fmt.Errorf("failed to derive read key from KDF: %w", err)
		}
		sealed = sealed[infoSize:]
	} else if aead, err = newGCM(secret); err != nil {
		return nil, false, err
	}
	if len(sealed) < aead.NonceSize() {
		return nil, false, errors.New("the stored data was shorter than the required size")
	}
	out, err := aead.Open(nil, sealed[:aead.NonceSize()], sealed[aead.NonceSize():], authData)
	if err != nil {
		return nil, false, err
	}
	w := p.write.Load()
	stale := w == nil || o.keyID != w.keyID || o.sourceType != sourceHKDFSeed
	return out, stale, nil
}

var _ value.Transformer = (*Provider)(nil)

func derivedGCM(seed, info []byte) (cipher.AEAD, error) {
	key, err := hkdf.Expand(sha256.New, seed, string(info), 32)
	if err != nil {
		return nil, err
	}
	return newGCM(key)
}

func newGCM(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

func (p *Provider) recall(key string) []byte {
	p.readMu.Lock()
	defer p.readMu.Unlock()
	e, ok := p.read[key]
	if !ok || p.now().After(e.expires) {
		return nil
	}
	return e.secret
}

// remember keeps a decrypted seed for a day. The cache is bounded: when
// full, expired entries go, and if none has, all do (each is one Decrypt
// call away).
func (p *Provider) remember(key string, secret []byte) {
	p.readMu.Lock()
	defer p.readMu.Unlock()
	now := p.now()
	if len(p.read) >= maxReadCacheEntries {
		for k, e := range p.read {
			if now.After(e.expires) {
				delete(p.read, k)
			}
		}
		if len(p.read) >= maxReadCacheEntries {
			p.read = map[string]readEntry{}
		}
	}
	p.read[key] = readEntry{secret: secret, expires: now.Add(readCacheTTL)}
	p.metrics.DEKSourceCacheSize(p.name, len(p.read))
}

// cacheKey identifies an encrypted seed: everything the plugin is given
// to decrypt it.
func cacheKey(sourceType uint64, dekSource []byte, keyID string, annotations map[string][]byte) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d|%d:%s|%d:%s", sourceType, len(dekSource), dekSource, len(keyID), keyID)
	keys := make([]string, 0, len(annotations))
	for k := range annotations {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "|%d:%s=%d:%s", len(k), k, len(annotations[k]), annotations[k])
	}
	return b.String()
}

func keyIDHash(id string) string {
	if id == "" {
		return ""
	}
	return fmt.Sprintf("sha256:%x", sha256.Sum256([]byte(id)))
}

// newUID is the request id the plugin logs; random as kube-apiserver's.
func newUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

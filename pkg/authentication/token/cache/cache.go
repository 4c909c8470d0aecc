// Package cache remembers the answers of a token authenticator, as
// kube-apiserver's token cache does. kube-apiserver uses it twice: around
// the union of all its token authenticators (successes kept 10 seconds,
// nothing else), and around the token webhook
// (--authentication-token-webhook-cache-ttl, successes and refusals).
//
// What it does, as kube-apiserver's:
//
//   - The key is an HMAC-SHA256, under a random key of the process, of the
//     token and of the audiences the request asks for (a TokenReview's, or
//     the API server's), so that the token is not kept in memory and a
//     token good for one audience is not taken for another.
//   - Concurrent requests with the same key share one authentication, which
//     runs detached from them: one client giving up does not fail the
//     others. It has its own deadline (sharedLookupTimeout).
//   - The audit annotations and warnings the authenticator adds are
//     recorded with the answer and given to every request the answer
//     serves, the first one included; a refused token's are dropped.
//   - An error is remembered only when CacheErrors is set, like a refusal.
//   - It counts requests, hits and fetches in kube-apiserver's
//     authentication_token_cache_* metrics.
//
// A consequence, as in kube-apiserver: a token stays good for up to the
// success TTL after what it names is gone (a deleted service account,
// pod or bootstrap token Secret, a changed --authentication-config).
package cache

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"hash"
	"log/slog"
	"net/http"
	"runtime"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
	"github.com/kapi-dev/kapi/pkg/endpoints/auditcontext"
	"github.com/kapi-dev/kapi/pkg/endpoints/warning"
)

// SuccessTTL is how long kube-apiserver remembers the tokens its token
// authenticators accepted (its TokenSuccessCacheTTL; it remembers no
// refusal: TokenFailureCacheTTL is 0).
const SuccessTTL = 10 * time.Second

// sharedLookupTimeout bounds an authentication shared by several
// requests, which none of their contexts may cancel.
const sharedLookupTimeout = 30 * time.Second

// maxEntries bounds the memory a flood of distinct tokens can take; when
// the cache is full, expired entries go first, then a tenth of the rest.
const maxEntries = 32768

// errCrash is the answer of an authenticator that panicked, kube-apiserver's.
var errCrash = apierrors.NewInternalError(errors.New("authentication failed unexpectedly"))

// Options configure an Authenticator.
type Options struct {
	// SuccessTTL and FailureTTL are how long an accepted token and a
	// refused one are remembered; 0 remembers none of that kind.
	SuccessTTL, FailureTTL time.Duration
	// CacheErrors remembers a refusal with an error (the authenticator
	// explained why, or failed) as any refusal; otherwise the next
	// request asks again.
	CacheErrors bool
	// DefaultAudiences are the audiences of a request whose context names
	// none (authenticator.WithAudiences): the API server's, which
	// kube-apiserver puts in every request's context, so that a
	// TokenReview without audiences shares the entries of plain requests.
	DefaultAudiences []string
	// Metrics records the cache's work; nil records nothing.
	Metrics *Metrics
	// Logger receives the stack of a panicking authenticator.
	Logger *slog.Logger
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// record is one answer of the delegate, with what it left in the
// request's context.
type record struct {
	resp        *authenticator.Response
	ok          bool
	err         error
	annotations map[string]string
	warnings    []string
	expires     time.Time
}

// call is one authentication in progress, shared by the requests that
// want it.
type call struct {
	done chan struct{}
	rec  *record
}

// Authenticator is a caching authenticator.Token.
type Authenticator struct {
	delegate authenticator.Token
	o        Options
	hashes   sync.Pool

	mu      sync.RWMutex
	entries map[[sha256.Size]byte]*record

	flightMu sync.Mutex
	flights  map[[sha256.Size]byte]*call
}

// New caches the answers of delegate as o says.
func New(delegate authenticator.Token, o Options) *Authenticator {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		panic(err) // crypto/rand does not fail
	}
	a := &Authenticator{
		delegate: delegate,
		o:        o,
		entries:  map[[sha256.Size]byte]*record{},
		flights:  map[[sha256.Size]byte]*call{},
	}
	a.hashes.New = func() any { return hmac.New(sha256.New, secret) }
	return a
}

var _ authenticator.Token = &Authenticator{}

// AuthenticateToken implements authenticator.Token: the remembered answer
// for token and ctx's audiences, or the delegate's. An accepted token's
// audit annotations and warnings are added to ctx.
func (a *Authenticator) AuthenticateToken(ctx context.Context, token string) (*authenticator.Response, bool, error) {
	rec := a.lookup(ctx, token)
	if !rec.ok || rec.err != nil {
		return nil, false, rec.err
	}
	for k, v := range rec.annotations {
		auditcontext.AddAnnotation(ctx, k, v)
	}
	for _, w := range rec.warnings {
		warning.AddWarning(ctx, w)
	}
	return rec.resp, true, nil
}

func (a *Authenticator) lookup(ctx context.Context, token string) *record {
	start := time.Now()
	auds, audsGiven := authenticator.AudiencesFrom(ctx)
	keyAuds := auds
	if !audsGiven {
		keyAuds = a.o.DefaultAudiences
	}
	key := a.key(token, keyAuds)
	if rec, ok := a.get(key); ok {
		a.o.Metrics.request(true, time.Since(start))
		return rec
	}
	a.o.Metrics.blocked(1)
	defer func() {
		a.o.Metrics.blocked(-1)
		a.o.Metrics.request(false, time.Since(start))
	}()
	c := a.join(key, func() *record { return a.fetch(key, token, auds, audsGiven) })
	select {
	case <-c.done:
		return c.rec
	case <-ctx.Done():
		// This request gives up; the authentication goes on for the
		// others and for the cache.
		return &record{err: ctx.Err()}
	}
}

// join returns the authentication of key in progress, or starts one.
func (a *Authenticator) join(key [sha256.Size]byte, fetch func() *record) *call {
	a.flightMu.Lock()
	defer a.flightMu.Unlock()
	if c, ok := a.flights[key]; ok {
		return c
	}
	c := &call{done: make(chan struct{})}
	a.flights[key] = c
	go func() {
		c.rec = fetch()
		a.flightMu.Lock()
		delete(a.flights, key)
		a.flightMu.Unlock()
		close(c.done)
	}()
	return c
}

// fetch asks the delegate, in a context of its own that carries the
// request's audiences and records the annotations and warnings it adds,
// and remembers the answer as the options say.
func (a *Authenticator) fetch(key [sha256.Size]byte, token string, auds []string, audsGiven bool) (rec *record) {
	a.o.Metrics.fetching(1)
	rec = &record{}
	defer func() {
		if r := recover(); r != nil {
			buf := make([]byte, 64<<10)
			buf = buf[:runtime.Stack(buf, false)]
			a.o.Logger.Error("Token authentication panicked", "panic", r, "stack", string(buf))
			rec = &record{err: errCrash}
		}
		a.o.Metrics.fetching(-1)
		a.o.Metrics.fetched(rec.err == nil)
	}()
	// A fetch that finished while this one was being set up.
	if cached, ok := a.get(key); ok {
		return cached
	}

	ctx, cancel := context.WithTimeout(context.Background(), sharedLookupTimeout)
	defer cancel()
	if audsGiven {
		ctx = authenticator.WithAudiences(ctx, auds)
	}
	audit := auditcontext.New("")
	ctx = auditcontext.With(ctx, audit)
	warnings := warning.NewRecorder(http.Header{})
	ctx = warning.WithRecorder(ctx, warnings)

	rec.resp, rec.ok, rec.err = a.delegate.AuthenticateToken(ctx, token)
	rec.annotations = audit.Recorded().Annotations
	rec.warnings = warnings.Texts()

	if rec.err != nil && !a.o.CacheErrors {
		return rec
	}
	ttl := a.o.FailureTTL
	if rec.ok {
		ttl = a.o.SuccessTTL
	}
	if ttl > 0 {
		rec.expires = a.o.Now().Add(ttl)
		a.put(key, rec)
	}
	return rec
}

func (a *Authenticator) get(key [sha256.Size]byte) (*record, bool) {
	a.mu.RLock()
	rec, ok := a.entries[key]
	a.mu.RUnlock()
	if !ok || !a.o.Now().Before(rec.expires) {
		return nil, false
	}
	return rec, true
}

func (a *Authenticator) put(key [sha256.Size]byte, rec *record) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.entries) >= maxEntries {
		now := a.o.Now()
		for k, e := range a.entries {
			if !now.Before(e.expires) {
				delete(a.entries, k)
			}
		}
		for k := range a.entries {
			if len(a.entries) < maxEntries-maxEntries/10 {
				break
			}
			delete(a.entries, k)
		}
	}
	a.entries[key] = rec
}

// key is the HMAC of the token and the audiences, each length-prefixed so
// that no two different inputs write the same bytes.
func (a *Authenticator) key(token string, auds []string) [sha256.Size]byte {
	h := a.hashes.Get().(hash.Hash)
	h.Reset()
	var n [4]byte
	writeString := func(s string) {
		binary.BigEndian.PutUint32(n[:], uint32(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	writeString(token)
	binary.BigEndian.PutUint32(n[:], uint32(len(auds)))
	h.Write(n[:])
	for _, aud := range auds {
		writeString(aud)
	}
	var key [sha256.Size]byte
	h.Sum(key[:0])
	a.hashes.Put(h)
	return key
}

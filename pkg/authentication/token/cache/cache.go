// Package cache remembers the answers of a token authenticator that is
// expensive to ask, such as a webhook.
//
// As kube-apiserver's --authentication-token-webhook-cache-ttl: an
// authenticated token and a token the authenticator plainly did not accept
// are remembered for their TTL; an error (the webhook failed, or said why
// it refused) is not, so that the next request asks again.
package cache

import (
	"crypto/sha256"
	"sync"
	"time"

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
)

// maxEntries bounds the memory a flood of distinct tokens can take; when
// the cache is full, expired entries go first, then everything.
const maxEntries = 32768

type entry struct {
	resp    *authenticator.Response
	ok      bool
	expires time.Time
}

// Authenticator is a caching authenticator.Token.
type Authenticator struct {
	delegate               authenticator.Token
	successTTL, failureTTL time.Duration
	now                    func() time.Time

	mu      sync.Mutex
	entries map[[sha256.Size]byte]entry
}

// New caches the answers of delegate: successes for successTTL, refusals
// for failureTTL; a TTL of 0 does not cache that kind of answer.
func New(delegate authenticator.Token, successTTL, failureTTL time.Duration) *Authenticator {
	return &Authenticator{delegate: delegate, successTTL: successTTL, failureTTL: failureTTL, now: time.Now, entries: map[[sha256.Size]byte]entry{}}
}

// AuthenticateToken implements authenticator.Token. Tokens are kept only
// as their SHA-256, so a memory dump does not reveal them.
func (a *Authenticator) AuthenticateToken(token string) (*authenticator.Response, bool, error) {
	key := sha256.Sum256([]byte(token))
	now := a.now()
	a.mu.Lock()
	e, found := a.entries[key]
	a.mu.Unlock()
	if found && now.Before(e.expires) {
		return e.resp, e.ok, nil
	}
	resp, ok, err := a.delegate.AuthenticateToken(token)
	if err != nil {
		return resp, ok, err
	}
	ttl := a.failureTTL
	if ok {
		ttl = a.successTTL
	}
	if ttl > 0 {
		a.mu.Lock()
		if len(a.entries) >= maxEntries {
			a.evict(now)
		}
		a.entries[key] = entry{resp: resp, ok: ok, expires: now.Add(ttl)}
		a.mu.Unlock()
	}
	return resp, ok, nil
}

// evict drops expired entries, or all of them if none has expired. Called
// with mu held.
func (a *Authenticator) evict(now time.Time) {
	for k, e := range a.entries {
		if !now.Before(e.expires) {
			delete(a.entries, k)
		}
	}
	if len(a.entries) >= maxEntries {
		clear(a.entries)
	}
}

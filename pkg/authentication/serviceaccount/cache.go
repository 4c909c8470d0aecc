package serviceaccount

import (
	"crypto/sha256"
	"sync"
	"time"

	sa "github.com/kapi-dev/kapi/pkg/serviceaccount"
)

// verifiedCache remembers, for a short while, the claims of tokens whose
// signature verified, so that a client sending the same token on every
// request costs one hash instead of one signature check. Only the
// signature's outcome is remembered: expiry, audiences and the lookups of
// the account and bound object run on every call, so this authenticator
// refuses the tokens of a deleted account at once. (In the server, the
// token cache of the authentication chain, pkg/authentication/token/cache,
// remembers whole successes for 10 seconds in front of it, as
// kube-apiserver's does.)
//
// The cache is bounded: when full, an arbitrary tenth of it is dropped.
type verifiedCache struct {
	mu      sync.Mutex
	entries map[[sha256.Size]byte]verifiedEntry
	max     int
	ttl     time.Duration
}

type verifiedEntry struct {
	claims *sa.Claims
	until  time.Time
}

// Sizes of the cache: how many tokens, and how long each is remembered.
const (
	verifiedCacheSize = 8192
	verifiedCacheTTL  = 10 * time.Second
)

func newVerifiedCache(max int, ttl time.Duration) *verifiedCache {
	return &verifiedCache{entries: map[[sha256.Size]byte]verifiedEntry{}, max: max, ttl: ttl}
}

func (c *verifiedCache) get(key [sha256.Size]byte, now time.Time) (*sa.Claims, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || now.After(e.until) {
		return nil, false
	}
	return e.claims, true
}

func (c *verifiedCache) put(key [sha256.Size]byte, claims *sa.Claims, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= c.max {
		drop := c.max/10 + 1
		for k := range c.entries {
			delete(c.entries, k)
			if drop--; drop == 0 {
				break
			}
		}
	}
	c.entries[key] = verifiedEntry{claims: claims, until: now.Add(c.ttl)}
}

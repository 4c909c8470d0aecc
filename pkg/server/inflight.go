package server

import (
	"net/http"
	"sync"
)

// requestCounter counts the requests a server is handling, so that its
// shutdown can tell when the last one has ended.
type requestCounter struct {
	mu sync.Mutex
	n  int
	// none is closed while no request is being handled, and replaced by
	// an open channel when one starts.
	none chan struct{}
}

func newRequestCounter() *requestCounter {
	c := &requestCounter{none: make(chan struct{})}
	close(c.none)
	return c
}

// track counts the requests h handles.
func (c *requestCounter) track(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.add(1)
		defer c.add(-1)
		h.ServeHTTP(w, r)
	})
}

func (c *requestCounter) add(delta int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == 0 {
		c.none = make(chan struct{})
	}
	c.n += delta
	if c.n == 0 {
		close(c.none)
	}
}

// idle returns a channel that is closed once no request is being handled.
func (c *requestCounter) idle() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.none
}

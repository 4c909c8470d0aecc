package server

import (
	"net"
	"net/http"
	"sync"
)

// busyConns tracks the connections of a server that are serving a
// request, so that its shutdown can tell when every response has been
// written. A connection is busy from the start of a request until net/http
// reports it idle, which it does only once the response is out (for
// HTTP/2, once its last stream is closed); counting handlers instead would
// close connections under responses still being flushed.
type busyConns struct {
	mu   sync.Mutex
	busy map[net.Conn]struct{}
	// none is closed while no connection is busy, and replaced by an open
	// channel when one becomes busy.
	none chan struct{}
}

func newBusyConns() *busyConns {
	c := &busyConns{busy: map[net.Conn]struct{}{}, none: make(chan struct{})}
	close(c.none)
	return c
}

// connState is the server's ConnState hook.
func (c *busyConns) connState(conn net.Conn, state http.ConnState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if state == http.StateActive {
		if len(c.busy) == 0 {
			c.none = make(chan struct{})
		}
		c.busy[conn] = struct{}{}
		return
	}
	// Idle, hijacked (an upgrade, now the handler's own) or closed.
	if _, ok := c.busy[conn]; !ok {
		return
	}
	delete(c.busy, conn)
	if len(c.busy) == 0 {
		close(c.none)
	}
}

// idle returns a channel that is closed once no connection is busy.
func (c *busyConns) idle() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.none
}

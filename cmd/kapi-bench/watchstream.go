package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"k8s.io/client-go/rest"
)

// A fan-out of E events to W watchers has the client read W×E events
// (a million for 1000×1000) on the same two cores as the server. Decoding
// each into a ConfigMap would make the client the bottleneck, so a watcher
// reads the JSON stream line by line (the server writes one event per
// line) and picks out only the event type and the object's
// resourceVersion.

// eventType is the type of a watch event.
type eventType uint8

const (
	eventOther eventType = iota
	eventAdded
	eventModified
	eventDeleted
	eventBookmark
	eventError
)

var eventTypes = map[string]eventType{
	"ADDED": eventAdded, "MODIFIED": eventModified, "DELETED": eventDeleted,
	"BOOKMARK": eventBookmark, "ERROR": eventError,
}

// jsonStringField returns the value of the first string field named name
// in the JSON text b, and the rest of b after it. It is a scan, not a
// parser: the caller must know that the first occurrence of the key is the
// field it wants, and the value must not contain escapes (event types and
// resourceVersions do not).
func jsonStringField(b []byte, name string) (val, rest []byte, ok bool) {
	key := `"` + name + `"`
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return nil, nil, false
	}
	b = bytes.TrimLeft(b[i+len(key):], " \t")
	if len(b) == 0 || b[0] != ':' {
		return nil, nil, false
	}
	b = bytes.TrimLeft(b[1:], " \t")
	if len(b) == 0 || b[0] != '"' {
		return nil, nil, false
	}
	b = b[1:]
	end := bytes.IndexByte(b, '"')
	if end < 0 || bytes.IndexByte(b[:end], '\\') >= 0 {
		return nil, nil, false
	}
	return b[:end], b[end+1:], true
}

// scanWatchEvent returns the type of the JSON watch event line and, for
// events that carry an object, the object's resourceVersion. The server
// writes {"type":...,"object":{...}}, so the first "type" is the event's
// and the first "resourceVersion" after it is the object's
// metadata.resourceVersion (a ConfigMap has no other).
func scanWatchEvent(line []byte) (eventType, uint64, error) {
	typ, rest, ok := jsonStringField(line, "type")
	if !ok {
		return eventOther, 0, fmt.Errorf("no event type in %q", truncate(string(line), 200))
	}
	t := eventTypes[string(typ)]
	if t == eventError || t == eventOther {
		return t, 0, nil
	}
	rv, _, ok := jsonStringField(rest, "resourceVersion")
	if !ok {
		return t, 0, fmt.Errorf("no resourceVersion in %s event %q", typ, truncate(string(line), 200))
	}
	n, err := strconv.ParseUint(string(rv), 10, 64)
	if err != nil {
		// kube-apiserver and kapi use etcd revisions; a server with
		// other resourceVersions cannot be matched to its writes.
		return t, 0, fmt.Errorf("resourceVersion %q is not a number", rv)
	}
	return t, n, nil
}

// readLine returns the next line of br without its newline. The slice is
// valid until the next call. A line longer than br's buffer is gathered
// in *long.
func readLine(br *bufio.Reader, long *[]byte) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		*long = append((*long)[:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			line, err = br.ReadSlice('\n')
			*long = append(*long, line...)
		}
		line = *long
	}
	if err != nil {
		if errors.Is(err, io.EOF) && len(line) > 0 {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return bytes.TrimRight(line, "\r\n"), nil
}

// watcher is one watch connection of a fan-out and what it received.
type watcher struct {
	// recv[i] is when the i-th event arrived, since the fan-out's base
	// time, and rvs[i] its object's resourceVersion. Only the watcher's
	// goroutine writes them; the others read them after it has ended.
	recv []time.Duration
	rvs  []uint64
	// count is len(recv), for the goroutine that waits for delivery.
	count atomic.Int64
	// failed is set when the watch could not start, got an ERROR event
	// or an unreadable one, or ended before the bench stopped it; err
	// says why.
	failed atomic.Bool
	err    error
}

// watch opens the watch at url with client and reads events until ctx is
// cancelled. It reports on started whether the watch began (nil) or why
// not, once, before reading any event. Times are taken against base.
func (w *watcher) watch(ctx context.Context, client *http.Client, url string, base time.Time, started chan<- error) {
	fail := func(err error) {
		w.err = err
		w.failed.Store(true)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		fail(err)
		started <- err
		return
	}
	req.Header.Set("Accept", mediaJSON)
	resp, err := client.Do(req)
	if err != nil {
		fail(err)
		started <- err
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		err := fmt.Errorf("status %d: %s", resp.StatusCode, body)
		fail(err)
		started <- err
		return
	}
	started <- nil

	br := bufio.NewReaderSize(resp.Body, 64<<10)
	var long []byte
	for {
		line, err := readLine(br, &long)
		if err != nil {
			if ctx.Err() == nil {
				if errors.Is(err, io.EOF) {
					err = errors.New("watch closed by the server")
				}
				fail(fmt.Errorf("after %d events: %w", len(w.recv), err))
			}
			return
		}
		now := time.Since(base)
		if len(line) == 0 {
			continue
		}
		typ, rv, err := scanWatchEvent(line)
		if err == nil && typ == eventError {
			err = fmt.Errorf("ERROR event: %s", truncate(string(line), 300))
		}
		if err != nil {
			fail(fmt.Errorf("after %d events: %w", len(w.recv), err))
			return
		}
		if typ == eventBookmark {
			continue
		}
		w.recv = append(w.recv, now)
		w.rvs = append(w.rvs, rv)
		w.count.Add(1)
	}
}

// newWatchClients returns n HTTP clients for cfg's server, each with a
// transport, and so connections, of its own. Go's HTTP/2 server allows 250
// concurrent streams per connection by default, and a watch holds a stream
// for its lifetime, so a thousand watches need several connections;
// client-go shares one transport between all clients of the same config,
// hence these are built here. Requests carry cfg's credentials.
func newWatchClients(cfg *rest.Config, n int) ([]*http.Client, []*http.Transport, error) {
	tlsConfig, err := rest.TLSConfigFor(cfg)
	if err != nil {
		return nil, nil, err
	}
	var clients []*http.Client
	var transports []*http.Transport
	for range n {
		tr := &http.Transport{
			Proxy:             http.ProxyFromEnvironment,
			ForceAttemptHTTP2: true,
			IdleConnTimeout:   90 * time.Second,
		}
		if tlsConfig != nil {
			tr.TLSClientConfig = tlsConfig.Clone()
		}
		rt, err := rest.HTTPWrappersForConfig(cfg, tr)
		if err != nil {
			return nil, nil, err
		}
		// No client timeout: a watch is a long request.
		clients = append(clients, &http.Client{Transport: rt})
		transports = append(transports, tr)
	}
	return clients, transports, nil
}

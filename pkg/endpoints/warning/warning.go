// Package warning lets any code that serves a request warn the client, the
// way kube-apiserver does: each warning becomes a
//
//	Warning: 299 - "<text>"
//
// response header (RFC 7234 section 5.5, as Kubernetes uses it), which
// kubectl prints and client-go hands to its warning handler.
//
// Warnings travel in the request context. The filter chain installs a
// Recorder for each request; handlers call AddWarning. A request with no
// Recorder (a unit test, a loopback call made without the chain) drops
// warnings silently.
package warning

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"unicode/utf8"

	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// Limits kube-apiserver puts on the Warning headers of one response, so
// that a handler warning in a loop cannot produce unbounded headers.
// Texts are measured in runes. Once the texts of a response exceed
// maxTotalRunes, every text is cut to truncatedRunes, and warnings that
// arrive after the cut texts again reach maxTotalRunes are dropped.
const (
	maxTotalRunes  = 4 * 1024
	truncatedRunes = 256
)

// code is the warn-code Kubernetes uses: 299, "miscellaneous persistent
// warning".
const code = 299

type contextKey struct{}

// WithRecorder returns a context whose warnings go to r.
func WithRecorder(ctx context.Context, r *Recorder) context.Context {
	return context.WithValue(ctx, contextKey{}, r)
}

// RecorderFrom returns the Recorder of ctx, if any.
func RecorderFrom(ctx context.Context) (*Recorder, bool) {
	r, ok := ctx.Value(contextKey{}).(*Recorder)
	return r, ok
}

// AddWarning warns the client of the request of ctx. Ignored are: empty
// texts, repeats of a text already added, texts a header cannot carry
// (invalid UTF-8 or control characters), and warnings added once the
// response header has been written.
func AddWarning(ctx context.Context, text string) {
	if r, ok := RecorderFrom(ctx); ok {
		r.Add(text)
	}
}

// Recorder turns the warnings of one response into its Warning headers.
// It is safe for concurrent use, including concurrently with the
// response being written, provided the writer calls Seal before it writes
// the header (the filter's response writer does).
type Recorder struct {
	mu sync.Mutex
	// header receives the Warning headers.
	header http.Header
	// sealed is set once the header is being written: the map then
	// belongs to the writer and later warnings could not reach the client.
	sealed bool

	seen map[string]struct{}
	// texts are the accepted warnings in order, kept to rewrite them
	// truncated once the limit is reached.
	texts []string
	// runes counts the text runes currently in Warning headers.
	runes      int
	truncating bool
}

// NewRecorder returns a Recorder adding Warning headers to header, which
// must be the header map of the response being built.
func NewRecorder(header http.Header) *Recorder {
	return &Recorder{header: header}
}

// Seal stops the recorder from touching the header map. Response writers
// call it before writing the header; warnings added afterwards are
// dropped.
func (r *Recorder) Seal() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sealed = true
}

// Add records a warning. See AddWarning.
func (r *Recorder) Add(text string) {
	if text == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()

	if r.sealed || (r.truncating && r.runes >= maxTotalRunes) {
		return
	}
	if _, dup := r.seen[text]; dup {
		return
	}
	// Check the text is representable before remembering it, so that a
	// rejected text does not later come back in the truncated rewrite.
	if _, err := utilnet.NewWarningHeader(code, "", text); err != nil {
		return
	}
	if r.seen == nil {
		r.seen = map[string]struct{}{}
	}
	r.seen[text] = struct{}{}
	r.texts = append(r.texts, text)

	if r.truncating {
		r.addHeader(truncate(text))
		return
	}
	if r.runes+utf8.RuneCountInString(text) <= maxTotalRunes {
		r.addHeader(text)
		return
	}
	// Over the limit for the first time: rewrite every warning so far,
	// this one included, cut to truncatedRunes.
	r.truncating = true
	r.runes = 0
	r.header.Del("Warning")
	for _, t := range r.texts {
		r.addHeader(truncate(t))
	}
}

// Texts returns the warnings accepted so far, in order and untruncated,
// for code that replays them on another request (the token cache replays
// an authenticator's warnings on the requests it answers from memory).
func (r *Recorder) Texts() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.texts)
}

// addHeader adds one Warning header for text, which is known to be valid.
func (r *Recorder) addHeader(text string) {
	value, err := utilnet.NewWarningHeader(code, "", text)
	if err != nil {
		return
	}
	r.header.Add("Warning", value)
	r.runes += utf8.RuneCountInString(text)
}

// truncate cuts text to truncatedRunes runes, on a rune boundary.
func truncate(text string) string {
	if utf8.RuneCountInString(text) <= truncatedRunes {
		return text
	}
	return string([]rune(text)[:truncatedRunes])
}

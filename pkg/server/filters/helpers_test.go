package filters

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/required"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/metrics"
)

// newRequest returns a request with its RequestInfo in the context, as
// WithRequestInfo would leave it.
func newRequest(t *testing.T, method, url string, body io.Reader) *http.Request {
	t.Helper()
	r := httptest.NewRequest(method, url, body)
	info, err := request.NewRequestInfoFactory().NewRequestInfo(r)
	if err != nil {
		t.Fatalf("NewRequestInfo(%s %s): %v", method, url, err)
	}
	return r.WithContext(request.WithRequestInfo(r.Context(), info))
}

// asUser puts u in the request's context, as WithAuthentication would.
func asUser(r *http.Request, name string, groups ...string) *http.Request {
	return r.WithContext(request.WithUser(r.Context(), &user.DefaultInfo{Name: name, Groups: groups}))
}

// decodeStatus parses a Status response body.
func decodeStatus(t *testing.T, body []byte) metav1.Status {
	t.Helper()
	var st metav1.Status
	if err := json.Unmarshal(body, &st); err != nil {
		t.Fatalf("response is not a Status: %v\n%s", err, body)
	}
	return st
}

// okHandler writes 200 "ok".
var okHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	_, _ = io.WriteString(w, "ok")
})

// syncBuffer is a bytes.Buffer safe to write from several goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// newTestLogger logs in text to a buffer.
func newTestLogger() (*slog.Logger, *syncBuffer) {
	buf := &syncBuffer{}
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug})), buf
}

// recordsHandler is a slog.Handler that hands every record to a channel,
// for tests that must wait for something to be logged.
type recordsHandler struct{ records chan slog.Record }

func (h recordsHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h recordsHandler) Handle(_ context.Context, r slog.Record) error {
	h.records <- r
	return nil
}
func (h recordsHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h recordsHandler) WithGroup(string) slog.Handler      { return h }

// recordAttrs returns a record's attributes as strings.
func recordAttrs(r slog.Record) map[string]string {
	out := map[string]string{}
	r.Attrs(func(a slog.Attr) bool {
		out[a.Key] = a.Value.String()
		return true
	})
	return out
}

// metricValue finds the value of the counter or gauge series of name
// whose labels include want, or -1 if there is none.
func metricValue(t *testing.T, reg *metrics.Registry, name string, want map[string]string) float64 {
	t.Helper()
	families, err := reg.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range families {
		if mf.GetName() != name {
			continue
		}
	series:
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			for k, v := range want {
				if labels[k] != v {
					continue series
				}
			}
			switch {
			case m.GetCounter() != nil:
				return m.GetCounter().GetValue()
			case m.GetGauge() != nil:
				return m.GetGauge().GetValue()
			case m.GetHistogram() != nil:
				return float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return -1
}

// referenceResponse is one recorded error: the request line and the
// Status kube-apiserver answered with.
type referenceResponse struct {
	method, path string
	status       metav1.Status
}

// readReferenceStatus parses a recorded response: a "> METHOD PATH ..."
// line, the raw headers, and a JSON Status body.
func readReferenceStatus(t *testing.T, name string) referenceResponse {
	t.Helper()
	data := required.ReadReference(t, "errors", name)
	text := string(data)
	firstLine, _, _ := strings.Cut(text, "\n")
	fields := strings.Fields(strings.TrimPrefix(firstLine, ">"))
	if len(fields) < 2 {
		t.Fatalf("%s: unexpected first line %q", name, firstLine)
	}
	start := strings.Index(text, "\n{")
	if start < 0 {
		t.Fatalf("%s: no JSON body", name)
	}
	return referenceResponse{method: fields[0], path: fields[1], status: decodeStatus(t, []byte(text[start+1:]))}
}

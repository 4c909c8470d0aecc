package cache

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/endpoints/auditcontext"
	"github.com/kapi-dev/kapi/pkg/endpoints/warning"
)

// counting answers like the webhook recorded against kube-apiserver:
// "good" is a user, "error" an explained refusal, anything else unknown.
// It annotates and warns as the service-account authenticator does for a
// legacy token, and remembers the audiences it was asked for.
type counting struct {
	mu    sync.Mutex
	calls map[string]int
	auds  [][]string
}

func newCounting() *counting { return &counting{calls: map[string]int{}} }

func (c *counting) AuthenticateToken(ctx context.Context, token string) (*authenticator.Response, bool, error) {
	c.mu.Lock()
	c.calls[token]++
	auds, _ := authenticator.AudiencesFrom(ctx)
	c.auds = append(c.auds, auds)
	c.mu.Unlock()
	auditcontext.AddAnnotation(ctx, "authentication.k8s.io/legacy-token", token)
	warning.AddWarning(ctx, "used "+token)
	switch token {
	case "good":
		return &authenticator.Response{User: &user.DefaultInfo{Name: "wh-user"}}, true, nil
	case "error":
		return nil, false, errors.New("token is revoked")
	}
	return nil, false, nil
}

func (c *counting) count(token string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[token]
}

type clock struct{ now time.Time }

func (c *clock) Now() time.Time { return c.now }

// kube-apiserver 1.37.1 with --authentication-token-webhook-cache-ttl=1h
// called the webhook once for two requests with an accepted token, once
// for two with an unknown one, and twice for two refused with an error.
func TestWhatTheWebhookCacheKeeps(t *testing.T) {
	d := newCounting()
	clk := &clock{time.Unix(1000, 0)}
	c := New(d, Options{SuccessTTL: time.Hour, FailureTTL: time.Hour, Now: clk.Now})
	ctx := context.Background()
	for range 2 {
		if resp, ok, err := c.AuthenticateToken(ctx, "good"); !ok || err != nil || resp.User.GetName() != "wh-user" {
			t.Fatalf("good: ok=%v err=%v", ok, err)
		}
		if _, ok, err := c.AuthenticateToken(ctx, "unknown"); ok || err != nil {
			t.Fatalf("unknown: ok=%v err=%v", ok, err)
		}
		if _, ok, err := c.AuthenticateToken(ctx, "error"); ok || err == nil {
			t.Fatalf("error: ok=%v err=%v", ok, err)
		}
	}
	for tok, n := range map[string]int{"good": 1, "unknown": 1, "error": 2} {
		if d.count(tok) != n {
			t.Errorf("%s: %d calls, want %d", tok, d.count(tok), n)
		}
	}
	clk.now = clk.now.Add(time.Hour)
	c.AuthenticateToken(ctx, "good")
	if d.count("good") != 2 {
		t.Errorf("after the TTL the delegate was asked %d times, want 2", d.count("good"))
	}
}

// kube-apiserver's cache of its token union keeps successes for 10
// seconds and nothing else (TokenSuccessCacheTTL 10s, TokenFailureCacheTTL
// 0, errors cached as refusals, which are not).
func TestWhatTheUnionCacheKeeps(t *testing.T) {
	d := newCounting()
	clk := &clock{time.Unix(1000, 0)}
	c := New(d, Options{SuccessTTL: SuccessTTL, CacheErrors: true, Now: clk.Now})
	ctx := context.Background()
	for range 3 {
		c.AuthenticateToken(ctx, "good")
		c.AuthenticateToken(ctx, "unknown")
		c.AuthenticateToken(ctx, "error")
	}
	for tok, n := range map[string]int{"good": 1, "unknown": 3, "error": 3} {
		if d.count(tok) != n {
			t.Errorf("%s: %d calls, want %d", tok, d.count(tok), n)
		}
	}
	clk.now = clk.now.Add(SuccessTTL - time.Nanosecond)
	c.AuthenticateToken(ctx, "good")
	if d.count("good") != 1 {
		t.Errorf("within 10s the delegate was asked again")
	}
	clk.now = clk.now.Add(time.Nanosecond)
	c.AuthenticateToken(ctx, "good")
	if d.count("good") != 2 {
		t.Errorf("after 10s the delegate was asked %d times in all, want 2", d.count("good"))
	}
}

func TestZeroTTLDoesNotCache(t *testing.T) {
	d := newCounting()
	c := New(d, Options{})
	c.AuthenticateToken(context.Background(), "good")
	c.AuthenticateToken(context.Background(), "good")
	if d.count("good") != 2 {
		t.Errorf("%d calls, want 2", d.count("good"))
	}
}

// A token accepted for some audiences is not taken as accepted for
// others. A request that names none is for the API server's audiences,
// which the delegate is not told (it knows them), and shares the answer
// of a request naming them, as in kube-apiserver where every request's
// context names them.
func TestAudiencesArePartOfTheKey(t *testing.T) {
	d := newCounting()
	c := New(d, Options{SuccessTTL: time.Hour, DefaultAudiences: []string{"api"}})
	c.AuthenticateToken(context.Background(), "good")
	c.AuthenticateToken(authenticator.WithAudiences(context.Background(), []string{"api"}), "good")
	c.AuthenticateToken(authenticator.WithAudiences(context.Background(), []string{"other"}), "good")
	c.AuthenticateToken(authenticator.WithAudiences(context.Background(), []string{"api", "other"}), "good")
	c.AuthenticateToken(authenticator.WithAudiences(context.Background(), []string{"apio", "ther"}), "good")
	c.AuthenticateToken(authenticator.WithAudiences(context.Background(), []string{"other"}), "good")
	if d.count("good") != 4 {
		t.Errorf("%d calls, want 4 (no audiences and [api] share one; [other] is asked once)", d.count("good"))
	}
	want := [][]string{nil, {"other"}, {"api", "other"}, {"apio", "ther"}}
	if !slices.EqualFunc(d.auds, want, slices.Equal) {
		t.Errorf("the delegate was asked for audiences %q, want %q", d.auds, want)
	}
}

// requestContext is the context of a request with an audit context and a
// warning recorder, as the filters make it; recorded returns what was
// left in them.
func requestContext() (context.Context, func() (map[string]string, []string)) {
	audit := auditcontext.New("id")
	rec := httptest.NewRecorder()
	ctx := warning.WithRecorder(auditcontext.With(context.Background(), audit), warning.NewRecorder(rec.Header()))
	return ctx, func() (map[string]string, []string) {
		audit.Init(auditcontext.LevelMetadata, false)
		return audit.Recorded().Annotations, rec.Header().Values("Warning")
	}
}

// The annotations and warnings of the authentication reach the request
// that caused it and every request answered from the cache; a refused
// token's are dropped, as kube-apiserver's cache drops them.
func TestAnnotationsAndWarningsAreReplayed(t *testing.T) {
	c := New(newCounting(), Options{SuccessTTL: time.Hour, FailureTTL: time.Hour, CacheErrors: true})
	for i := range 2 {
		ctx, recorded := requestContext()
		if _, ok, err := c.AuthenticateToken(ctx, "good"); !ok || err != nil {
			t.Fatal(ok, err)
		}
		annotations, warnings := recorded()
		if annotations["authentication.k8s.io/legacy-token"] != "good" || len(annotations) != 1 {
			t.Errorf("request %d: annotations %v", i, annotations)
		}
		if !slices.Equal(warnings, []string{`299 - "used good"`}) {
			t.Errorf("request %d: warnings %q", i, warnings)
		}
	}
	for _, tok := range []string{"unknown", "error", "unknown", "error"} {
		ctx, recorded := requestContext()
		c.AuthenticateToken(ctx, tok)
		if annotations, warnings := recorded(); len(annotations) != 0 || len(warnings) != 0 {
			t.Errorf("%s: annotations %v, warnings %q", tok, annotations, warnings)
		}
	}
}

// blocking accepts every token once released, counting its calls and
// noting whether its context was cancelled meanwhile.
type blocking struct {
	release   chan struct{}
	started   chan struct{}
	calls     atomic.Int32
	cancelled atomic.Bool
}

func (b *blocking) AuthenticateToken(ctx context.Context, token string) (*authenticator.Response, bool, error) {
	if b.calls.Add(1) == 1 {
		close(b.started)
	}
	<-b.release
	if ctx.Err() != nil {
		b.cancelled.Store(true)
	}
	return &authenticator.Response{User: &user.DefaultInfo{Name: token}}, true, nil
}

// Requests with the same token while it is being authenticated wait for
// that authentication rather than start their own; one of them giving up
// fails that one alone.
func TestConcurrentRequestsShareOneAuthentication(t *testing.T) {
	b := &blocking{release: make(chan struct{}), started: make(chan struct{})}
	m := NewMetrics()
	c := New(b, Options{SuccessTTL: time.Hour, Metrics: m})

	first, cancelFirst := context.WithCancel(context.Background())
	firstDone := make(chan error)
	go func() {
		_, _, err := c.AuthenticateToken(first, "t")
		firstDone <- err
	}()
	<-b.started
	const others = 8
	var wg sync.WaitGroup
	results := make(chan string, others)
	for range others {
		wg.Go(func() {
			resp, ok, err := c.AuthenticateToken(context.Background(), "t")
			if !ok || err != nil {
				results <- "failed: " + errString(err)
				return
			}
			results <- resp.User.GetName()
		})
	}
	// Wait until all of them are blocked on the authentication.
	for value(t, m.active.WithLabelValues("blocked")) != others+1 {
		time.Sleep(time.Millisecond)
	}
	cancelFirst()
	if err := <-firstDone; !errors.Is(err, context.Canceled) {
		t.Errorf("the request that gave up: %v, want %v", err, context.Canceled)
	}
	close(b.release)
	wg.Wait()
	close(results)
	for r := range results {
		if r != "t" {
			t.Errorf("a waiting request: %s", r)
		}
	}
	if n := b.calls.Load(); n != 1 {
		t.Errorf("the delegate was asked %d times, want once", n)
	}
	if b.cancelled.Load() {
		t.Error("the shared authentication was cancelled by the request that gave up")
	}
	if got := value(t, m.requests.WithLabelValues("miss")); got != others+1 {
		t.Errorf("misses: %v, want %d", got, others+1)
	}
	if got := value(t, m.fetches.WithLabelValues("ok")); got != 1 {
		t.Errorf("fetches: %v, want 1", got)
	}
	for _, status := range []string{"blocked", "in_flight"} {
		if got := value(t, m.active.WithLabelValues(status)); got != 0 {
			t.Errorf("active_fetch_count{%s} is %v after the fact", status, got)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return "not authenticated"
	}
	return err.Error()
}

type panicking struct{}

func (panicking) AuthenticateToken(context.Context, string) (*authenticator.Response, bool, error) {
	panic("boom")
}

// An authenticator that panics fails the request with kube-apiserver's
// internal error, is counted as a failed fetch, and the server goes on.
func TestAPanicIsAnError(t *testing.T) {
	m := NewMetrics()
	var logs strings.Builder
	c := New(panicking{}, Options{SuccessTTL: time.Hour, CacheErrors: true, FailureTTL: time.Hour, Metrics: m, Logger: slogTo(&logs)})
	for range 2 {
		_, ok, err := c.AuthenticateToken(context.Background(), "t")
		if ok || err == nil || err.Error() != "Internal error occurred: authentication failed unexpectedly" {
			t.Fatalf("ok=%v err=%v", ok, err)
		}
	}
	if got := value(t, m.fetches.WithLabelValues("error")); got != 2 {
		t.Errorf("failed fetches: %v, want 2 (a panic is not remembered)", got)
	}
	if !strings.Contains(logs.String(), "boom") {
		t.Errorf("the panic was not logged: %s", logs.String())
	}
}

// The metrics count hits and misses, and the delegate's answers by
// whether it gave an error.
func TestMetricsCountHitsMissesAndFetches(t *testing.T) {
	m := NewMetrics()
	c := New(newCounting(), Options{SuccessTTL: time.Hour, CacheErrors: true, Metrics: m})
	ctx := context.Background()
	for _, tok := range []string{"good", "good", "good", "unknown", "error"} {
		c.AuthenticateToken(ctx, tok)
	}
	for series, want := range map[*prometheus.CounterVec]map[string]float64{
		m.requests: {"hit": 2, "miss": 3},
		m.fetches:  {"ok": 2, "error": 1},
	} {
		for status, n := range want {
			if got := value(t, series.WithLabelValues(status)); got != n {
				t.Errorf("%s: %v, want %v", status, got, n)
			}
		}
	}
	for status, n := range map[string]uint64{"hit": 2, "miss": 3} {
		var d dto.Metric
		if err := m.durations.WithLabelValues(status).(prometheus.Histogram).Write(&d); err != nil {
			t.Fatal(err)
		}
		if got := d.GetHistogram().GetSampleCount(); got != n {
			t.Errorf("durations observed for %s: %d, want %d", status, got, n)
		}
	}
}

func slogTo(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }

// value is the value of a counter or gauge.
func value(t *testing.T, m prometheus.Metric) float64 {
	t.Helper()
	var d dto.Metric
	if err := m.Write(&d); err != nil {
		t.Fatal(err)
	}
	if d.Counter != nil {
		return d.GetCounter().GetValue()
	}
	return d.GetGauge().GetValue()
}

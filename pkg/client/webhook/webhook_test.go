package webhook

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
)

// The failures kube-apiserver's webhook clients retry
// (k8s.io/apiserver/pkg/util/webhook.DefaultShouldRetry): transient
// transport errors, 500, 504, 429, and whatever asks for a delay.
func TestShouldRetry(t *testing.T) {
	answer := func(code, retryAfter int) error {
		return apierrors.NewGenericServerResponse(code, http.MethodPost, schema.GroupResource{}, "", "x", retryAfter, true)
	}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"connection reset", syscall.ECONNRESET, true},
		{"500", answer(http.StatusInternalServerError, 0), true},
		{"504", answer(http.StatusGatewayTimeout, 0), true},
		{"429", answer(http.StatusTooManyRequests, 0), true},
		{"503 with Retry-After", answer(http.StatusServiceUnavailable, 2), true},
		{"503", answer(http.StatusServiceUnavailable, 0), false},
		{"400", answer(http.StatusBadRequest, 0), false},
		{"403", answer(http.StatusForbidden, 0), false},
		{"connection refused", syscall.ECONNREFUSED, false},
		{"any other error", errors.New("x509: certificate signed by unknown authority"), false},
	} {
		if got := ShouldRetry(tc.err); got != tc.want {
			t.Errorf("%s: ShouldRetry = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// webhookAnswering serves code to every call and counts them; it fails
// the test when a call is not what kube-apiserver's client sends.
func webhookAnswering(t *testing.T, code int) (*rest.RESTClient, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.Method != http.MethodPost || r.URL.Path != "/review" || r.URL.Query().Get("timeout") != "30s" ||
			r.Header.Get("Content-Type") != "application/json" || r.Header.Get("Accept") != "application/json, */*" {
			t.Errorf("%s %s, Content-Type %q, Accept %q", r.Method, r.URL, r.Header.Get("Content-Type"), r.Header.Get("Accept"))
		}
		w.WriteHeader(code)
	}))
	t.Cleanup(srv.Close)
	c, err := NewClient(&rest.Config{Host: srv.URL + "/review"})
	if err != nil {
		t.Fatal(err)
	}
	return c, &calls
}

func TestCallWithRetryRetriesWhatTheRuleSays(t *testing.T) {
	backoff := wait.Backoff{Duration: time.Millisecond, Factor: 1, Steps: 5}
	for _, tc := range []struct {
		code        int
		shouldRetry func(error) bool
		calls       int32
	}{
		{http.StatusOK, nil, 1},
		{http.StatusInternalServerError, nil, 5},
		{http.StatusServiceUnavailable, nil, 1},
		{http.StatusBadRequest, nil, 1},
		{http.StatusBadRequest, func(error) bool { return true }, 5},
	} {
		c, calls := webhookAnswering(t, tc.code)
		result := CallWithRetry(context.Background(), backoff, tc.shouldRetry, func() rest.Result {
			return Post(context.Background(), c, []byte(`{}`))
		})
		var code int
		if result.StatusCode(&code); code != tc.code || calls.Load() != tc.calls {
			t.Errorf("answer %d, custom rule %v: last status %d after %d calls, want %d calls", tc.code, tc.shouldRetry != nil, code, calls.Load(), tc.calls)
		}
		if (result.Error() == nil) != (tc.code == http.StatusOK) {
			t.Errorf("answer %d: error %v", tc.code, result.Error())
		}
	}
}

func TestCallWithRetryMakesNoCallOnceTheContextEnded(t *testing.T) {
	c, calls := webhookAnswering(t, http.StatusOK)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	result := CallWithRetry(ctx, RetryBackoff(time.Millisecond), nil, func() rest.Result {
		return Post(ctx, c, []byte(`{}`))
	})
	var code int
	if result.StatusCode(&code); code != 0 || result.Error() != nil || calls.Load() != 0 {
		t.Errorf("status %d, error %v, %d calls: want the zero result and no call", code, result.Error(), calls.Load())
	}
}

package filters

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestWithCacheControl(t *testing.T) {
	tests := []struct {
		name    string
		preset  string // set before the filter runs
		handler string // set by the handler
		want    string
	}{
		{name: "default", want: "no-cache, private"},
		{name: "a handler may override it", handler: "public", want: "public"},
		{name: "a value set earlier is kept", preset: "no-store", want: "no-store"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := WithCacheControl(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tc.handler != "" {
					w.Header().Set("Cache-Control", tc.handler)
				}
				w.WriteHeader(http.StatusNoContent)
			}))
			rec := httptest.NewRecorder()
			if tc.preset != "" {
				rec.Header().Set("Cache-Control", tc.preset)
			}
			h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/v1/pods", nil))
			if got := rec.Header().Values("Cache-Control"); len(got) != 1 || got[0] != tc.want {
				t.Errorf("Cache-Control %q, want %q", got, tc.want)
			}
		})
	}
}

// Errors written by later filters are marked too.
func TestCacheControlOnErrors(t *testing.T) {
	logger, _ := newTestLogger()
	h := WithCacheControl(WithAuthentication(okHandler, rejectAll, nil, nil, nil, logger))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, newRequest(t, "GET", "/api/v1/namespaces", nil))
	if rec.Code != http.StatusUnauthorized || rec.Header().Get("Cache-Control") != "no-cache, private" {
		t.Errorf("got %d with Cache-Control %q", rec.Code, rec.Header().Get("Cache-Control"))
	}
}

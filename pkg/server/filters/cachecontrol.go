package filters

import "net/http"

// WithCacheControl marks responses "Cache-Control: no-cache, private":
// every response depends on who asked, so shared caches must not keep
// it, and private ones must revalidate. A handler may set its own value
// (aggregated discovery is "public").
func WithCacheControl(handler http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, set := w.Header()["Cache-Control"]; !set {
			w.Header().Set("Cache-Control", "no-cache, private")
		}
		handler.ServeHTTP(w, r)
	})
}

package filters

import (
	"net/http"

	"github.com/kapi-dev/kapi/pkg/endpoints/warning"
)

// WithWarningRecorder lets the filters and handlers after it warn the
// client with warning.AddWarning. Warnings become Warning headers as they
// are added, until the response header is written; later ones are
// dropped, since they could no longer reach the client.
//
// Put it inside WithTimeout: the recorder then writes into the timeout
// writer's private header map, which a timed-out response never reads,
// so a late warning cannot race with the 504 being sent.
func WithWarningRecorder(handler http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := warning.NewRecorder(w.Header())
		d := &writerDelegate{ResponseWriter: w, beforeHeader: rec.Seal}
		handler.ServeHTTP(d, r.WithContext(warning.WithRecorder(r.Context(), rec)))
	})
}

package filters

import (
	"errors"
	"log/slog"
	"net/http"
	"runtime/debug"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kapi-dev/kapi/pkg/endpoints/responsewriters"
)

// errPanicked is what the client learns of a panic, in kube-apiserver's
// words; the details are in the server's log.
var errPanicked = errors.New("This request caused apiserver to panic. Look in the logs for details.")

// WithPanicRecovery keeps a panicking handler from taking the server
// down. The panic is logged with the request and its stack, and the
// client gets a 500 InternalError Status, or, if part of the response has
// already been sent, an aborted response (a closed connection in HTTP/1,
// a reset stream in HTTP/2), never a truncated one that looks complete.
//
// A panic with http.ErrAbortHandler is how a handler asks net/http to
// abort its response without logging (the timeout filter does this): it
// is passed on untouched.
//
// A nil logger discards the log.
func WithPanicRecovery(handler http.Handler, logger *slog.Logger) http.Handler {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d := &writerDelegate{ResponseWriter: w}
		defer func() {
			p := recover()
			if p == nil {
				return
			}
			if p == http.ErrAbortHandler {
				panic(p)
			}
			logger.Error("Panic while serving a request",
				"method", r.Method, "uri", r.RequestURI, "remote", r.RemoteAddr,
				"panic", p, "stack", string(debug.Stack()))
			if d.headerWritten() {
				panic(http.ErrAbortHandler)
			}
			// Headers the handler set for the body it meant to send do
			// not describe the Status.
			w.Header().Del("Content-Length")
			w.Header().Del("Content-Encoding")
			responsewriters.WriteErrorStatus(w, r, apierrors.NewInternalError(errPanicked))
		}()
		handler.ServeHTTP(d, r)
	})
}

package filters

import (
	"errors"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/endpoints/responsewriters"
)

// errNoRequestInfo means the chain is assembled wrongly: a filter that
// needs the RequestInfo runs before WithRequestInfo.
var errNoRequestInfo = errors.New("no RequestInfo found in the context, handler chain must be wrong")

// WithRequestInfo parses the request's RequestInfo into its context, for
// every later filter and handler. A path that cannot be parsed (a legacy
// verb with nothing after it, such as /api/v1/watch) gets kube-apiserver's
// answer: a plain-text 500 naming the request URI, with the characters
// HTML gives a meaning to escaped.
func WithRequestInfo(handler http.Handler, resolver request.RequestInfoResolver) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info, err := resolver.NewRequestInfo(r)
		if err != nil {
			msg := fmt.Sprintf("Internal Server Error: %q: failed to create RequestInfo: %v", r.RequestURI, err)
			http.Error(w, htmlEscaper.Replace(msg), http.StatusInternalServerError)
			return
		}
		handler.ServeHTTP(w, r.WithContext(request.WithRequestInfo(r.Context(), info)))
	})
}

// requestInfoOrFail returns the request's RequestInfo, or writes a 500
// and returns false.
func requestInfoOrFail(w http.ResponseWriter, r *http.Request) (*request.RequestInfo, bool) {
	info, ok := request.RequestInfoFrom(r.Context())
	if !ok {
		responsewriters.WriteErrorStatus(w, r, apierrors.NewInternalError(errNoRequestInfo))
	}
	return info, ok
}

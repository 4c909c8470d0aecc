package filters

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
	"github.com/kapi-dev/kapi/pkg/endpoints/auditcontext"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/endpoints/responsewriters"
	"github.com/kapi-dev/kapi/pkg/metrics"
)

// WithAuthorization lets a request through only if a allows it. Denied
// requests (and requests no authorizer has an opinion on) get kube-
// apiserver's 403 Forbidden Status, whose message says who cannot do
// what, followed by the authorizer's reason if it gave one:
//
//	pods "p" is forbidden: User "alice" cannot get resource "pods" in API group "" in the namespace "ns"
//	nodes is forbidden: User "alice" cannot list resource "nodes" in API group "" at the cluster scope
//	forbidden: User "alice" cannot get path "/metrics"
//
// An authorizer that fails without allowing yields a 500: the request
// might have been allowed, so a 403 would mislead.
//
// Each decision is counted in m (authorization_attempts_total and
// authorization_duration_seconds); m may be nil.
//
// A nil logger discards the log. a must not be nil: a server without
// authorization uses an authorizer that allows everything.
func WithAuthorization(handler http.Handler, a authorizer.Authorizer, m *metrics.Registry, logger *slog.Logger) http.Handler {
	if a == nil {
		panic("filters.WithAuthorization: nil authorizer")
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		attrs, err := AuthorizerAttributes(ctx)
		if err != nil {
			internalError(w, r, err)
			return
		}
		attrs = WithSelectors(attrs, r)
		start := time.Now()
		decision, reason, err := a.Authorize(ctx, attrs)
		m.ObserveAuthorization(authorizationResult(decision, err), time.Since(start))
		// An authorizer may allow despite an error (RBAC with one broken
		// binding among good ones), so the decision comes first.
		if decision == authorizer.DecisionAllow {
			auditcontext.AddAnnotations(ctx, decisionAnnotationKey, "allow", reasonAnnotationKey, reason)
			handler.ServeHTTP(w, r)
			return
		}
		if err != nil {
			auditcontext.AddAnnotation(ctx, reasonAnnotationKey, "internal error")
			logger.Error("Authorization failed", "err", err, "method", r.Method, "uri", r.RequestURI)
			internalError(w, r, err)
			return
		}
		auditcontext.AddAnnotations(ctx, decisionAnnotationKey, "forbid", reasonAnnotationKey, reason)
		logger.Debug("Forbidden", "method", r.Method, "uri", r.RequestURI, "reason", reason)
		responsewriters.WriteErrorStatus(w, r, forbidden(attrs, reason))
	})
}

// authorizationResult is the result label of a decision, as
// kube-apiserver counts it: an allow is an allow even with an error.
func authorizationResult(d authorizer.Decision, err error) string {
	switch {
	case d == authorizer.DecisionAllow:
		return metrics.AuthorizationAllowed
	case err != nil:
		return metrics.AuthorizationError
	case d == authorizer.DecisionDeny:
		return metrics.AuthorizationDenied
	default:
		return metrics.AuthorizationNoOpinion
	}
}

// The audit annotations of the authorization decision, as kube-apiserver
// writes them: "allow" or "forbid", and the authorizer's reason.
const (
	decisionAnnotationKey = "authorization.k8s.io/decision"
	reasonAnnotationKey   = "authorization.k8s.io/reason"
)

// AuthorizerAttributes are the attributes of the request of ctx, from its
// RequestInfo and user.
func AuthorizerAttributes(ctx context.Context) (authorizer.AttributesRecord, error) {
	info, ok := request.RequestInfoFrom(ctx)
	if !ok {
		return authorizer.AttributesRecord{}, errNoRequestInfo
	}
	attrs := authorizer.AttributesRecord{
		Verb:            info.Verb,
		Namespace:       info.Namespace,
		APIGroup:        info.APIGroup,
		APIVersion:      info.APIVersion,
		Resource:        info.Resource,
		Subresource:     info.Subresource,
		Name:            info.Name,
		ResourceRequest: info.IsResourceRequest,
		Path:            info.Path,
	}
	if u, ok := request.UserFrom(ctx); ok {
		attrs.User = u
	}
	return attrs, nil
}

// WithSelectors adds to attrs the label and field selectors of a list,
// watch or deletecollection request, as kube-apiserver 1.37 hands them to
// authorizers (the AuthorizeWithSelectors feature, on by default). A
// selector that does not parse is passed on as its error, and the
// request goes on to be authorized without it: selectors only narrow, so
// an authorizer that cannot use one judges the broader request, and the
// handler rejects the bad selector afterwards with its own 400.
// Selectors without requirements ("") are left out.
func WithSelectors(attrs authorizer.AttributesRecord, r *http.Request) authorizer.AttributesRecord {
	switch attrs.Verb {
	case "list", "watch", "deletecollection":
	default:
		return attrs
	}
	q := r.URL.Query()
	if raw := q.Get("fieldSelector"); raw != "" {
		sel, err := fields.ParseSelector(raw)
		switch {
		case err != nil:
			attrs.FieldSelectorParsingErr = err
		case len(sel.Requirements()) > 0:
			attrs.FieldSelectorRequirements = sel.Requirements()
		}
	}
	if raw := q.Get("labelSelector"); raw != "" {
		sel, err := labels.Parse(raw)
		if err != nil {
			attrs.LabelSelectorParsingErr = err
		} else if reqs, _ := sel.Requirements(); len(reqs) > 0 {
			attrs.LabelSelectorRequirements = reqs
		}
	}
	return attrs
}

// internalError is kube-apiserver's answer when authorization fails: a
// plain-text 500, not a Status, naming the request and the error (for
// a webhook that fails, the error client-go would report).
func internalError(w http.ResponseWriter, r *http.Request, err error) {
	http.Error(w, fmt.Sprintf("Internal Server Error: %q: %v", htmlEscaper.Replace(r.RequestURI), err), http.StatusInternalServerError)
}

// htmlEscaper keeps a forbidden message from looking like HTML to a
// browser that ignores the content type: the message quotes the path and
// names the client chose.
var htmlEscaper = strings.NewReplacer(`&`, "&amp;", `<`, "&lt;", `>`, "&gt;")

// forbidden is kube-apiserver's 403 for attrs.
func forbidden(attrs authorizer.Attributes, reason string) error {
	msg := htmlEscaper.Replace(forbiddenMessage(attrs))
	if reason != "" {
		msg += ": " + reason
	}
	gr := schema.GroupResource{Group: attrs.GetAPIGroup(), Resource: attrs.GetResource()}
	return apierrors.NewForbidden(gr, attrs.GetName(), errors.New(msg))
}

// forbiddenMessage says who cannot do what. apierrors.NewForbidden puts
// the resource (and name) in front of it.
func forbiddenMessage(attrs authorizer.Attributes) string {
	username := ""
	if u := attrs.GetUser(); u != nil {
		username = u.GetName()
	}
	if !attrs.IsResourceRequest() {
		return fmt.Sprintf("User %q cannot %s path %q", username, attrs.GetVerb(), attrs.GetPath())
	}
	resource := attrs.GetResource()
	if sub := attrs.GetSubresource(); sub != "" {
		resource += "/" + sub
	}
	if ns := attrs.GetNamespace(); ns != "" {
		return fmt.Sprintf("User %q cannot %s resource %q in API group %q in the namespace %q",
			username, attrs.GetVerb(), resource, attrs.GetAPIGroup(), ns)
	}
	return fmt.Sprintf("User %q cannot %s resource %q in API group %q at the cluster scope",
		username, attrs.GetVerb(), resource, attrs.GetAPIGroup())
}

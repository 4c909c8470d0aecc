// Package request carries what the filter chain learns about a request
// (its parsed RequestInfo, the authenticated user, warnings) through its
// context to the handlers.
package request

import (
	"context"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
)

type contextKey int

const (
	requestInfoKey contextKey = iota
	userKey
	namespaceKey
)

// WithRequestInfo returns a context carrying info.
func WithRequestInfo(ctx context.Context, info *RequestInfo) context.Context {
	return context.WithValue(ctx, requestInfoKey, info)
}

// RequestInfoFrom returns the request info of ctx.
func RequestInfoFrom(ctx context.Context) (*RequestInfo, bool) {
	info, ok := ctx.Value(requestInfoKey).(*RequestInfo)
	return info, ok
}

// WithUser returns a context carrying the authenticated user.
func WithUser(ctx context.Context, u user.Info) context.Context {
	return context.WithValue(ctx, userKey, u)
}

// UserFrom returns the authenticated user of ctx.
func UserFrom(ctx context.Context) (user.Info, bool) {
	u, ok := ctx.Value(userKey).(user.Info)
	return u, ok
}

// WithNamespace returns a context carrying the request's namespace.
func WithNamespace(ctx context.Context, ns string) context.Context {
	return context.WithValue(ctx, namespaceKey, ns)
}

// NamespaceValue returns the namespace of ctx, or "".
func NamespaceValue(ctx context.Context) string {
	ns, _ := ctx.Value(namespaceKey).(string)
	return ns
}

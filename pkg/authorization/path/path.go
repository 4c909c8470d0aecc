// Package path allows non-resource paths to everyone, like
// --authorization-always-allow-paths of Kubernetes' generic API server.
package path

import (
	"context"
	"fmt"
	"strings"

	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

// Authorizer allows requests for a fixed set of non-resource paths,
// whoever makes them, and has no opinion on anything else.
type Authorizer struct {
	exact    map[string]bool
	prefixes []string
}

// New returns an authorizer for paths. Each entry is either an exact path
// ("/healthz") or a prefix ending in "*" ("/healthz/*" allows every check
// below /healthz/, but not /healthz itself; "/*" allows every non-resource
// path). The leading "/" is optional. A "*" anywhere but at the end is an
// error, since it would suggest a glob that is not supported.
//
// Resource requests are never matched, even when their URL starts with an
// allowed prefix: /api/v1/... is authorized by what it does, not by where it
// is.
func New(paths []string) (*Authorizer, error) {
	a := &Authorizer{exact: map[string]bool{}}
	for _, p := range paths {
		p = withLeadingSlash(p)
		prefix, isPrefix := strings.CutSuffix(p, "*")
		if strings.Contains(prefix, "*") {
			return nil, fmt.Errorf("only trailing * allowed in %q", p)
		}
		if isPrefix {
			a.prefixes = append(a.prefixes, prefix)
		} else {
			a.exact[p] = true
		}
	}
	return a, nil
}

// Authorize implements authorizer.Authorizer.
func (a *Authorizer) Authorize(_ context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	if attrs.IsResourceRequest() {
		return authorizer.DecisionNoOpinion, "", nil
	}
	p := withLeadingSlash(attrs.GetPath())
	if a.exact[p] {
		return authorizer.DecisionAllow, "", nil
	}
	for _, prefix := range a.prefixes {
		if strings.HasPrefix(p, prefix) {
			return authorizer.DecisionAllow, "", nil
		}
	}
	return authorizer.DecisionNoOpinion, "", nil
}

func withLeadingSlash(p string) string {
	if strings.HasPrefix(p, "/") {
		return p
	}
	return "/" + p
}

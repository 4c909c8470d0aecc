package filters

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/lru"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
	"github.com/kapi-dev/kapi/pkg/endpoints/auditcontext"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/endpoints/responsewriters"
)

// Names impersonation knows about.
const (
	serviceAccountUsernamePrefix = "system:serviceaccount:"
	serviceAccountGroupPrefix    = "system:serviceaccounts:"
	allServiceAccountsGroup      = "system:serviceaccounts"
	nodeUsernamePrefix           = "system:node:"
	nodesGroup                   = "system:nodes"
	// nodeNameExtraKey is the extra field in which the service-account
	// authenticator records the node of the pod a token is bound to.
	nodeNameExtraKey = "authentication.kubernetes.io/node-name"
	// associatedNodeKeysExtraKey replaces a requestor's extra in the
	// checks of the associated-node mode (see associatedNodeRequestor).
	associatedNodeKeysExtraKey = "authentication.kubernetes.io/associated-node-keys"
)

// WithImpersonation lets a request act as another user, named by the
// Impersonate-User header and refined by Impersonate-Uid, Impersonate-Group
// (repeated) and Impersonate-Extra-<key> (percent-encoded key, lower-cased),
// if a allows the requestor to impersonate each of them. It behaves as
// kube-apiserver 1.37 with ConstrainedImpersonation on (the default since
// 1.36): several modes are tried, each with its own verb, and the first
// that allows the whole impersonation wins:
//
//	associated-node  a service account acting as the node its pod runs on
//	arbitrary-node   system:node:<name>, nothing else set
//	serviceaccount   system:serviceaccount:<ns>:<name>, nothing else set
//	user-info        any other user, with uid, groups and extra
//	legacy           the impersonate verb of kube-apiserver before 1.35
//
// A constrained mode first asks whether the requestor may make this very
// request through the mode (verb impersonate-on:<mode>:<verb> on the
// request's own attributes), then asks impersonate:<mode> on users, nodes or
// serviceaccounts, uids, groups and userextras/<key> in
// authentication.k8s.io. Legacy asks impersonate on users, serviceaccounts
// and groups in the core group, and on uids and userextras/<key> in
// authentication.k8s.io. When no mode allows, the client gets the first
// mode's 403. The mode that last worked for a requestor is tried first (as
// kube-apiserver remembers it), which decides whose 403 a later failure
// reports.
//
// The impersonated user gets system:authenticated, or system:unauthenticated
// when it is system:anonymous, unless the groups asked for settle it; a
// service account with no groups asked for gets its own, a node impersonated
// through a node mode gets system:nodes. Uid, groups or extra without a user
// are a 400. The impersonation headers are removed before the request goes
// on.
//
// kube-apiserver also caches successful impersonations for 10 seconds; kapi
// asks the authorizer every time, so a revoked permission takes effect at
// once.
//
// A nil logger discards the log. a must not be nil.
func WithImpersonation(handler http.Handler, a authorizer.Authorizer, logger *slog.Logger) http.Handler {
	if a == nil {
		panic("filters.WithImpersonation: nil authorizer")
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	imp := &impersonator{authorizer: a, lastMode: lru.New(lastModeCacheSize)}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		wanted, err := impersonationHeaders(r.Header)
		if err != nil {
			responsewriters.WriteErrorStatus(w, r, err)
			return
		}
		if wanted == nil {
			handler.ServeHTTP(w, r)
			return
		}
		ctx := r.Context()
		attrs, err := AuthorizerAttributes(ctx)
		if err != nil {
			responsewriters.WriteErrorStatus(w, r, apierrors.NewInternalError(err))
			return
		}
		if attrs.User == nil {
			responsewriters.WriteErrorStatus(w, r, apierrors.NewInternalError(errors.New("no User found in the context")))
			return
		}
		impersonated, err := imp.impersonate(ctx, wanted, attrs)
		if err != nil {
			logger.Debug("Forbidden impersonation", "method", r.Method, "uri", r.RequestURI, "err", err)
			responsewriters.WriteErrorStatus(w, r, err)
			return
		}
		logger.Debug("Impersonating", "user", attrs.User.GetName(), "as", impersonated.GetName(), "groups", impersonated.GetGroups())
		// The audit event names both: user is who authenticated,
		// impersonatedUser whom the request acts as.
		auditcontext.LogImpersonatedUser(ctx, impersonated)
		handler.ServeHTTP(w, r.WithContext(request.WithUser(ctx, impersonated)))
	})
}

// impersonationHeaders reads the user the request asks to act as, and
// removes the headers that ask it. It returns nil if the request does not
// impersonate.
func impersonationHeaders(h http.Header) (*user.DefaultInfo, error) {
	wanted := &user.DefaultInfo{
		Name: h.Get(authenticationv1.ImpersonateUserHeader),
		UID:  h.Get(authenticationv1.ImpersonateUIDHeader),
	}
	wanted.Groups = append(wanted.Groups, h[authenticationv1.ImpersonateGroupHeader]...)
	hasExtra := false
	for name, values := range h {
		key, ok := strings.CutPrefix(name, authenticationv1.ImpersonateUserExtraHeaderPrefix)
		if !ok {
			continue
		}
		hasExtra = true
		if len(values) == 0 {
			continue
		}
		key = strings.ToLower(key)
		if unescaped, err := url.PathUnescape(key); err == nil {
			key = unescaped // a malformed escape is kept as sent
		}
		if wanted.Extra == nil {
			wanted.Extra = map[string][]string{}
		}
		wanted.Extra[key] = append(wanted.Extra[key], values...)
	}
	if wanted.Name == "" {
		if wanted.UID != "" || len(wanted.Groups) > 0 || hasExtra {
			// kube-apiserver prints the user with %#v; so does kapi, whose
			// user.DefaultInfo has the same package name and fields.
			return nil, apierrors.NewBadRequest(fmt.Sprintf("requested %#v without impersonating a user name", wanted))
		}
		return nil, nil
	}
	h.Del(authenticationv1.ImpersonateUserHeader)
	h.Del(authenticationv1.ImpersonateUIDHeader)
	h.Del(authenticationv1.ImpersonateGroupHeader)
	for name := range h {
		if strings.HasPrefix(name, authenticationv1.ImpersonateUserExtraHeaderPrefix) {
			delete(h, name)
		}
	}
	return wanted, nil
}

// lastModeCacheSize bounds how many requestors' last modes are remembered.
const lastModeCacheSize = 10_000

type impersonator struct {
	authorizer authorizer.Authorizer
	// lastMode maps a requestor's name to the index in impersonationModes
	// of the mode that last let it impersonate.
	lastMode *lru.Cache
}

func (imp *impersonator) impersonate(ctx context.Context, wanted *user.DefaultInfo, attrs authorizer.AttributesRecord) (user.Info, error) {
	requestorName := attrs.User.GetName()
	var firstErr error
	tried := -1
	if v, ok := imp.lastMode.Get(requestorName); ok {
		tried = v.(int)
		u, err := impersonationModes[tried].check(ctx, imp.authorizer, wanted, attrs)
		if u != nil {
			return u, nil
		}
		firstErr = err
	}
	for i, m := range impersonationModes {
		if i == tried {
			continue
		}
		u, err := m.check(ctx, imp.authorizer, wanted, attrs)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if u != nil {
			imp.lastMode.Add(requestorName, i)
			return u, nil
		}
	}
	if firstErr == nil {
		// The legacy mode applies to every user: only a bug gets here.
		firstErr = apierrors.NewForbidden(impersonationGroup.WithResource("users").GroupResource(), wanted.Name, errors.New("no impersonation mode applies"))
	}
	return nil, firstErr
}

// impersonationMode is one way of impersonating. applies says whether the
// mode can impersonate wanted for requestor at all; a mode that does not
// apply is skipped without a word.
type impersonationMode struct {
	// name is the mode's name in its verbs; empty for legacy.
	name    string
	applies func(wanted *user.DefaultInfo, requestor user.Info) bool
}

// impersonationModes in the order they are tried.
var impersonationModes = []impersonationMode{
	{name: "associated-node", applies: func(wanted *user.DefaultInfo, requestor user.Info) bool {
		node, ok := nodeName(wanted.Name)
		if !ok || !onlyUsername(wanted) {
			return false
		}
		if _, _, ok := serviceAccountName(requestor.GetName()); !ok {
			return false
		}
		values := requestor.GetExtra()[nodeNameExtraKey]
		return len(values) == 1 && values[0] == node
	}},
	{name: "arbitrary-node", applies: func(wanted *user.DefaultInfo, _ user.Info) bool {
		_, ok := nodeName(wanted.Name)
		return ok && onlyUsername(wanted)
	}},
	{name: "serviceaccount", applies: func(wanted *user.DefaultInfo, _ user.Info) bool {
		_, _, ok := serviceAccountName(wanted.Name)
		return ok && onlyUsername(wanted)
	}},
	{name: "user-info", applies: func(wanted *user.DefaultInfo, _ user.Info) bool {
		if _, ok := nodeName(wanted.Name); ok {
			return false
		}
		_, _, ok := serviceAccountName(wanted.Name)
		return !ok
	}},
	{name: "", applies: func(*user.DefaultInfo, user.Info) bool { return true }},
}

// impersonationGroup is the API group of constrained impersonation's
// resources, and of uids and userextras in all modes; legacy impersonation
// asks about users, groups and serviceaccounts in the core group.
var impersonationGroup = authenticationv1.SchemeGroupVersion

// manyImpersonationChecks is how many groups or extra values make a
// constrained mode first ask for all of them at once (name "*").
const manyImpersonationChecks = 4

// check impersonates wanted for the request attrs through m: the user to
// act as, or nil and the 403 that says why not (nil, nil if m does not
// apply).
func (m impersonationMode) check(ctx context.Context, a authorizer.Authorizer, wanted *user.DefaultInfo, attrs authorizer.AttributesRecord) (user.Info, error) {
	requestor := attrs.User
	if !m.applies(wanted, requestor) {
		return nil, nil
	}
	constrained := m.name != ""
	verb, group, version := "impersonate", "", "v1"
	if constrained {
		verb, group, version = "impersonate:"+m.name, impersonationGroup.Group, impersonationGroup.Version
		if m.name == "associated-node" {
			// The node's name is left out of the checks, and the
			// requestor's extra is reduced to its keys, so that one
			// permission covers a daemon set's service account on every
			// node (kube-apiserver caches on these attributes).
			requestor = associatedNodeRequestor{requestor}
		}
		on := attrs
		on.User = requestor
		on.Verb = "impersonate-on:" + m.name + ":" + attrs.Verb
		if err := authorizeImpersonation(ctx, a, on); err != nil {
			return nil, err
		}
	}
	ask := func(g, v, resource, namespace, name string) authorizer.AttributesRecord {
		return authorizer.AttributesRecord{User: requestor, Verb: verb, APIGroup: g, APIVersion: v,
			Resource: resource, Namespace: namespace, Name: name, ResourceRequest: true}
	}
	actual := &user.DefaultInfo{Name: wanted.Name, UID: wanted.UID, Groups: wanted.Groups, Extra: wanted.Extra}

	// The user name.
	username := ask(group, version, "users", "", wanted.Name)
	if node, ok := nodeName(wanted.Name); ok && constrained {
		username.Resource, username.Name = "nodes", node
		if m.name == "associated-node" {
			username.Name = "*"
		}
		if len(wanted.Groups) > 0 {
			return nil, forbidden(username, fmt.Sprintf("when impersonating a node, cannot impersonate groups %q", wanted.Groups))
		}
		actual.Groups = []string{nodesGroup}
	}
	if ns, name, ok := serviceAccountName(wanted.Name); ok {
		username.Resource, username.Namespace, username.Name = "serviceaccounts", ns, name
		if constrained && len(wanted.Groups) > 0 {
			return nil, forbidden(username, fmt.Sprintf("when impersonating a service account, cannot impersonate groups %q", wanted.Groups))
		}
		if len(wanted.Groups) == 0 {
			actual.Groups = []string{allServiceAccountsGroup, serviceAccountGroupPrefix + ns}
		}
	}
	if err := authorizeImpersonation(ctx, a, username); err != nil {
		return nil, err
	}

	// The uid.
	if wanted.UID != "" {
		if err := authorizeImpersonation(ctx, a, ask(impersonationGroup.Group, impersonationGroup.Version, "uids", "", wanted.UID)); err != nil {
			return nil, err
		}
	}

	// The groups.
	if len(wanted.Groups) > 0 {
		groups := ask(group, version, "groups", "", "")
		if constrained {
			if slices.Contains(wanted.Groups, "") {
				return nil, forbidden(groups, "impersonating the empty string group is not allowed")
			}
			if slices.Contains(wanted.Groups, user.SystemPrivilegedGrp) {
				groups.Name = user.SystemPrivilegedGrp
				return nil, forbidden(groups, "impersonating the system:masters group is not allowed")
			}
		}
		if !constrained || len(wanted.Groups) < manyImpersonationChecks || !allowedAll(ctx, a, groups) {
			for _, g := range wanted.Groups {
				groups.Name = g
				if err := authorizeImpersonation(ctx, a, groups); err != nil {
					return nil, err
				}
			}
		}
	}

	// The extra.
	if len(wanted.Extra) > 0 {
		extra := ask(impersonationGroup.Group, impersonationGroup.Version, "userextras", "", "")
		if constrained {
			if err := validateImpersonatedExtra(wanted.Extra); err != nil {
				return nil, forbidden(extra, err.Error())
			}
		}
		if !constrained || !manyExtraValues(wanted.Extra) || !allowedAll(ctx, a, extra) {
			keys := make([]string, 0, len(wanted.Extra))
			for k := range wanted.Extra {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				extra.Subresource = k
				for _, v := range wanted.Extra[k] {
					extra.Name = v
					if err := authorizeImpersonation(ctx, a, extra); err != nil {
						return nil, err
					}
				}
			}
		}
	}

	switch {
	case actual.Name == user.Anonymous:
		actual.Groups = withGroup(actual.Groups, user.AllUnauthenticated)
	case !slices.Contains(actual.Groups, user.AllUnauthenticated):
		actual.Groups = withGroup(actual.Groups, user.AllAuthenticated)
	}
	return actual, nil
}

// allowedAll reports whether a allows attrs for every name (and, for
// userextras, every key): the one check a constrained mode makes before
// asking about many groups or extra values one by one.
func allowedAll(ctx context.Context, a authorizer.Authorizer, attrs authorizer.AttributesRecord) bool {
	attrs.Name = "*"
	if attrs.Resource == "userextras" {
		attrs.Subresource = "*"
	}
	return authorizeImpersonation(ctx, a, attrs) == nil
}

func manyExtraValues(extra map[string][]string) bool {
	if len(extra) >= manyImpersonationChecks {
		return true
	}
	count := 0
	for _, values := range extra {
		count += len(values)
	}
	return count >= manyImpersonationChecks
}

// authorizeImpersonation is nil if a allows attrs, else the 403 to answer:
// an authorizer's error is reported in the message, not as a 500, as
// kube-apiserver does for impersonation.
func authorizeImpersonation(ctx context.Context, a authorizer.Authorizer, attrs authorizer.AttributesRecord) error {
	decision, reason, err := a.Authorize(ctx, attrs)
	if decision == authorizer.DecisionAllow {
		return nil
	}
	if apierrors.IsForbidden(err) {
		return err
	}
	msg := reason
	switch {
	case err != nil && reason != "":
		msg = fmt.Sprintf("%v: %s", err, reason)
	case err != nil:
		msg = err.Error()
	}
	return forbidden(attrs, msg)
}

// validateImpersonatedExtra is what constrained modes require of extra
// keys and values, in kube-apiserver's words.
func validateImpersonatedExtra(extra map[string][]string) error {
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		values := extra[key]
		if key == "" {
			return errors.New("impersonating the empty string key in extra is not allowed")
		}
		if err := utilvalidation.IsDomainPrefixedPath(field.NewPath("extra", "key"), key).ToAggregate(); err != nil {
			return fmt.Errorf("impersonating an invalid key in extra is not allowed: %w", err)
		}
		if key != strings.ToLower(key) {
			return fmt.Errorf("impersonating a non-lowercase key in extra is not allowed: %q", key)
		}
		if len(values) == 0 {
			return errors.New("impersonating empty values in extra is not allowed")
		}
		if slices.Contains(values, "") {
			return errors.New("impersonating the empty string value in extra is not allowed")
		}
	}
	return nil
}

// withGroup returns groups with g at the end, if it is not there yet,
// without changing the caller's slice.
func withGroup(groups []string, g string) []string {
	if slices.Contains(groups, g) {
		return groups
	}
	return append(slices.Clip(groups), g)
}

func onlyUsername(u *user.DefaultInfo) bool {
	return u.UID == "" && len(u.Groups) == 0 && len(u.Extra) == 0
}

// nodeName is the node a system:node:<name> user stands for, if name is
// a valid node name.
func nodeName(username string) (string, bool) {
	name, ok := strings.CutPrefix(username, nodeUsernamePrefix)
	if !ok || len(apivalidation.NameIsDNSSubdomain(name, false)) > 0 {
		return "", false
	}
	return name, true
}

// serviceAccountName splits system:serviceaccount:<ns>:<name>, if both are
// valid names.
func serviceAccountName(username string) (namespace, name string, ok bool) {
	rest, ok := strings.CutPrefix(username, serviceAccountUsernamePrefix)
	if !ok {
		return "", "", false
	}
	parts := strings.Split(rest, ":")
	if len(parts) != 2 ||
		len(apivalidation.ValidateNamespaceName(parts[0], false)) > 0 ||
		len(apivalidation.ValidateServiceAccountName(parts[1], false)) > 0 {
		return "", "", false
	}
	return parts[0], parts[1], true
}

// associatedNodeRequestor is the requestor as the associated-node mode
// shows it to the authorizer: its extra reduced to the sorted list of its
// keys.
type associatedNodeRequestor struct{ user.Info }

func (r associatedNodeRequestor) GetExtra() map[string][]string {
	keys := make([]string, 0, len(r.Info.GetExtra()))
	for k := range r.Info.GetExtra() {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return map[string][]string{associatedNodeKeysExtraKey: keys}
}

package flowcontrol

import (
	"strings"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
)

// The matching of a request against a FlowSchema, as kube-apiserver's
// (KEP-1040): a schema matches when one of its rules does; a rule matches
// when one of its subjects names the user and, for a resource request, one
// of its resource rules matches it, or, for a non-resource request, one of
// its non-resource rules. Nothing here allocates: it runs for every
// request, against every schema of higher precedence than the one chosen.

// Digest is what classification looks at: the parsed request and the
// authenticated (or impersonated) user.
type Digest struct {
	Info *request.RequestInfo
	User user.Info
}

// matchesFlowSchema says whether fs matches d.
func matchesFlowSchema(d Digest, fs *flowcontrolv1.FlowSchema) bool {
	for i := range fs.Spec.Rules {
		if matchesRule(d, &fs.Spec.Rules[i]) {
			return true
		}
	}
	return false
}

func matchesRule(d Digest, rule *flowcontrolv1.PolicyRulesWithSubjects) bool {
	if !matchesASubject(d.User, rule.Subjects) {
		return false
	}
	if d.Info.IsResourceRequest {
		for i := range rule.ResourceRules {
			if matchesResourceRule(d.Info, &rule.ResourceRules[i]) {
				return true
			}
		}
		return false
	}
	for i := range rule.NonResourceRules {
		if matchesNonResourceRule(d.Info, &rule.NonResourceRules[i]) {
			return true
		}
	}
	return false
}

func matchesASubject(u user.Info, subjects []flowcontrolv1.Subject) bool {
	for i := range subjects {
		if matchesSubject(u, &subjects[i]) {
			return true
		}
	}
	return false
}

func matchesSubject(u user.Info, s *flowcontrolv1.Subject) bool {
	switch s.Kind {
	case flowcontrolv1.SubjectKindUser:
		return s.User != nil && (s.User.Name == flowcontrolv1.NameAll || s.User.Name == u.GetName())
	case flowcontrolv1.SubjectKindGroup:
		if s.Group == nil {
			return false
		}
		if s.Group.Name == flowcontrolv1.NameAll {
			return true
		}
		for _, g := range u.GetGroups() {
			if g == s.Group.Name {
				return true
			}
		}
		return false
	case flowcontrolv1.SubjectKindServiceAccount:
		if s.ServiceAccount == nil {
			return false
		}
		return matchesServiceAccount(u.GetName(), s.ServiceAccount.Namespace, s.ServiceAccount.Name)
	}
	return false
}

// serviceAccountPrefix starts the user name of every service account:
// system:serviceaccount:<namespace>:<name>.
const serviceAccountPrefix = "system:serviceaccount:"

// matchesServiceAccount says whether userName is the service account
// namespace/name, or, for the name "*", any service account of namespace.
func matchesServiceAccount(userName, namespace, name string) bool {
	rest, ok := strings.CutPrefix(userName, serviceAccountPrefix)
	if !ok {
		return false
	}
	rest, ok = strings.CutPrefix(rest, namespace)
	if !ok {
		return false
	}
	rest, ok = strings.CutPrefix(rest, ":")
	if !ok {
		return false
	}
	return name == flowcontrolv1.NameAll || rest == name
}

func matchesResourceRule(info *request.RequestInfo, rule *flowcontrolv1.ResourcePolicyRule) bool {
	if !containsOrAll(rule.Verbs, info.Verb, flowcontrolv1.VerbAll) ||
		!matchesResource(rule.Resources, info.Resource, info.Subresource) ||
		!containsOrAll(rule.APIGroups, info.APIGroup, flowcontrolv1.APIGroupAll) {
		return false
	}
	if info.Namespace == "" {
		return rule.ClusterScope
	}
	return containsOrAll(rule.Namespaces, info.Namespace, flowcontrolv1.NamespaceEvery)
}

// matchesResource says whether resources holds "*" alone, or the
// resource, or resource/subresource for a subresource.
func matchesResource(resources []string, resource, subresource string) bool {
	if len(resources) == 1 && resources[0] == flowcontrolv1.ResourceAll {
		return true
	}
	for _, r := range resources {
		if subresource == "" {
			if r == resource {
				return true
			}
			continue
		}
		if len(r) == len(resource)+1+len(subresource) && strings.HasPrefix(r, resource) &&
			r[len(resource)] == '/' && strings.HasSuffix(r, subresource) {
			return true
		}
	}
	return false
}

func matchesNonResourceRule(info *request.RequestInfo, rule *flowcontrolv1.NonResourcePolicyRule) bool {
	if !containsOrAll(rule.Verbs, info.Verb, flowcontrolv1.VerbAll) {
		return false
	}
	for _, url := range rule.NonResourceURLs {
		if matchesNonResourceURL(url, info.Path) {
			return true
		}
	}
	return false
}

// matchesNonResourceURL is kube-apiserver's rule: "*" matches every path,
// a path matches itself, and "/a/*" or "/a" match every path below /a/.
func matchesNonResourceURL(rule, path string) bool {
	if rule == flowcontrolv1.NonResourceAll || rule == path {
		return true
	}
	prefix := strings.TrimSuffix(rule, "*")
	if strings.HasSuffix(prefix, "/") {
		return strings.HasPrefix(path, prefix)
	}
	return len(path) > len(prefix) && strings.HasPrefix(path, prefix) && path[len(prefix)] == '/'
}

// containsOrAll says whether list is the one wildcard, or holds x.
func containsOrAll(list []string, x, wildcard string) bool {
	if len(list) == 1 && list[0] == wildcard {
		return true
	}
	for _, y := range list {
		if x == y {
			return true
		}
	}
	return false
}

// flowDistinguisher is the part of the flow's identity that the
// schema's distinguisher method takes from the request: the user's name,
// the namespace, or nothing.
func flowDistinguisher(d Digest, method *flowcontrolv1.FlowDistinguisherMethod) string {
	if method == nil {
		return ""
	}
	switch method.Type {
	case flowcontrolv1.FlowDistinguisherMethodByUserType:
		return d.User.GetName()
	case flowcontrolv1.FlowDistinguisherMethodByNamespaceType:
		return d.Info.Namespace
	}
	return ""
}

// flowHash identifies the flow (schema, distinguisher) among the queues of
// a level: requests of one flow are shuffle-sharded to the same hand of
// queues. It is 64-bit FNV-1a over the two strings and a separator, which
// spreads flows as well as kube-apiserver's SHA-256 does for this purpose
// and costs no allocation.
func flowHash(schema, distinguisher string) uint64 {
	const (
		offset = 14695981039346656037
		prime  = 1099511628211
	)
	h := uint64(offset)
	for i := 0; i < len(schema); i++ {
		h ^= uint64(schema[i])
		h *= prime
	}
	h ^= 0
	h *= prime
	for i := 0; i < len(distinguisher); i++ {
		h ^= uint64(distinguisher[i])
		h *= prime
	}
	return h
}

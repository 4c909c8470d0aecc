package rbac

import (
	"fmt"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
)

// Request is what a rule is matched against: a resource request (group,
// resource, subresource, name) or a non-resource one (path), and a verb.
type Request struct {
	Verb            string
	ResourceRequest bool
	APIGroup        string
	Resource        string
	Subresource     string
	Name            string
	Path            string
}

// Allows reports whether rule grants req, with kube-apiserver's wildcards:
// "*" in verbs, apiGroups and resources; "*/sub" for one subresource of
// every resource; a trailing "*" in a non-resource URL for a prefix. Note
// what is not a wildcard: "pods/*" is a literal resource name, and an empty
// resourceNames list means every name.
func Allows(rule *rbacv1.PolicyRule, req Request) bool {
	if !matchesOrStar(rule.Verbs, req.Verb, rbacv1.VerbAll) {
		return false
	}
	if !req.ResourceRequest {
		return nonResourceURLMatches(rule.NonResourceURLs, req.Path)
	}
	return matchesOrStar(rule.APIGroups, req.APIGroup, rbacv1.APIGroupAll) &&
		resourceMatches(rule.Resources, req.Resource, req.Subresource) &&
		(len(rule.ResourceNames) == 0 || slices.Contains(rule.ResourceNames, req.Name))
}

func matchesOrStar(set []string, s, star string) bool {
	for _, x := range set {
		if x == s || x == star {
			return true
		}
	}
	return false
}

func resourceMatches(ruleResources []string, resource, subresource string) bool {
	combined := resource
	if subresource != "" {
		combined = resource + "/" + subresource
	}
	for _, r := range ruleResources {
		if r == rbacv1.ResourceAll || r == combined {
			return true
		}
		if subresource != "" && strings.HasPrefix(r, "*/") && r[2:] == subresource {
			return true
		}
	}
	return false
}

func nonResourceURLMatches(ruleURLs []string, path string) bool {
	for _, u := range ruleURLs {
		if urlCovers(u, path) {
			return true
		}
	}
	return false
}

// urlCovers reports whether the rule URL u grants path: equal, "*", or a
// prefix ending in "*".
func urlCovers(u, path string) bool {
	if u == rbacv1.NonResourceAll || u == path {
		return true
	}
	prefix, star := strings.CutSuffix(u, "*")
	return star && strings.HasPrefix(path, strings.TrimRight(prefix, "*"))
}

// Covers reports whether owner grants everything requested does, and if
// not, which single permissions (one verb on one group, resource and
// name, or on one URL) it lacks. This is the escalation check: a user may
// hand out only permissions they hold. Coverage is decided on the broken
// down permissions, so a requested rule may be covered by several owner
// rules together.
func Covers(owner, requested []rbacv1.PolicyRule) (bool, []rbacv1.PolicyRule) {
	var missing []rbacv1.PolicyRule
	for _, rule := range requested {
		for _, single := range breakdown(rule) {
			if !slices.ContainsFunc(owner, func(o rbacv1.PolicyRule) bool { return ruleCovers(&o, &single) }) {
				missing = append(missing, single)
			}
		}
	}
	return len(missing) == 0, missing
}

// breakdown splits a rule into rules of one verb each on one group,
// resource and resource name (or one URL).
func breakdown(rule rbacv1.PolicyRule) []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	names := rule.ResourceNames
	for _, g := range rule.APIGroups {
		for _, r := range rule.Resources {
			for _, v := range rule.Verbs {
				if len(names) == 0 {
					out = append(out, rbacv1.PolicyRule{APIGroups: []string{g}, Resources: []string{r}, Verbs: []string{v}})
					continue
				}
				for _, n := range names {
					out = append(out, rbacv1.PolicyRule{APIGroups: []string{g}, Resources: []string{r}, ResourceNames: []string{n}, Verbs: []string{v}})
				}
			}
		}
	}
	for _, u := range rule.NonResourceURLs {
		for _, v := range rule.Verbs {
			out = append(out, rbacv1.PolicyRule{NonResourceURLs: []string{u}, Verbs: []string{v}})
		}
	}
	return out
}

// ruleCovers reports whether owner grants single, a broken-down rule.
// Unlike Allows, this compares rules with rules: an owner restricted to
// some resource names does not cover a rule for all names, and a
// "*/status" owner covers "pods/status" but "*" covers everything.
func ruleCovers(owner, single *rbacv1.PolicyRule) bool {
	if !hasAllOrStar(owner.Verbs, single.Verbs, rbacv1.VerbAll) ||
		!hasAllOrStar(owner.APIGroups, single.APIGroups, rbacv1.APIGroupAll) {
		return false
	}
	if !slices.Contains(owner.Resources, rbacv1.ResourceAll) {
		for _, r := range single.Resources {
			if slices.Contains(owner.Resources, r) {
				continue
			}
			_, sub, ok := strings.Cut(r, "/")
			if !ok || !slices.Contains(owner.Resources, "*/"+sub) {
				return false
			}
		}
	}
	for _, u := range single.NonResourceURLs {
		if !nonResourceURLMatches(owner.NonResourceURLs, u) {
			return false
		}
	}
	if len(owner.ResourceNames) == 0 {
		return true
	}
	return len(single.ResourceNames) > 0 && hasAll(owner.ResourceNames, single.ResourceNames)
}

func hasAllOrStar(set, want []string, star string) bool {
	return slices.Contains(set, star) || hasAll(set, want)
}

func hasAll(set, want []string) bool {
	for _, w := range want {
		if !slices.Contains(set, w) {
			return false
		}
	}
	return true
}

// Compact merges the verbs of rules that are about the same single group,
// resource and (at most one) resource name, as kube-apiserver does before
// it lists missing permissions. Other rules are kept as they are; the
// result's order is not meaningful (callers sort what they print).
func Compact(rules []rbacv1.PolicyRule) []rbacv1.PolicyRule {
	type key struct {
		group, resource, name string
		named                 bool
	}
	merged := map[key]*rbacv1.PolicyRule{}
	var order []key
	var out []rbacv1.PolicyRule
	for _, r := range rules {
		simple := len(r.ResourceNames) <= 1 && len(r.NonResourceURLs) == 0 && len(r.APIGroups) == 1 && len(r.Resources) == 1
		if !simple {
			out = append(out, r)
			continue
		}
		k := key{group: r.APIGroups[0], resource: r.Resources[0]}
		if len(r.ResourceNames) == 1 {
			k.name, k.named = r.ResourceNames[0], true
		}
		if m, ok := merged[k]; ok {
			m.Verbs = append(m.Verbs, r.Verbs...)
			continue
		}
		c := r.DeepCopy()
		merged[k] = c
		order = append(order, k)
	}
	for _, k := range order {
		out = append(out, *merged[k])
	}
	return out
}

// CompactString prints a rule as kube-apiserver does in its escalation
// errors: only the fields that are set, in a fixed order, values quoted.
func CompactString(r rbacv1.PolicyRule) string {
	var parts []string
	add := func(name string, values []string) {
		if len(values) > 0 {
			parts = append(parts, fmt.Sprintf("%s:%q", name, values))
		}
	}
	add("APIGroups", r.APIGroups)
	add("Resources", r.Resources)
	add("NonResourceURLs", r.NonResourceURLs)
	add("ResourceNames", r.ResourceNames)
	add("Verbs", r.Verbs)
	return "{" + strings.Join(parts, ", ") + "}"
}

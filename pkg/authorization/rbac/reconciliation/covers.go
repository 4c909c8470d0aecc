package reconciliation

import (
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
)

// uncovered returns the parts of wanted that have grants do not allow,
// each as a rule of one verb on one group and resource (and one name,
// when the rule names some) or on one non-resource URL. The reconciler
// appends exactly these to a role that lacks them, as kube-apiserver
// does, so a role an administrator narrowed regains only what is
// missing, piece by piece.
func uncovered(have, wanted []rbacv1.PolicyRule) []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	for _, w := range wanted {
		for _, atom := range atoms(w) {
			if !coveredByAny(have, atom) {
				out = append(out, atom)
			}
		}
	}
	return out
}

// atoms splits a rule into rules of one verb each on one (group,
// resource[, name]) or one non-resource URL.
func atoms(r rbacv1.PolicyRule) []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	for _, g := range r.APIGroups {
		for _, res := range r.Resources {
			for _, v := range r.Verbs {
				if len(r.ResourceNames) == 0 {
					out = append(out, rbacv1.PolicyRule{Verbs: []string{v}, APIGroups: []string{g}, Resources: []string{res}})
					continue
				}
				for _, n := range r.ResourceNames {
					out = append(out, rbacv1.PolicyRule{Verbs: []string{v}, APIGroups: []string{g}, Resources: []string{res}, ResourceNames: []string{n}})
				}
			}
		}
	}
	for _, u := range r.NonResourceURLs {
		for _, v := range r.Verbs {
			out = append(out, rbacv1.PolicyRule{Verbs: []string{v}, NonResourceURLs: []string{u}})
		}
	}
	return out
}

func coveredByAny(have []rbacv1.PolicyRule, atom rbacv1.PolicyRule) bool {
	for _, h := range have {
		if covers(h, atom) {
			return true
		}
	}
	return false
}

// covers says whether rule h allows everything the atom a allows.
func covers(h, a rbacv1.PolicyRule) bool {
	if !(contains(h.Verbs, rbacv1.VerbAll) || containsAll(h.Verbs, a.Verbs)) {
		return false
	}
	if !(contains(h.APIGroups, rbacv1.APIGroupAll) || containsAll(h.APIGroups, a.APIGroups)) {
		return false
	}
	if !resourcesCover(h.Resources, a.Resources) {
		return false
	}
	// A rule without names allows every name; a rule with names allows
	// only those, so it never covers a rule without names.
	if len(h.ResourceNames) > 0 && (len(a.ResourceNames) == 0 || !containsAll(h.ResourceNames, a.ResourceNames)) {
		return false
	}
	for _, u := range a.NonResourceURLs {
		if !urlCovered(h.NonResourceURLs, u) {
			return false
		}
	}
	return true
}

// resourcesCover allows "*" for every resource and "*/sub" for the
// subresource sub of every resource.
func resourcesCover(have, want []string) bool {
	if contains(have, rbacv1.ResourceAll) {
		return true
	}
	for _, r := range want {
		if contains(have, r) {
			continue
		}
		_, sub, ok := strings.Cut(r, "/")
		if !ok || !contains(have, "*/"+sub) {
			return false
		}
	}
	return true
}

// urlCovered allows a URL by equality or by a prefix ending in "*".
func urlCovered(have []string, url string) bool {
	for _, h := range have {
		if h == url || (strings.HasSuffix(h, "*") && strings.HasPrefix(url, strings.TrimRight(h, "*"))) {
			return true
		}
	}
	return false
}

func contains(set []string, s string) bool {
	for _, x := range set {
		if x == s {
			return true
		}
	}
	return false
}

func containsAll(set, subset []string) bool {
	for _, s := range subset {
		if !contains(set, s) {
			return false
		}
	}
	return true
}

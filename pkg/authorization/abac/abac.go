// Package abac is the ABAC authorization mode: a file of policies
// (--authorization-policy-file), each allowing a subject some requests,
// read once at start-up as kube-apiserver reads it.
//
// The file holds one JSON object per line, so that files concatenate,
// carry comments (lines starting with #) and errors name a line. A line
// is either a versioned Policy,
//
//	{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"user":"alice","namespace":"*","resource":"*","apiGroup":"*"}}
//
// or, as in the first releases of Kubernetes, the bare fields of the
// legacy unversioned (v0) form, {"user":"alice","readonly":true}, whose
// blank fields mean "everything" and which kube-apiserver still accepts.
// Both become a Policy here.
//
// A policy allows a request when its subject, verb and target match; no
// policy ever denies, so the mode answers "no opinion" when none matches
// and the next mode of the chain is asked.
package abac

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

// GroupVersion is the apiVersion of a versioned policy line.
const GroupVersion = "abac.authorization.kubernetes.io/v1beta1"

// Policy is one line of the policy file, in its v1beta1 shape.
type Policy struct {
	APIVersion string     `json:"apiVersion,omitempty"`
	Kind       string     `json:"kind,omitempty"`
	Spec       PolicySpec `json:"spec"`
}

// PolicySpec says whom a policy lets do what. "*" matches anything in
// every field; a blank User and Group match nobody.
type PolicySpec struct {
	// User is a user name, or "*".
	User string `json:"user,omitempty"`
	// Group is a group name, or "*".
	Group string `json:"group,omitempty"`
	// Readonly limits the policy to get, list and watch.
	Readonly bool `json:"readonly,omitempty"`
	// APIGroup, Resource and Namespace select resource requests; all three
	// must match.
	APIGroup  string `json:"apiGroup,omitempty"`
	Resource  string `json:"resource,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	// NonResourcePath selects non-resource requests: a path, "*", or a
	// prefix followed by "*".
	NonResourcePath string `json:"nonResourcePath,omitempty"`
}

// legacyPolicy is the unversioned (v0) line.
type legacyPolicy struct {
	User      string `json:"user,omitempty"`
	Group     string `json:"group,omitempty"`
	Readonly  bool   `json:"readonly,omitempty"`
	Resource  string `json:"resource,omitempty"`
	Namespace string `json:"namespace,omitempty"`
}

// spec is what the legacy form meant, in today's fields: blank fields
// widen rather than match nothing.
func (l legacyPolicy) spec() PolicySpec {
	s := PolicySpec{User: l.User, Group: l.Group, Readonly: l.Readonly, Resource: l.Resource, Namespace: l.Namespace, APIGroup: "*"}
	// A blank subject, and "*" in either field, meant every
	// authenticated user.
	if (l.User == "" && l.Group == "") || l.User == "*" || l.Group == "*" {
		s.User, s.Group = "", user.AllAuthenticated
	}
	if l.Namespace == "" {
		s.Namespace = "*"
	}
	if l.Resource == "" {
		s.Resource = "*"
	}
	// A rule about no particular resource also covered non-resource paths.
	if l.Namespace == "" && l.Resource == "" {
		s.NonResourcePath = "*"
	}
	return s
}

// Authorizer allows what one of its policies allows.
type Authorizer struct {
	policies []PolicySpec
}

var (
	_ authorizer.Authorizer   = (*Authorizer)(nil)
	_ authorizer.RuleResolver = (*Authorizer)(nil)
)

// NewFromFile reads the policy file at path. The error names the file
// and the offending line, in kube-apiserver's words.
func NewFromFile(path string) (*Authorizer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parse(path, data)
}

// New returns an authorizer of the given policies, in order.
func New(policies ...PolicySpec) *Authorizer {
	return &Authorizer{policies: policies}
}

func parse(path string, data []byte) (*Authorizer, error) {
	a := &Authorizer{}
	scanner := bufio.NewScanner(bytes.NewReader(data))
	scanner.Buffer(nil, 1<<20)
	for line := 1; scanner.Scan(); line++ {
		b := scanner.Bytes()
		trimmed := strings.TrimSpace(string(b))
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		spec, err := parseLine(b)
		if err != nil {
			return nil, fmt.Errorf("error reading policy file %s, line %d: %s: %v", path, line, b, err)
		}
		a.policies = append(a.policies, spec)
	}
	if err := scanner.Err(); err != nil {
		return nil, fmt.Errorf("error reading policy file %s: %v", path, err)
	}
	return a, nil
}

// parseLine decodes one policy. A line with the v1beta1 apiVersion and
// kind Policy is versioned; anything else that is a JSON object is taken
// for the legacy form, as kube-apiserver does with lines whose version
// or kind it does not know.
func parseLine(b []byte) (PolicySpec, error) {
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return PolicySpec{}, err
	}
	if head.APIVersion == GroupVersion && head.Kind == "Policy" {
		var p Policy
		if err := json.Unmarshal(b, &p); err != nil {
			return PolicySpec{}, err
		}
		s := p.Spec
		// "*" as user or group means every authenticated user, not also
		// the anonymous one.
		if s.User == "*" || s.Group == "*" {
			s.User, s.Group = "", user.AllAuthenticated
		}
		return s, nil
	}
	var l legacyPolicy
	if err := json.Unmarshal(b, &l); err != nil {
		return PolicySpec{}, err
	}
	return l.spec(), nil
}

// Authorize allows a request one policy matches. It never denies.
func (a *Authorizer) Authorize(_ context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	for _, p := range a.policies {
		if subjectMatches(p, attrs.GetUser()) && verbMatches(p, attrs) && targetMatches(p, attrs) {
			return authorizer.DecisionAllow, "", nil
		}
	}
	return authorizer.DecisionNoOpinion, "No policy matched.", nil
}

// subjectMatches says whether u is the policy's user or in its group.
// Both must match when both are given; a policy naming neither matches
// nobody.
func subjectMatches(p PolicySpec, u user.Info) bool {
	if u == nil || (p.User == "" && p.Group == "") {
		return false
	}
	if p.User != "" && p.User != "*" && p.User != u.GetName() {
		return false
	}
	if p.Group != "" && p.Group != "*" {
		found := false
		for _, g := range u.GetGroups() {
			if g == p.Group {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// verbMatches: every policy allows reads; only a policy that is not
// read-only allows the rest.
func verbMatches(p PolicySpec, attrs authorizer.Attributes) bool {
	return attrs.IsReadOnly() || !p.Readonly
}

func targetMatches(p PolicySpec, attrs authorizer.Attributes) bool {
	if attrs.IsResourceRequest() {
		return wild(p.Namespace, attrs.GetNamespace()) && wild(p.Resource, attrs.GetResource()) && wild(p.APIGroup, attrs.GetAPIGroup())
	}
	path := attrs.GetPath()
	switch {
	case p.NonResourcePath == "*", p.NonResourcePath == path:
		return true
	case strings.HasSuffix(p.NonResourcePath, "*"):
		return strings.HasPrefix(path, strings.TrimRight(p.NonResourcePath, "*"))
	}
	return false
}

// wild matches value against a policy field that is a value or "*". A
// blank field matches only a blank value (a cluster-scoped request
// against Namespace "").
func wild(field, value string) bool { return field == "*" || field == value }

// RulesFor lists the policies that apply to u in namespace as rules: one
// resource rule per policy with a resource, one non-resource rule per
// policy with a path. The list is complete, since policies are all there
// is.
func (a *Authorizer) RulesFor(_ context.Context, u user.Info, namespace string) ([]authorizationv1.ResourceRule, []authorizationv1.NonResourceRule, bool, error) {
	var rr []authorizationv1.ResourceRule
	var nr []authorizationv1.NonResourceRule
	for _, p := range a.policies {
		if !subjectMatches(p, u) || !(p.Namespace == "*" || p.Namespace == namespace) {
			continue
		}
		verbs := []string{"*"}
		if p.Readonly {
			verbs = []string{"get", "list", "watch"}
		}
		if p.Resource != "" {
			rr = append(rr, authorizationv1.ResourceRule{Verbs: verbs, APIGroups: []string{p.APIGroup}, Resources: []string{p.Resource}})
		}
		if p.NonResourcePath != "" {
			nr = append(nr, authorizationv1.NonResourceRule{Verbs: verbs, NonResourceURLs: []string{p.NonResourcePath}})
		}
	}
	return rr, nr, false, nil
}

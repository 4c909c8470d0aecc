package audit

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

// A policy with a rule for each way of matching, in an order where an
// earlier, broader rule would hide a later one if order did not count.
const matchingPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["Panic"]
omitManagedFields: true
rules:
- level: None
  users: ["system:kube-proxy"]
  verbs: ["watch"]
- level: RequestResponse
  userGroups: ["auditors"]
  omitManagedFields: false
- level: Metadata
  resources:
  - group: ""
    resources: ["pods/log", "pods/status"]
- level: Request
  resources:
  - group: ""
    resources: ["*/exec"]
- level: Metadata
  resources:
  - group: "apps"
    resources: ["deployments/*"]
- level: Request
  resources:
  - group: ""
    resources: ["configmaps"]
    resourceNames: ["controller-leader"]
  omitStages: ["RequestReceived"]
- level: None
  namespaces: ["kube-system"]
- level: Request
  resources:
  - group: "*"
    resources: ["widgets"]
- level: RequestResponse
  resources:
  - group: "rbac.authorization.k8s.io"
- level: None
  nonResourceURLs: ["/healthz*", "/version"]
- level: Metadata
  nonResourceURLs: ["*"]
  omitManagedFields: false
- level: Request
  namespaces: [""]
- level: Metadata
`

func res(verb, group, resource, sub, ns, name string) authorizer.AttributesRecord {
	return authorizer.AttributesRecord{User: &user.DefaultInfo{Name: "bob", Groups: []string{"devs"}}, Verb: verb,
		APIGroup: group, Resource: resource, Subresource: sub, Namespace: ns, Name: name, ResourceRequest: true}
}

func nonRes(verb, path string) authorizer.AttributesRecord {
	return authorizer.AttributesRecord{User: &user.DefaultInfo{Name: "bob"}, Verb: verb, Path: path}
}

func as(a authorizer.AttributesRecord, name string, groups ...string) authorizer.AttributesRecord {
	a.User = &user.DefaultInfo{Name: name, Groups: groups}
	return a
}

func TestPolicyFirstMatchingRuleDecides(t *testing.T) {
	p, err := LoadPolicy([]byte(matchingPolicy), nil)
	if err != nil {
		t.Fatal(err)
	}
	e := NewEvaluator(p)
	for _, tc := range []struct {
		name       string
		attrs      authorizer.AttributesRecord
		level      Level
		omitStages []Stage
		omitMF     bool
	}{
		{"user and verb both match", as(res("watch", "", "endpoints", "", "default", ""), "system:kube-proxy"), LevelNone, []Stage{StagePanic}, true},
		{"user matches but not verb: next rules", as(res("get", "", "endpoints", "", "default", ""), "system:kube-proxy"), LevelMetadata, []Stage{StagePanic}, true},
		{"a group of the user", as(res("get", "", "secrets", "", "default", "s"), "carol", "devs", "auditors"), LevelRequestResponse, []Stage{StagePanic}, false},
		{"subresource named", res("get", "", "pods", "log", "default", "p"), LevelMetadata, []Stage{StagePanic}, true},
		{"resource without its subresource does not match pods/log", res("get", "", "pods", "", "default", "p"), LevelMetadata, []Stage{StagePanic}, true},
		{"*/exec matches any resource's exec", res("create", "", "pods", "exec", "default", "p"), LevelRequest, []Stage{StagePanic}, true},
		{"*/exec does not match exec of another group", res("create", "apps", "pods", "exec", "default", "p"), LevelMetadata, []Stage{StagePanic}, true},
		{"deployments/* matches a subresource", res("update", "apps", "deployments", "scale", "default", "d"), LevelMetadata, []Stage{StagePanic}, true},
		{"deployments/* matches the resource itself", res("update", "apps", "deployments", "", "default", "d"), LevelMetadata, []Stage{StagePanic}, true},
		{"resourceNames match the name", res("update", "", "configmaps", "", "kube-system", "controller-leader"), LevelRequest, []Stage{StagePanic, StageRequestReceived}, true},
		{"resourceNames: another name goes on", res("update", "", "configmaps", "", "kube-system", "other"), LevelNone, []Stage{StagePanic}, true},
		{"resourceNames: a create has no name", res("create", "", "configmaps", "", "kube-system", ""), LevelNone, []Stage{StagePanic}, true},
		{"group *", res("list", "example.com", "widgets", "", "default", ""), LevelRequest, []Stage{StagePanic}, true},
		{"a group with no resources matches all of them", res("delete", "rbac.authorization.k8s.io", "roles", "", "default", "r"), LevelRequestResponse, []Stage{StagePanic}, true},
		{"namespaces: cluster scope is the empty namespace", res("get", "", "nodes", "", "", "n"), LevelRequest, []Stage{StagePanic}, true},
		{"non-resource prefix", nonRes("get", "/healthz/etcd"), LevelNone, []Stage{StagePanic}, true},
		{"non-resource exact", nonRes("get", "/version"), LevelNone, []Stage{StagePanic}, true},
		{"exact path does not match longer path", nonRes("get", "/version/x"), LevelMetadata, []Stage{StagePanic}, false},
		{"non-resource * matches every path", nonRes("get", "/metrics"), LevelMetadata, []Stage{StagePanic}, false},
		{"resource rules never match non-resource requests", nonRes("get", "/api"), LevelMetadata, []Stage{StagePanic}, false},
		{"catch-all", res("get", "", "services", "", "default", "s"), LevelMetadata, []Stage{StagePanic}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := e.Evaluate(tc.attrs)
			if got.Level != tc.level || !sameStages(got.OmitStages, tc.omitStages) || got.OmitManagedFields != tc.omitMF {
				t.Errorf("Evaluate = %+v, want level %s, omitStages %v, omitManagedFields %v", got, tc.level, tc.omitStages, tc.omitMF)
			}
		})
	}
}

func TestPolicyNoRuleMatchesIsNone(t *testing.T) {
	p, err := LoadPolicy([]byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: Metadata\n  users: [x]\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := NewEvaluator(p).Evaluate(res("get", "", "pods", "", "default", "p"))
	if got.Level != LevelNone || !sameStages(got.OmitStages, []Stage{StageRequestReceived}) {
		t.Errorf("Evaluate = %+v, want None with the policy's omitStages", got)
	}
}

func sameStages(a, b []Stage) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// TestInvalidPoliciesAsKubeAPIServer loads the invalid policies of
// testdata/invalid and expects kube-apiserver 1.37.1's recorded answers
// (kube-apiserver-answers.json): its validation errors, in its order and
// words, or the warning of lenient decoding.
func TestInvalidPoliciesAsKubeAPIServer(t *testing.T) {
	data, err := os.ReadFile("testdata/invalid/kube-apiserver-answers.json")
	if err != nil {
		t.Fatal(err)
	}
	var answers map[string]struct{ Error, Warning string }
	if err := json.Unmarshal(data, &answers); err != nil {
		t.Fatal(err)
	}
	if len(answers) == 0 {
		t.Fatal("no recorded answers")
	}
	for file, want := range answers {
		t.Run(file, func(t *testing.T) {
			var log bytes.Buffer
			logger := slog.New(slog.NewTextHandler(&log, nil))
			path := filepath.Join("testdata", "invalid", file)
			_, err := LoadPolicyFile(path, logger)
			if want.Error != "" {
				// kube-apiserver's command wraps the loader's error so.
				got := ""
				if err != nil {
					got = "loading audit policy file: " + strings.ReplaceAll(err.Error(), path, file)
				}
				if got != want.Error {
					t.Errorf("error:\n got %s\nwant %s", got, want.Error)
				}
				return
			}
			if err != nil {
				t.Fatalf("LoadPolicyFile: %v", err)
			}
			if !strings.Contains(log.String(), strconvQuote(want.Warning)) {
				t.Errorf("log %q does not warn %q", log.String(), want.Warning)
			}
		})
	}
}

// strconvQuote is how slog's text handler writes a message with spaces.
func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

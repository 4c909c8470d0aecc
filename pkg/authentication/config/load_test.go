package config

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// recordedError reads kube-apiserver 1.37.1's start-up error for a
// configuration, from the e2e test data.
func recordedError(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "test", "e2e", "testdata", "kube-apiserver", "authn", "jwt", name))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`err="((?:[^"\\]|\\.)*)"`).FindStringSubmatch(string(b))
	if m == nil {
		t.Fatalf("%s: no err= in %s", name, b)
	}
	return strings.ReplaceAll(m[1], `\"`, `"`)
}

func write(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "authn.yaml")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// bad1 is the file kube-apiserver was started with for bad-strict.txt;
// without the unknown field it is bad-validation.txt's.
const bad1 = `apiVersion: apiserver.config.k8s.io/v1
kind: AuthenticationConfiguration
jwt:
- issuer:
    url: http://127.0.0.1:18443
    audiences: []
  claimMappings:
    username:
      claim: sub
`

func TestErrorsAsKubeAPIServer(t *testing.T) {
	path := write(t, bad1+"  bogus: 1\n")
	_, err := Load(path)
	want := strings.ReplaceAll(recordedError(t, "bad-strict.txt"), "/tmp/authn-rec/bad1.yaml", path)
	if err == nil || err.Error() != want {
		t.Errorf("strict decoding:\n got %v\nwant %s", err, want)
	}
	_, err = Load(write(t, bad1))
	if want := recordedError(t, "bad-validation.txt"); err == nil || err.Error() != want {
		t.Errorf("validation:\n got %v\nwant %s", err, want)
	}
}

func TestValidationRules(t *testing.T) {
	for _, tc := range []struct {
		name, yaml, want string
	}{
		{"claim and expression", `
- issuer: {url: "https://i", audiences: [a]}
  claimValidationRules: [{claim: c, expression: "true"}]
  claimMappings: {username: {claim: sub, prefix: ""}}`, `jwt[0].claimValidationRules[0]: Invalid value: "c": claim and expression can't both be set`},
		{"multiple audiences need MatchAny", `
- issuer: {url: "https://i", audiences: [a, b]}
  claimMappings: {username: {claim: sub, prefix: ""}}`, `jwt[0].issuer.audienceMatchPolicy: Invalid value: "": audienceMatchPolicy must be MatchAny for multiple audiences`},
		{"prefix with an expression", `
- issuer: {url: "https://i", audiences: [a]}
  claimMappings: {username: {expression: "claims.sub", prefix: "x"}}`, `jwt[0].claimMappings.username.prefix: Invalid value: "x": may not be specified when expression is set`},
		{"reserved extra key", `
- issuer: {url: "https://i", audiences: [a]}
  claimMappings: {username: {claim: sub, prefix: ""}, extra: [{key: "kubernetes.io/x", valueExpression: "claims.sub"}]}`, `jwt[0].claimMappings.extra[0].key: Invalid value: "kubernetes.io/x": k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use`},
		{"CEL that does not compile", `
- issuer: {url: "https://i", audiences: [a]}
  claimMappings: {username: {claim: sub, prefix: ""}}
  userValidationRules: [{expression: "user.username +"}]`, `jwt[0].userValidationRules[0].expression: Invalid value: "user.username +": compilation failed: `},
		{"duplicate issuers", `
- issuer: {url: "https://i", audiences: [a]}
  claimMappings: {username: {claim: sub, prefix: ""}}
- issuer: {url: "https://i", audiences: [a]}
  claimMappings: {username: {claim: sub, prefix: ""}}`, `jwt[1].issuer.url: Duplicate value: "https://i"`},
	} {
		_, err := Load(write(t, "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\njwt:"+tc.yaml+"\n"))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant it to contain %s", tc.name, err, tc.want)
		}
	}
}

func TestAnonymousConditionsNeedEnabled(t *testing.T) {
	_, err := Load(write(t, "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\nanonymous:\n  enabled: false\n  conditions: [{path: /livez}]\n"))
	if err == nil || !strings.Contains(err.Error(), "anonymous.conditions: Invalid value:") || !strings.Contains(err.Error(), "enabled should be set to true when conditions are defined") {
		t.Errorf("got %v", err)
	}
}

func TestTheRecordedConfigurationCompiles(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "test", "e2e", "testdata", "kube-apiserver", "authn", "jwt", "authentication-config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// The recorded file elides the issuer's CA.
	content := regexp.MustCompile(`(?s)    certificateAuthority: \|\n      \(the recording issuer's CA\)\n`).ReplaceAllString(string(b), "")
	c, err := Load(write(t, content))
	if err != nil {
		t.Fatal(err)
	}
	j := c.JWT[0]
	if j.UsernameClaim != "sub" || j.UsernamePrefix != "oidc:" || j.GroupsPrefix != "g:" || j.UIDClaim != "sub" || len(j.ClaimRules) != 1 || len(j.UserRules) != 1 || len(j.Extra) != 1 || j.RequiredClaims["tenant"] != "acme" {
		t.Errorf("compiled: %+v", j)
	}
	if !c.Anonymous.Enabled || len(c.Anonymous.Conditions) != 2 {
		t.Errorf("anonymous: %+v", c.Anonymous)
	}
}

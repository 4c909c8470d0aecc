package authorizationconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// LoadAndValidate is what --authorization-config does with a file; the
// errors must be the ones kube-apiserver 1.37.1 exited with for the same
// files (testdata/*.error).
func TestErrorsAreKubeAPIServers(t *testing.T) {
	files, err := filepath.Glob("testdata/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded files: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(strings.TrimSuffix(f, ".yaml") + ".error")
			if err != nil {
				t.Fatal(err)
			}
			_, _, _, err = LoadAndValidate(f, nil)
			if err == nil {
				t.Fatal("no error")
			}
			if got := err.Error(); got != string(want) {
				t.Errorf("error\n got: %s\nwant: %s", got, want)
			}
		})
	}
}

func TestAValidFileIsDefaulted(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte("apiVersion: v1\nkind: Config\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "authz.yaml")
	content := `apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
- type: Webhook
  name: first
  webhook:
    timeout: 3s
    subjectAccessReviewVersion: v1
    matchConditionSubjectAccessReviewVersion: v1
    failurePolicy: Deny
    cacheUnauthorizedRequests: false
    connectionInfo:
      type: KubeConfigFile
      kubeConfigFile: ` + kubeconfig + `
    matchConditions:
    - expression: "has(request.resourceAttributes) && request.resourceAttributes.namespace == 'kube-system'"
    - expression: "!('system:masters' in request.groups)"
- type: RBAC
  name: rbac
`
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	c, matchers, _, err := LoadAndValidate(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := c.Authorizers[0].Webhook
	if w.AuthorizedTTL.Duration.String() != "5m0s" || w.UnauthorizedTTL.Duration.String() != "30s" || !*w.CacheAuthorizedRequests || *w.CacheUnauthorizedRequests {
		t.Errorf("defaults %+v", w)
	}
	if m := matchers[0]; m == nil || len(m.programs) != 2 {
		t.Errorf("matchers %+v", matchers)
	}
}

package encryption

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testdata/oracle/config-errors.json is what kube-apiserver 1.37.1 printed
// when started with each configuration (the path of the file replaced by
// CONFIG_PATH): Load must refuse each with the same words.
func TestInvalidConfigurationsAreRefusedWithKubeAPIServersMessages(t *testing.T) {
	var cases []struct{ Name, Config, Error string }
	data, err := os.ReadFile("testdata/oracle/config-errors.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 25 {
		t.Fatalf("only %d recorded cases", len(cases))
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			path := filepath.Join(dir, c.Name+".yaml")
			if err := os.WriteFile(path, []byte(c.Config), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Load(context.Background(), Options{ConfigFile: path})
			if err == nil {
				t.Fatalf("accepted:\n%s", c.Config)
			}
			if got := strings.ReplaceAll(err.Error(), path, "CONFIG_PATH"); got != c.Error {
				t.Fatalf("error\n got: %s\nwant: %s", got, c.Error)
			}
		})
	}
}

func TestValidConfigurations(t *testing.T) {
	dir := t.TempDir()
	for name, cfg := range map[string]string{
		"every provider": `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
- resources: [secrets, configmaps, "*.apps", crontabs.stable.example.com]
  providers:
  - aesgcm: {keys: [{name: a, secret: AAECAwQFBgcICQoLDA0ODw==}]}
  - aescbc: {keys: [{name: b, secret: AAECAwQFBgcICQoLDA0ODxAREhMUFRYX}, {name: c, secret: AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=}]}
  - secretbox: {keys: [{name: d, secret: AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=}]}
  - identity: {}
- resources: ["*.*"]
  providers:
  - identity: {}
`,
		"json": `{"apiVersion":"apiserver.config.k8s.io/v1","kind":"EncryptionConfiguration","resources":[{"resources":["*."],"providers":[{"identity":{}}]}]}`,
	} {
		path := filepath.Join(dir, "c.yaml")
		if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(context.Background(), Options{ConfigFile: path}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestResourcesFindTheirRuleExactThenGroupThenAny(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	cfg := `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
- resources: [secrets, deployments.apps]
  providers:
  - aescbc: {keys: [{name: exact, secret: AAECAwQFBgcICQoLDA0ODw==}]}
- resources: ["*.apps", "*."]
  providers:
  - aescbc: {keys: [{name: group, secret: AAECAwQFBgcICQoLDA0ODw==}]}
- resources: ["*.*"]
  providers:
  - aescbc: {keys: [{name: any, secret: AAECAwQFBgcICQoLDA0ODw==}]}
`
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	tr, err := Load(context.Background(), Options{ConfigFile: path})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ group, resource, key string }{
		{"", "secrets", "exact"},
		{"apps", "deployments", "exact"},
		{"apps", "statefulsets", "group"},
		{"", "configmaps", "group"},
		{"stable.example.com", "crontabs", "any"},
	} {
		out, err := tr.TransformerFor(c.group, c.resource).ToStorage(context.Background(), []byte("x"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := "k8s:enc:aescbc:v1:" + c.key + ":"; !strings.HasPrefix(string(out), want) {
			t.Errorf("%s.%s written as %q, want the %q rule", c.resource, c.group, out[:len(want)], c.key)
		}
	}
}

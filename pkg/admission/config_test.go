package admission

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestAnAdmissionConfigurationGivesEachPluginItsConfiguration(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "quota.yaml", "apiVersion: apiserver.config.k8s.io/v1\nkind: ResourceQuotaConfiguration\n")
	path := writeFile(t, dir, "admission.yaml", `
apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: PodSecurity
  configuration:
    apiVersion: pod-security.admission.config.k8s.io/v1
    kind: PodSecurityConfiguration
    defaults:
      enforce: baseline
- name: ResourceQuota
  path: quota.yaml
`)
	configs, err := ReadConfigFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(configs.For("PodSecurity")); !strings.Contains(got, `"enforce":"baseline"`) {
		t.Errorf("PodSecurity's configuration is %s", got)
	}
	if got := string(configs.For("ResourceQuota")); !strings.Contains(got, "ResourceQuotaConfiguration") {
		t.Errorf("ResourceQuota's configuration, from a file beside, is %s", got)
	}
	if configs.For("LimitRanger") != nil {
		t.Errorf("a plugin the file does not name has a configuration")
	}
}

func TestAdmissionConfigurationFilesAreRefusedAsKubeAPIServerRefusesThem(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, content, want string }{
		{"unknown-field.yaml", "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugin: []\n", `unknown field "plugin"`},
		{"other-kind.yaml", "apiVersion: apiserver.config.k8s.io/v1\nkind: Foo\n", `no kind "Foo" is registered for version "apiserver.config.k8s.io/v1"`},
		{"no-kind.yaml", "plugins: []\n", "Object 'Kind' is missing"},
		{"missing-path.yaml", "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: X\n  path: nowhere.yaml\n", "couldn't open admission plugin configuration"},
	} {
		_, err := ReadConfigFile(writeFile(t, dir, tc.name, tc.content))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.want)
		}
	}
	if _, err := ReadConfigFile(filepath.Join(dir, "absent.yaml")); err == nil || !strings.Contains(err.Error(), "unable to read admission control configuration from") {
		t.Errorf("a missing file: %v", err)
	}
}

func TestALegacyPodNodeSelectorFileConfiguresThatPlugin(t *testing.T) {
	path := writeFile(t, t.TempDir(), "legacy.yaml", "podNodeSelectorPluginConfig:\n  clusterDefaultNodeSelector: env=prod\n")
	configs, err := ReadConfigFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(configs.For("PodNodeSelector")), "clusterDefaultNodeSelector") {
		t.Errorf("PodNodeSelector's configuration is %q", configs.For("PodNodeSelector"))
	}
}

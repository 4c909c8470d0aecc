package webhook

import (
	"os"
	"path/filepath"
	"testing"
)

// The credentials a webhook is called with come from the kubeconfig of
// the plugin's WebhookAdmissionConfiguration, by kube-apiserver's rules:
// the user named after host:port, then a "*." wildcard of the host, then
// (for port 443) the same without the port, then "*", then the current
// context's user.
func TestAuthResolver(t *testing.T) {
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
users:
- name: hook.example.com:8443
  user: {token: exact}
- name: "*.svc.example.com"
  user: {token: wildcard}
- name: plain.example.com
  user: {token: without-port}
- name: "*"
  user: {token: star}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfgFile := filepath.Join(dir, "admission.yaml")
	if err := os.WriteFile(cfgFile, []byte("apiVersion: apiserver.config.k8s.io/v1\nkind: WebhookAdmissionConfiguration\nkubeConfigFile: "+kubeconfig+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(cfgFile)
	if err != nil {
		t.Fatal(err)
	}
	pc, err := ReadAdmissionConfig(data)
	if err != nil || pc.KubeConfigFile != kubeconfig {
		t.Fatalf("config %+v, %v", pc, err)
	}
	r, err := NewAuthResolver(pc.KubeConfigFile)
	if err != nil {
		t.Fatal(err)
	}
	for target, want := range map[string]string{
		"hook.example.com:8443": "exact",
		"a.svc.example.com:443": "wildcard",
		"plain.example.com:443": "without-port",
		"other.example.com:443": "star",
	} {
		cfg, err := r.configFor(target)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.BearerToken != want || cfg.UserAgent != "kube-apiserver-admission" {
			t.Errorf("%s: token %q, user agent %q; want %q", target, cfg.BearerToken, cfg.UserAgent, want)
		}
	}
	if _, err := ReadAdmissionConfig([]byte("apiVersion: apiserver.config.k8s.io/v1\nkind: WebhookAdmissionConfiguration\nkubeconfig: x\n")); err == nil {
		t.Errorf("an unknown field was accepted")
	}
}

package webhook

import (
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
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

// A service reference resolves to the service's cluster IP and the port
// named, as kube-apiserver's default resolver does.
func TestClusterIPResolver(t *testing.T) {
	services := map[string]*corev1.Service{
		"hooks": {ObjectMeta: metav1.ObjectMeta{Name: "hooks"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: "10.0.0.7",
			Ports: []corev1.ServicePort{{Port: 443}, {Port: 8443}}}},
		"headless": {ObjectMeta: metav1.ObjectMeta{Name: "headless"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: "None"}},
		"external": {ObjectMeta: metav1.ObjectMeta{Name: "external"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "hooks.example.com"}},
	}
	r := &ClusterIPResolver{Services: func(namespace, name string) (*corev1.Service, error) {
		if s, ok := services[name]; ok {
			return s, nil
		}
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "services"}, name)
	}}
	cases := []struct {
		name    string
		port    int32
		want    string
		wantErr string
	}{
		{name: "hooks", port: 8443, want: "https://10.0.0.7:8443"},
		{name: "hooks", port: 9443, wantErr: `no service port 9443 found for service "hooks"`},
		{name: "headless", port: 443, wantErr: `cannot route to service with ClusterIP "None"`},
		{name: "external", port: 443, want: "https://hooks.example.com:443"},
		{name: "missing", port: 443, wantErr: `services "missing" not found`},
	}
	for _, tc := range cases {
		u, err := r.ResolveEndpoint("ns", tc.name, tc.port)
		switch {
		case tc.wantErr != "":
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("%s:%d: error %v, want %s", tc.name, tc.port, err, tc.wantErr)
			}
		case err != nil || u.String() != tc.want:
			t.Errorf("%s:%d: %v, %v; want %s", tc.name, tc.port, u, err, tc.want)
		}
	}
}

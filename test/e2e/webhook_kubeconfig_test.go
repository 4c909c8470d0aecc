package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/webhooktest"
	"github.com/kapi-dev/kapi/pkg/app"
	"github.com/kapi-dev/kapi/pkg/testserver"
)

// The webhooks are called with the credentials that the kubeconfig of
// --admission-control-config-file's WebhookAdmissionConfiguration names
// for their host, a configuration change applies at once, and a deleted
// configuration stops being called.
func TestAdmissionWebhookCredentialsFromAdmissionConfig(t *testing.T) {
	srv := webhooktest.Start(t)
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "webhooks.kubeconfig")
	write := func(path, content string) {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(kubeconfig, "apiVersion: v1\nkind: Config\nusers:\n- name: '*'\n  user: {token: webhook-secret}\n")
	config := filepath.Join(dir, "admission.yaml")
	write(config, fmt.Sprintf(`apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: ValidatingAdmissionWebhook
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: WebhookAdmissionConfiguration
    kubeConfigFile: %s
`, kubeconfig))
	s := testserver.Start(t, testserver.Options{Admission: app.AdmissionConfig{ConfigFile: config}})
	c := clientset(t, s.ClientConfig)
	ctx := context.Background()

	hook := validatingHook(srv, "deny.e2e.example.com", "/deny/message/credentials%20checked", nil)
	hook.ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"checked": "yes"}}
	if _, err := c.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "credentials"}, Webhooks: []admissionregistrationv1.ValidatingWebhook{hook}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cm := func(name string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"checked": "yes"}}}
	}
	// The informer sees the configuration soon after its creation.
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := c.CoreV1().ConfigMaps("default").Create(ctx, cm("first"), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			if err.Error() != `admission webhook "deny.e2e.example.com" denied the request: credentials checked` {
				t.Fatal(err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("creates still allowed 10s after the configuration's creation")
		}
		time.Sleep(20 * time.Millisecond)
	}
	reqs := srv.Requests("deny")
	if len(reqs) != 1 || reqs[0].Authorization != "Bearer webhook-secret" {
		t.Fatalf("the webhook received %d reviews, the first with Authorization %q", len(reqs), reqs[0].Authorization)
	}

	if err := c.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(ctx, "credentials", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// Likewise its deletion.
	deadline = time.Now().Add(10 * time.Second)
	for {
		_, err := c.CoreV1().ConfigMaps("default").Create(ctx, cm("after"), metav1.CreateOptions{})
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("creates still refused 10s after the configuration's deletion: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

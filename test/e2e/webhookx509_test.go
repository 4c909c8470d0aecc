package e2e

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/testpki"
	"github.com/kapi-dev/kapi/pkg/app"
	"github.com/kapi-dev/kapi/pkg/authorization"
	"github.com/kapi-dev/kapi/pkg/testserver"
)

// TestWebhooksWithoutSANAreKubeAPIServers: a token webhook and an
// authorization webhook serving a certificate with no subjectAltName (only
// CN=127.0.0.1, which Go refuses to match) fail as kube-apiserver 1.37's
// do, with the same TokenReview and SubjectAccessReview errors, a 401 for a
// bearer token, and apiserver_webhooks_x509_missing_san_total counting each
// call (testdata/kube-apiserver/webhook-missing-san.json, recorded by
// hack/oracle/webhook-missing-san.sh).
func TestWebhooksWithoutSANAreKubeAPIServers(t *testing.T) {
	var want struct {
		TokenReviewStatus         authenticationv1.TokenReviewStatus        `json:"tokenReviewStatus"`
		SubjectAccessReviewStatus authorizationv1.SubjectAccessReviewStatus `json:"subjectAccessReviewStatus"`
		UnknownBearerTokenCode    int                                       `json:"unknownBearerTokenCode"`
		Metrics                   []string                                  `json:"metrics"`
	}
	if err := json.Unmarshal(mustRead(t, filepath.Join("testdata", "kube-apiserver", "webhook-missing-san.json")), &want); err != nil {
		t.Fatal(err)
	}

	caPEM, cert := testpki.ServingWithoutSAN(t)
	var calls atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1) // never reached: the TLS handshake fails
		http.Error(w, "unexpected", http.StatusInternalServerError)
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	kubeconfig := func(path string) string {
		file := filepath.Join(t.TempDir(), "kubeconfig")
		content := fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- name: wh\n  cluster:\n    server: https://127.0.0.1:%s/%s\n    certificate-authority-data: %s\nusers:\n- name: kapi\n  user: {}\ncontexts:\n- name: wh\n  context: {cluster: wh, user: kapi}\ncurrent-context: wh\n",
			port, path, base64.StdEncoding.EncodeToString(caPEM))
		if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return file
	}
	authn := app.NewConfig().Authentication
	authn.TokenWebhook = app.TokenWebhookConfig{ConfigFile: kubeconfig("authn"), CacheTTL: 2 * time.Minute, Version: "v1"}
	authz := authorization.DefaultConfig()
	authz.WebhookConfigFile = kubeconfig("authz")
	authz.WebhookVersion = "v1"
	s := testserver.Start(t, testserver.Options{
		Authentication:    &authn,
		AuthorizationMode: []string{"Node", "RBAC", "Webhook"},
		Authorization:     &authz,
	})
	ctx := context.Background()
	admin := clientset(t, s.ClientConfig)

	tr, err := admin.AuthenticationV1().TokenReviews().Create(ctx, &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: "some-token"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	unport := func(s string) string { return strings.ReplaceAll(s, "127.0.0.1:"+port, "127.0.0.1:PORT") }
	tr.Status.Error = unport(tr.Status.Error)
	if diff := cmp.Diff(want.TokenReviewStatus, tr.Status); diff != "" {
		t.Errorf("TokenReview status (-kube-apiserver +kapi):\n%s", diff)
	}
	sar, err := admin.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: "bob", ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "get", Resource: "secrets", Namespace: "default"},
	}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sar.Status.EvaluationError = unport(sar.Status.EvaluationError)
	if diff := cmp.Diff(want.SubjectAccessReviewStatus, sar.Status); diff != "" {
		t.Errorf("SubjectAccessReview status (-kube-apiserver +kapi):\n%s", diff)
	}
	if code, _, body := getWithToken(t, s, "some-other-token", "/api"); code != want.UnknownBearerTokenCode {
		t.Errorf("an unknown bearer token: %d %s, want %d", code, body, want.UnknownBearerTokenCode)
	}

	page, err := admin.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(string(page), "\n") {
		name := strings.TrimPrefix(strings.TrimPrefix(line, "# HELP "), "# TYPE ")
		if strings.HasPrefix(name, "apiserver_webhooks_x509_") {
			got = append(got, line)
		}
	}
	if !slices.Equal(got, want.Metrics) {
		t.Errorf("/metrics:\n%s\nkube-apiserver's:\n%s", strings.Join(got, "\n"), strings.Join(want.Metrics, "\n"))
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("the webhook was reached %d times through a certificate Go refuses", n)
	}
}

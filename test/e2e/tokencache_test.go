package e2e

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/app"
	"github.com/kapi-dev/kapi/pkg/certs"
	sa "github.com/kapi-dev/kapi/pkg/serviceaccount"
	"github.com/kapi-dev/kapi/pkg/testserver"
)

// TestTokenCacheMetricsAreKubeAPIServers replays the bearer-token requests
// of hack/oracle/metrics-token-cache.sh (a service-account token twice, a
// JWT of the service-account issuer signed by another key twice, a static
// token three times, an unknown token twice) and finds in /metrics the
// authentication_token_cache_* lines kube-apiserver 1.37 showed
// (testdata/kube-apiserver/metrics-token-cache.txt): the same help and
// types, the same hits, misses and fetches by status, the same histogram
// buckets. Only the histogram's buckets below +Inf are left out: they
// depend on how long each authentication took.
func TestTokenCacheMetricsAreKubeAPIServers(t *testing.T) {
	want := tokenCacheLines(t, mustRead(t, filepath.Join("testdata", "kube-apiserver", "metrics-token-cache.txt")))
	if len(want) < 10 {
		t.Fatalf("the recording has %d lines", len(want))
	}
	tokens := filepath.Join(t.TempDir(), "tokens.csv")
	if err := os.WriteFile(tokens, []byte("static-token-1,tokenuser,uid-1,\"g1\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := testserver.Start(t, testserver.Options{TokenAuthFile: tokens})
	ctx := context.Background()
	admin := clientset(t, s.ClientConfig)
	if _, err := admin.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "robot"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tr, err := admin.CoreV1().ServiceAccounts("default").CreateToken(ctx, "robot", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	otherKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := sa.NewSigner(otherKey)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().Unix()
	forged, err := signer.Sign(&sa.Claims{Issuer: app.DefaultServiceAccountIssuer, Audience: []string{app.DefaultServiceAccountIssuer},
		Subject: "system:serviceaccount:default:robot", IssuedAt: now, NotBefore: now, Expiry: now + 3600})
	if err != nil {
		t.Fatal(err)
	}

	for _, r := range []struct {
		token string
		code  int
	}{
		{tr.Status.Token, http.StatusOK}, {tr.Status.Token, http.StatusOK},
		{forged, http.StatusUnauthorized}, {forged, http.StatusUnauthorized},
		{"static-token-1", http.StatusOK}, {"static-token-1", http.StatusOK}, {"static-token-1", http.StatusOK},
		{"not-a-token", http.StatusUnauthorized}, {"not-a-token", http.StatusUnauthorized},
	} {
		if code, _, body := getWithToken(t, s, r.token, "/api"); code != r.code {
			t.Fatalf("GET /api: %d, want %d: %s", code, r.code, body)
		}
	}

	page, err := admin.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := tokenCacheLines(t, page)
	if !slices.Equal(got, want) {
		t.Errorf("/metrics:\n%s\nkube-apiserver's:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestLegacyTokenWarningsAreReplayedFromTheCache: three requests with the
// legacy token of an auto-generated Secret each get kube-apiserver's
// warning, the two the token cache answers included, while the service
// account authenticator, asked once, counts one use, as kube-apiserver
// 1.37 did (testdata/kube-apiserver/legacy-token-cache.json, recorded by
// hack/oracle/legacy-token-cache.sh).
func TestLegacyTokenWarningsAreReplayedFromTheCache(t *testing.T) {
	var want struct {
		Responses []struct {
			Code     int      `json:"code"`
			Warnings []string `json:"warnings"`
		} `json:"responses"`
		Metrics []string `json:"metrics"`
	}
	if err := json.Unmarshal(mustRead(t, filepath.Join("testdata", "kube-apiserver", "legacy-token-cache.json")), &want); err != nil {
		t.Fatal(err)
	}
	s := testserver.Start(t, testserver.Options{})
	ctx := context.Background()
	admin := clientset(t, s.ClientConfig)
	// The account lists its Secret from the start, so that the
	// authenticator, reading it through an informer, never sees it
	// without (it would take the token for a manual one).
	robot, err := admin.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "legacy-robot"},
		Secrets: []corev1.ObjectReference{{Name: "legacy-robot-token"}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	key, err := sa.ReadSigningKey(filepath.Join(s.DataDir, "pki", certs.ServiceAccountKeyFileName))
	if err != nil {
		t.Fatal(err)
	}
	signer, err := sa.NewSigner(key)
	if err != nil {
		t.Fatal(err)
	}
	token, err := signer.Sign(&sa.Claims{Issuer: sa.LegacyIssuer, Subject: "system:serviceaccount:default:legacy-robot",
		LegacyNamespace: "default", LegacySecretName: "legacy-robot-token", LegacyServiceAccountName: "legacy-robot", LegacyServiceAccountUID: string(robot.UID)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.CoreV1().Secrets("default").Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "legacy-robot-token", Annotations: map[string]string{
			corev1.ServiceAccountNameKey: "legacy-robot", corev1.ServiceAccountUIDKey: string(robot.UID)}},
		Type: corev1.SecretTypeServiceAccountToken,
		Data: map[string][]byte{corev1.ServiceAccountTokenKey: []byte(token)},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for i, w := range want.Responses {
		code, header, body := getWithToken(t, s, token, "/api")
		if code != w.Code || !slices.Equal(header.Values("Warning"), w.Warnings) {
			t.Errorf("request %d: %d, warnings %q, want %d, %q: %s", i+1, code, header.Values("Warning"), w.Code, w.Warnings, body)
		}
	}
	page, err := admin.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(string(page), "\n") {
		if strings.HasPrefix(line, "serviceaccount_legacy_") || strings.HasPrefix(line, "authentication_token_cache_request_total") {
			got = append(got, line)
		}
	}
	if !slices.Equal(got, want.Metrics) {
		t.Errorf("/metrics:\n%s\nkube-apiserver's:\n%s", strings.Join(got, "\n"), strings.Join(want.Metrics, "\n"))
	}
}

// tokenCacheLines are the lines of the authentication_token_cache_*
// families of a /metrics page, without the histogram's sums and finite
// buckets' counts (timings): the buckets are kept as their bounds.
func tokenCacheLines(t *testing.T, page []byte) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(strings.NewReader(string(page)))
	for sc.Scan() {
		line := sc.Text()
		name := strings.TrimPrefix(strings.TrimPrefix(line, "# HELP "), "# TYPE ")
		if !strings.HasPrefix(name, "authentication_token_cache_") || strings.Contains(line, "_sum{") {
			continue
		}
		if strings.Contains(line, "_bucket{") && !strings.Contains(line, `le="+Inf"`) {
			line = line[:strings.LastIndex(line, " ")]
		}
		out = append(out, line)
	}
	return out
}

package e2e

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/rsa"
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

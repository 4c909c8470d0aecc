package e2e

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/internal/required"
	"github.com/kapi-dev/kapi/pkg/testserver"
)

// family is what the # HELP and # TYPE lines say of a metric family.
type family struct{ help, typ string }

// families reads the # HELP and # TYPE lines of a Prometheus text page.
func families(data []byte) map[string]family {
	out := map[string]family{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), " ", 4)
		if len(f) < 4 || f[0] != "#" {
			continue
		}
		fam := out[f[2]]
		switch f[1] {
		case "HELP":
			fam.help = f[3]
		case "TYPE":
			fam.typ = f[3]
		}
		out[f[2]] = fam
	}
	return out
}

// The server's /metrics, after requests that authenticate, fail to, are
// allowed and are forbidden, has the security families kube-apiserver
// has, and every family it shares with kube-apiserver 1.37 has the same
// help and type, so that dashboards and alerts written for one work with
// the other.
func TestMetricsAreKubeAPIServers(t *testing.T) {
	reference := families(mustRead(t, required.Reference(t, "health", "metrics-names-and-help.txt")))
	s := testserver.Start(t, testserver.Options{})
	ctx := context.Background()

	admin := clientset(t, s.ClientConfig)
	if _, err := admin.CoreV1().Namespaces().List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	alice := clientset(t, userConfig(t, s, "alice"))
	if _, err := alice.Discovery().ServerGroups(); err != nil { // RBAC's system:discovery allows
		t.Fatal(err)
	}
	if _, err := alice.CoreV1().Secrets("default").List(ctx, metav1.ListOptions{}); err == nil {
		t.Fatal("alice, without bindings, listed secrets")
	}
	bad := rest.AnonymousClientConfig(s.ClientConfig)
	bad.BearerToken = "not-a-token"
	if _, err := kubernetes.NewForConfigOrDie(bad).CoreV1().Namespaces().List(ctx, metav1.ListOptions{}); err == nil {
		t.Fatal("an invalid token was accepted")
	}

	page, err := admin.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ours := families(page)
	for _, name := range []string{
		"authentication_attempts", "authentication_duration_seconds", "authenticated_user_requests",
		"authorization_attempts_total", "authorization_duration_seconds", "apiserver_authorization_decisions_total",
		"serviceaccount_legacy_tokens_total", "serviceaccount_stale_tokens_total", "serviceaccount_valid_tokens_total",
		"serviceaccount_legacy_auto_token_uses_total", "serviceaccount_legacy_manual_token_uses_total",
		"serviceaccount_invalid_legacy_auto_token_uses_total",
		"apiserver_audit_event_total", "apiserver_audit_requests_rejected_total",
		"apiserver_storage_envelope_transformation_cache_misses_total",
	} {
		if _, ok := ours[name]; !ok {
			t.Errorf("/metrics has no %s", name)
		}
	}
	for _, sample := range []string{
		`authentication_attempts{result="error"}`,
		`authorization_attempts_total{result="allowed"}`,
		`authorization_attempts_total{result="no-opinion"}`,
		`apiserver_authorization_decisions_total{decision="allowed",name="rbac",type="RBAC"}`,
	} {
		if !bytes.Contains(page, []byte(sample+" ")) {
			t.Errorf("/metrics has no series %s", sample)
		}
	}
	shared := 0
	for name, got := range ours {
		want, ok := reference[name]
		if !ok {
			continue
		}
		shared++
		if got != want {
			t.Errorf("%s:\n got  %+v\n want %+v", name, got, want)
		}
	}
	t.Logf("%d of kapi's %d metric families are kube-apiserver's, with the same help and type", shared, len(ours))
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/internal/kmstest"
	"github.com/kapi-dev/kapi/internal/required"
	"github.com/kapi-dev/kapi/pkg/app"
	"github.com/kapi-dev/kapi/pkg/authorization"
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

// TestConfigReloadMetricsAreKubeAPIServers: with --authentication-config
// (a JWT issuer the test serves), --authorization-config (Node and RBAC),
// secrets encrypted through a KMS v2 plugin and
// --encryption-provider-config-automatic-reload, after a JWT is verified,
// a secret written and read, the authentication and authorization files
// made invalid and then valid again, and the plugin naming an empty key ID
// while a new encryption file waits for it, /metrics has every family
// kube-apiserver 1.37 showed after the same steps
// (testdata/kube-apiserver/metrics-config-reload.txt, recorded by
// hack/oracle/metrics-config-reload.sh) with the same help, type and
// label names, and counts the reloads both ways.
func TestConfigReloadMetricsAreKubeAPIServers(t *testing.T) {
	recording := mustRead(t, "testdata/kube-apiserver/metrics-config-reload.txt")
	reference := families(recording)
	if len(reference) < 15 {
		t.Fatalf("the recording has %d families", len(reference))
	}

	iss := newOIDCIssuer(t)
	dir := t.TempDir()
	authnFile := filepath.Join(dir, "authn.yaml")
	if err := os.WriteFile(authnFile, []byte(structuredConfig(iss, "kapi")), 0o600); err != nil {
		t.Fatal(err)
	}
	authn := app.NewConfig().Authentication
	authn.ConfigFile = authnFile
	authn.ConfigReloadInterval = 50 * time.Millisecond
	plugin := kmstest.Start(t)
	encFile := filepath.Join(dir, "encryption.yaml")
	kms := "  - kms:\n      apiVersion: v2\n      name: fake\n      endpoint: " + plugin.Endpoint + "\n  - identity: {}\n"
	writeEncryptionConfig(t, encFile, kms)
	authzFile := filepath.Join(dir, "authz.yaml")
	authzConfig := "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n- {type: Node, name: node}\n- {type: RBAC, name: rbac}\n"
	if err := os.WriteFile(authzFile, []byte(authzConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	authz := authorization.DefaultConfig()
	authz.ConfigFile = authzFile
	authz.ConfigReloadInterval = 50 * time.Millisecond
	s := testserver.Start(t, testserver.Options{
		Authentication:           &authn,
		Authorization:            &authz,
		EncryptionProviderConfig: encFile, EncryptionProviderConfigAutomaticReload: true,
		EncryptionReloadInterval: 50 * time.Millisecond,
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin := clientset(t, s.ClientConfig)
	metricsPage := func() []byte {
		t.Helper()
		page, err := admin.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return page
	}
	// waitFor waits until /metrics has a series of family whose labels
	// contain labels.
	waitFor := func(what, family, labels string) {
		t.Helper()
		for {
			page := metricsPage()
			for _, line := range strings.Split(string(page), "\n") {
				if strings.HasPrefix(line, family+"{") && strings.Contains(line, labels) {
					return
				}
			}
			if ctx.Err() != nil {
				t.Fatalf("%s: /metrics never had %s{%s}:\n%s", what, family, labels, grepLines(page, family))
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	jwtUser := rest.AnonymousClientConfig(s.ClientConfig)
	jwtUser.BearerToken = iss.token(t, map[string]any{"iss": iss.srv.URL, "aud": "kapi", "sub": "alice", "tenant": "acme", "exp": time.Now().Add(time.Hour).Unix()})
	if _, err := kubernetes.NewForConfigOrDie(jwtUser).Discovery().ServerVersion(); err != nil {
		t.Fatal(err)
	}
	secrets := admin.CoreV1().Secrets("default")
	if _, err := secrets.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s1"}, StringData: map[string]string{"k": "v"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := secrets.List(ctx, metav1.ListOptions{ResourceVersion: ""}); err != nil {
		t.Fatal(err)
	}

	if err := os.WriteFile(authnFile, []byte("garbage: ["), 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor("an invalid authentication file", "apiserver_authentication_config_controller_automatic_reloads_total", `status="failure"`)
	if err := os.WriteFile(authnFile, []byte(structuredConfig(iss, "kapi")+"# changed\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor("a valid authentication file", "apiserver_authentication_config_controller_automatic_reloads_total", `status="success"`)

	if err := os.WriteFile(authzFile, []byte("garbage: ["), 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor("an invalid authorization file", "apiserver_authorization_config_controller_automatic_reloads_total", `status="failure"`)
	if err := os.WriteFile(authzFile, []byte(authzConfig+"# changed\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor("a valid authorization file", "apiserver_authorization_config_controller_automatic_reloads_total", `status="success"`)

	// A new encryption file whose plugin names an empty key ID is not
	// taken; once the plugin has a key again, it is.
	plugin.Rotate("")
	writeEncryptionConfig(t, encFile, kms+"# changed\n")
	waitFor("a plugin with an empty key ID", "apiserver_envelope_encryption_invalid_key_id_from_status_total", `error="empty",provider_name="fake"`)
	waitFor("a plugin with an empty key ID", "apiserver_encryption_config_controller_automatic_reloads_total", `status="failure"`)
	plugin.Rotate("key-2")
	waitFor("a plugin with a key again", "apiserver_encryption_config_controller_automatic_reloads_total", `status="success"`)

	page := metricsPage()
	ours := families(page)
	oursLabels := labelSets(page, ours)
	wantLabels := map[string]map[string]bool{}
	for _, line := range strings.Split(string(recording), "\n") {
		if f := strings.Fields(line); len(f) == 4 && f[1] == "LABELS" {
			if wantLabels[f[2]] == nil {
				wantLabels[f[2]] = map[string]bool{}
			}
			wantLabels[f[2]][f[3]] = true
		}
	}
	for name, want := range reference {
		got, ok := ours[name]
		if !ok {
			t.Errorf("/metrics has no %s", name)
			continue
		}
		if got != want {
			t.Errorf("%s:\n got  %+v\n want %+v", name, got, want)
		}
		if !maps.Equal(oursLabels[name], wantLabels[name]) {
			t.Errorf("%s: label names %v, kube-apiserver's %v", name, oursLabels[name], wantLabels[name])
		}
	}
	t.Logf("%d families of kube-apiserver's configuration reloads, JWT and KMS v2 compared", len(reference))
}

// labelSets reads the label names of each series of a Prometheus text
// page, by family (histogram buckets, sums and counts under their
// family, without le), as "a,b,c" sorted.
func labelSets(page []byte, fams map[string]family) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, line := range strings.Split(string(page), "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		name, rest, _ := strings.Cut(line, "{")
		if !strings.Contains(line, "{") {
			name, _, _ = strings.Cut(line, " ")
			rest = ""
		}
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			if base, ok := strings.CutSuffix(name, suffix); ok && fams[base].typ == "histogram" {
				name = base
			}
		}
		var labels []string
		for _, pair := range strings.Split(rest, `",`) {
			if k, _, ok := strings.Cut(pair, `="`); ok && k != "le" {
				labels = append(labels, strings.TrimPrefix(k, ","))
			}
		}
		slices.Sort(labels)
		if out[name] == nil {
			out[name] = map[string]bool{}
		}
		out[name][strings.Join(labels, ",")] = true
	}
	return out
}

func grepLines(page []byte, s string) string {
	var out []string
	for _, line := range strings.Split(string(page), "\n") {
		if strings.Contains(line, s) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

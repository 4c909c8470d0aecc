package authorization

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

// Each configured authorizer's terminal decisions are counted by its type
// and name; no-opinions are not, and neither are system:masters and the
// public paths, which no configured authorizer decides.
func TestDecisionsAreCountedPerAuthorizer(t *testing.T) {
	mallory := &user.DefaultInfo{Name: "mallory", Groups: []string{"system:authenticated"}}
	m := NewMetrics("apiserver-test")
	cfg := DefaultConfig()
	cfg.Modes = []string{ModeRBAC, ModeAlwaysDeny}
	cfg.Metrics = m
	rbac := authorizer.AuthorizerFunc(func(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
		switch a.GetUser().GetName() {
		case "alice":
			return authorizer.DecisionAllow, "", nil
		case "mallory":
			return authorizer.DecisionDeny, "", nil
		}
		return authorizer.DecisionNoOpinion, "", nil
	})
	a, err := Build(cfg, Built{RBAC: rbac})
	if err != nil {
		t.Fatal(err)
	}
	for _, attrs := range []authorizer.AttributesRecord{
		createConfigMap(alice), createConfigMap(alice), // RBAC allows
		createConfigMap(mallory),   // RBAC denies
		createConfigMap(anonymous), // no opinion from either
		createConfigMap(admin),     // system:masters
		get(anonymous, "/healthz"), // a public path
	} {
		a.Authorize(context.Background(), attrs)
	}
	for _, tc := range []struct {
		labels []string
		want   float64
	}{
		{[]string{"RBAC", "rbac", "allowed"}, 2},
		{[]string{"RBAC", "rbac", "denied"}, 1},
	} {
		if got := value(t, m.decisions.WithLabelValues(tc.labels...)); got != tc.want {
			t.Errorf("decisions%v = %v, want %v", tc.labels, got, tc.want)
		}
	}
	if n := series(m.decisions); n != 2 {
		t.Errorf("%d decision series, want the 2 above (AlwaysDeny has no opinion, as in kube-apiserver)", n)
	}
}

// A reload that puts a new configuration in use is a success; one that
// keeps the old chain (the file no longer validates) is a failure. Both
// are labelled with the server's hashed identity.
func TestReloadsAreCounted(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "authz.yaml")
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	kubeconfig := filepath.Join(dir, "webhook.kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: w, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: w, user: {}}]
contexts: [{name: w, context: {cluster: w, user: w}}]
current-context: w
`), 0o600); err != nil {
		t.Fatal(err)
	}
	// A chain of one webhook; reloads may change webhooks, nothing else.
	config := func(timeout string) string {
		return `apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
- type: Webhook
  name: w
  webhook:
    timeout: ` + timeout + `
    subjectAccessReviewVersion: v1
    matchConditionSubjectAccessReviewVersion: v1
    failurePolicy: NoOpinion
    authorizedTTL: 1s
    unauthorizedTTL: 1s
    connectionInfo: {type: KubeConfigFile, kubeConfigFile: ` + kubeconfig + `}
`
	}
	write(config("3s"))
	m := NewMetrics("apiserver-test")
	cfg := DefaultConfig()
	cfg.ConfigFile = file
	cfg.Metrics = m
	a, err := Build(cfg, Built{})
	if err != nil {
		t.Fatal(err)
	}
	write(config("5s"))
	a.reload()
	a.reload()           // unchanged: not a reload
	write(config("50s")) // over the 30s limit: invalid
	a.reload()

	// The oracle (--authorization-config) showed these families, with
	// last_config_info the sha256 of the file in use, from the start.
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(m)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		for _, s := range f.GetMetric() {
			var labels []string
			for _, l := range s.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			v := s.GetCounter().GetValue()
			if s.GetGauge().GetValue() != 0 {
				v = 1 // a time or an info: set
			}
			got[f.GetName()+"{"+strings.Join(labels, ",")+"}"] = v
		}
	}
	hash := "sha256:" + sha256Hex
	inUse := sha256.Sum256([]byte(config("5s")))
	want := map[string]float64{
		"apiserver_authorization_config_controller_automatic_reloads_total{apiserver_id_hash=" + hash + ",status=success}":                            1,
		"apiserver_authorization_config_controller_automatic_reloads_total{apiserver_id_hash=" + hash + ",status=failure}":                            1,
		"apiserver_authorization_config_controller_automatic_reload_last_timestamp_seconds{apiserver_id_hash=" + hash + ",status=success}":            1,
		"apiserver_authorization_config_controller_automatic_reload_last_timestamp_seconds{apiserver_id_hash=" + hash + ",status=failure}":            1,
		"apiserver_authorization_config_controller_last_config_info{apiserver_id_hash=" + hash + ",hash=sha256:" + hex.EncodeToString(inUse[:]) + "}": 1,
	}
	if !maps.Equal(got, want) {
		t.Errorf("series\n%v\nwant\n%v", got, want)
	}
}

func TestIdentityHashIsSHA256OfTheIdentity(t *testing.T) {
	// sha256("apiserver-test"), computed with sha256sum.
	if got, want := IdentityHash("apiserver-test"), "sha256:"+sha256Hex; got != want {
		t.Errorf("hash %s, want %s", got, want)
	}
}

const sha256Hex = "57b98ed37f8b204899d819987c85aa04cb7739c8acf10caad2fe690c978cc509"

// value is the value of a counter or gauge.
func value(t *testing.T, m prometheus.Metric) float64 {
	t.Helper()
	var d dto.Metric
	if err := m.Write(&d); err != nil {
		t.Fatal(err)
	}
	if d.Counter != nil {
		return d.GetCounter().GetValue()
	}
	return d.GetGauge().GetValue()
}

// series counts the series c has.
func series(c prometheus.Collector) int {
	ch := make(chan prometheus.Metric, 100)
	c.Collect(ch)
	close(ch)
	return len(ch)
}

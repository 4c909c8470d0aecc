package encryption

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/util/workqueue"
)

func TestReloadSwapsValidConfigurationsAndKeepsTheOldOnAnInvalidOne(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	write := func(body string) {
		t.Helper()
		if err := os.WriteFile(path, []byte("apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\n"+body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	firstKey := func(tr *Transformers) string {
		t.Helper()
		out, err := tr.TransformerFor("", "secrets").ToStorage(context.Background(), []byte("x"), nil)
		if err != nil {
			t.Fatal(err)
		}
		return strings.SplitN(string(out), ":", 6)[4]
	}
	write("resources:\n- resources: [secrets]\n  providers:\n  - aescbc: {keys: [{name: one, secret: AAECAwQFBgcICQoLDA0ODw==}]}\n")
	tr, err := Load(context.Background(), Options{ConfigFile: path, AutomaticReload: true})
	if err != nil {
		t.Fatal(err)
	}
	secrets := tr.TransformerFor("", "secrets") // held by a store for its life
	old, _ := secrets.ToStorage(context.Background(), []byte("x"), nil)

	if r := tr.Reload(context.Background()); r.Changed || r.Err != nil {
		t.Fatalf("an unchanged file: %+v", r)
	}
	write("resources:\n- resources: [secrets]\n  providers:\n  - aescbc: {keys: [{name: two, secret: AAECAwQFBgcICQoLDA0ODw==}, {name: one, secret: AAECAwQFBgcICQoLDA0ODw==}]}\n")
	if r := tr.Reload(context.Background()); !r.Changed || r.Err != nil {
		t.Fatalf("a new valid file: %+v", r)
	}
	if k := firstKey(tr); k != "two" {
		t.Fatalf("after reload the first key is %q", k)
	}
	// The transformer the store took before the reload follows it.
	if got, stale, err := secrets.FromStorage(context.Background(), old, nil); err != nil || !stale || string(got) != "x" {
		t.Fatalf("a value of the old first key: %q stale %v err %v", got, stale, err)
	}

	write("resources: []\n")
	r := tr.Reload(context.Background())
	if !r.Changed || r.Err == nil || r.Err.Error() != "error while parsing file: resources: Required value: at least one resources is required" {
		t.Fatalf("an invalid file: %+v", r)
	}
	if k := firstKey(tr); k != "two" {
		t.Fatalf("after an invalid file the first key is %q", k)
	}
	if hc := tr.HealthChecks(); len(hc) != 1 || hc[0].Name() != "kms-providers" {
		t.Fatalf("health checks with reload on: %v", hc)
	}
}

func TestNoHealthCheckWithoutReloadOrKMS(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte("apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [secrets]\n  providers:\n  - identity: {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tr, err := Load(context.Background(), Options{ConfigFile: path})
	if err != nil {
		t.Fatal(err)
	}
	if hc := tr.HealthChecks(); len(hc) != 0 {
		t.Fatalf("%d health checks", len(hc))
	}
}

// The reloads are counted as kube-apiserver counts them: last_config_info
// carries the sha256 of the file in use from the start (the oracle showed
// sha256sum of its file); a changed valid file is a success and moves it;
// an unchanged file is nothing; an invalid file is a failure at every
// look, as kube-apiserver retries it.
func TestReloadsAreCounted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	write := func(body string) string {
		t.Helper()
		content := "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\n" + body
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return content
	}
	sha := func(s string) string {
		sum := sha256.Sum256([]byte(s))
		return "sha256:" + hex.EncodeToString(sum[:])
	}
	reloads := NewReloadMetrics("apiserver-test")
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(reloads)
	server := sha("apiserver-test")
	info := func(content string) string {
		return fmt.Sprintf("apiserver_encryption_config_controller_last_config_info{apiserver_id_hash=%q,hash=%q}", server, sha(content))
	}
	count := func(status string) string {
		return fmt.Sprintf("apiserver_encryption_config_controller_automatic_reloads_total{apiserver_id_hash=%q,status=%q}", server, status)
	}
	expect := func(step string, want map[string]float64) {
		t.Helper()
		families, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]float64{}
		for _, f := range families {
			if strings.HasSuffix(f.GetName(), "_timestamp_seconds") {
				continue // when, not whether
			}
			for _, m := range f.GetMetric() {
				var labels []string
				for _, l := range m.GetLabel() {
					labels = append(labels, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
				}
				got[f.GetName()+"{"+strings.Join(labels, ",")+"}"] = m.GetCounter().GetValue() + m.GetGauge().GetValue()
			}
		}
		if !maps.Equal(got, want) {
			t.Errorf("%s: series %v, want %v", step, got, want)
		}
	}

	first := write("resources:\n- resources: [secrets]\n  providers:\n  - aescbc: {keys: [{name: one, secret: AAECAwQFBgcICQoLDA0ODw==}]}\n")
	tr, err := Load(context.Background(), Options{ConfigFile: path, AutomaticReload: true, Reloads: reloads})
	if err != nil {
		t.Fatal(err)
	}
	expect("at start", map[string]float64{info(first): 1})
	tr.Reload(context.Background())
	expect("unchanged", map[string]float64{info(first): 1})
	write("resources: []\n")
	tr.Reload(context.Background())
	tr.Reload(context.Background())
	expect("invalid", map[string]float64{info(first): 1, count("failure"): 2})
	second := write("resources:\n- resources: [secrets]\n  providers:\n  - identity: {}\n")
	tr.Reload(context.Background())
	expect("valid", map[string]float64{info(second): 1, count("failure"): 2, count("success"): 1})
}

// The retries of a failed reload wait as kube-apiserver's queue makes
// them wait: client-go's default controller rate limiter, asked once per
// failure of the same item and never told to forget it.
func TestReloadRetryDelaysAreKubeAPIServers(t *testing.T) {
	limiter := workqueue.DefaultTypedControllerRateLimiter[string]()
	for failures := range 40 {
		if got, want := reloadRetryDelay(failures), limiter.When("key"); got != want {
			t.Errorf("after %d failures: %v, kube-apiserver waits %v", failures, got, want)
		}
	}
}

// The reload controller retries an invalid file on that backoff, not
// only at its interval (an hour here): the failures are counted as
// kube-apiserver counts them, several before the interval has passed
// once, and a file made valid is taken at the next retry.
func TestAFailedReloadIsRetriedOnTheBackoff(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	write := func(body string) {
		t.Helper()
		if err := os.WriteFile(path, []byte("apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\n"+body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	reloads := NewReloadMetrics("apiserver-test")
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(reloads)
	count := func(status string) float64 {
		t.Helper()
		families, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range families {
			if f.GetName() != "apiserver_encryption_config_controller_automatic_reloads_total" {
				continue
			}
			for _, m := range f.GetMetric() {
				for _, l := range m.GetLabel() {
					if l.GetName() == "status" && l.GetValue() == status {
						return m.GetCounter().GetValue()
					}
				}
			}
		}
		return 0
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("%s: never happened (failures %v, successes %v)", what, count("failure"), count("success"))
			}
			time.Sleep(10 * time.Millisecond)
		}
	}

	write("resources:\n- resources: [secrets]\n  providers:\n  - identity: {}\n")
	tr, err := Load(context.Background(), Options{ConfigFile: path, AutomaticReload: true, Reloads: reloads})
	if err != nil {
		t.Fatal(err)
	}
	write("resources: []\n")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tr.RunReload(ctx, time.Hour, slog.New(slog.DiscardHandler))
	}()
	defer func() { cancel(); <-done }()
	// 5+10+20+40+80+160+320 ms of retries after the first look.
	waitFor("eight failures within the first interval", func() bool { return count("failure") >= 8 })
	write("resources:\n- resources: [secrets]\n  providers:\n  - aescbc: {keys: [{name: one, secret: AAECAwQFBgcICQoLDA0ODw==}]}\n")
	waitFor("the valid file taken at a retry", func() bool { return count("success") == 1 })
}

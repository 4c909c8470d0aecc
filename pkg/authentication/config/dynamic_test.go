package config

import (
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kapi-dev/kapi/pkg/metrics"
)

const header = "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\n"

func anonymousAt(d *Dynamic, path string) bool {
	_, ok, _ := d.Anonymous().AuthenticateRequest(httptest.NewRequest("GET", path, nil))
	return ok
}

// jwtFor is a jwt section of one issuer, for audience aud.
func jwtFor(aud string) string {
	return "jwt:\n- issuer: {url: https://issuer.example, audiences: [" + aud + "]}\n  claimMappings: {username: {claim: sub, prefix: \"\"}}\n"
}

// tokensFor is how many JWT authenticators are in force.
func tokensFor(d *Dynamic) int { return len(d.state.Load().tokens) }

func TestReloadReplacesAValidConfigurationAndKeepsTheOldOnAnInvalidOne(t *testing.T) {
	anonymousSection := "anonymous:\n  enabled: true\n  conditions: [{path: /livez}]\n"
	path := write(t, header+anonymousSection)
	d, err := NewDynamic(path, true, false, slog.New(slog.DiscardHandler), Metrics{})
	if err != nil {
		t.Fatal(err)
	}
	if !anonymousAt(d, "/livez") || anonymousAt(d, "/api") || tokensFor(d) != 0 {
		t.Fatal("the configuration is not in force")
	}
	os.WriteFile(path, []byte(header+jwtFor("a")+anonymousSection), 0o600)
	if err := d.Reload(); err != nil {
		t.Fatal(err)
	}
	if tokensFor(d) != 1 || !anonymousAt(d, "/livez") {
		t.Fatal("the new issuer is not in force")
	}
	os.WriteFile(path, []byte(header+jwtFor("a")+"anonymous:\n  enabled: true\n  bogus: 1\n"), 0o600)
	if err := d.Reload(); err == nil {
		t.Fatal("an invalid file was accepted")
	}
	// kube-apiserver refuses a reload that changes the anonymous
	// section, removing it included.
	for _, changed := range []string{"anonymous:\n  enabled: false\n", ""} {
		os.WriteFile(path, []byte(header+changed), 0o600)
		if err := d.Reload(); !errors.Is(err, ErrAnonymousChanged) {
			t.Errorf("anonymous section %q: %v, want %v", changed, err, ErrAnonymousChanged)
		}
		if tokensFor(d) != 1 || !anonymousAt(d, "/livez") || anonymousAt(d, "/api") {
			t.Fatal("a refused file changed the configuration in force")
		}
	}
}

// Without an anonymous section, --anonymous-auth decides.
func TestAnonymousFlagDecidesWithoutASection(t *testing.T) {
	for _, flag := range []bool{true, false} {
		d, err := NewDynamic(write(t, header), flag, false, slog.New(slog.DiscardHandler), Metrics{})
		if err != nil {
			t.Fatal(err)
		}
		if got := anonymousAt(d, "/api"); got != flag {
			t.Errorf("--anonymous-auth=%v: anonymous /api %v", flag, got)
		}
	}
}

// Recorded in conflict-anonymous.txt.
func TestAnonymousFlagConflictsWithTheSection(t *testing.T) {
	path := write(t, header+"anonymous:\n  enabled: true\n")
	_, err := NewDynamic(path, true, true, slog.New(slog.DiscardHandler), Metrics{})
	if !errors.Is(err, ErrAnonymousFlagConflict) || err.Error() != recordedError(t, "conflict-anonymous.txt") {
		t.Errorf("got %v, want %s", err, recordedError(t, "conflict-anonymous.txt"))
	}
}

// The reloads of the file are counted as kube-apiserver 1.37 counts them
// (seen on the oracle with --authentication-config: an invalid file is
// one failure however long it stays, a valid change one success, and
// last_config_info carries the sha256 of the file in force, from the
// start).
func TestReloadsAreCountedAsKubeAPIServerCountsThem(t *testing.T) {
	first := header + jwtFor("a")
	path := write(t, first)
	reloads := NewReloadMetrics("apiserver-test")
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(reloads)
	d, err := NewDynamic(path, true, false, slog.New(slog.DiscardHandler), Metrics{Reloads: reloads})
	if err != nil {
		t.Fatal(err)
	}
	server := metrics.Hash("apiserver-test")
	info := func(content string) string {
		return fmt.Sprintf("apiserver_authentication_config_controller_last_config_info{apiserver_id_hash=%q,hash=%q}", server, metrics.Hash(content))
	}
	count := func(status string) string {
		return fmt.Sprintf("apiserver_authentication_config_controller_automatic_reloads_total{apiserver_id_hash=%q,status=%q}", server, status)
	}
	expect := func(step string, want map[string]float64) {
		t.Helper()
		got := gather(t, reg)
		for k := range got {
			if strings.Contains(k, "_timestamp_seconds") {
				delete(got, k) // when, not whether
			}
		}
		if !maps.Equal(got, want) {
			t.Errorf("%s: series %v, want %v", step, got, want)
		}
	}
	expect("at start", map[string]float64{info(first): 1})

	if err := d.Reload(); err != nil {
		t.Fatal(err)
	}
	expect("unchanged", map[string]float64{info(first): 1})

	os.WriteFile(path, []byte(header+"bogus: 1\n"), 0o600)
	if err := d.Reload(); err == nil {
		t.Fatal("an invalid file was accepted")
	}
	if err := d.Reload(); err != nil {
		t.Errorf("an invalid file was looked at twice: %v", err)
	}
	expect("invalid", map[string]float64{info(first): 1, count("failure"): 1})

	second := header + jwtFor("b")
	os.WriteFile(path, []byte(second), 0o600)
	if err := d.Reload(); err != nil {
		t.Fatal(err)
	}
	expect("valid", map[string]float64{info(second): 1, count("failure"): 1, count("success"): 1})

	// A file that cannot be read may come back: each look is a failure.
	os.Remove(path)
	d.Reload()
	d.Reload()
	expect("unreadable", map[string]float64{info(second): 1, count("failure"): 3, count("success"): 1})
}

// gather returns every series of reg as name{labels} -> value.
func gather(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
			}
			v := m.GetCounter().GetValue() + m.GetGauge().GetValue()
			out[f.GetName()+"{"+strings.Join(labels, ",")+"}"] = v
		}
	}
	return out
}

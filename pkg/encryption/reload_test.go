package encryption

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
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

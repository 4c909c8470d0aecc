package encryption

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/kmstest"
	"github.com/kapi-dev/kapi/pkg/storage/storagebackend"
	"github.com/kapi-dev/kapi/pkg/storage/value"
	"github.com/kapi-dev/kapi/pkg/storage/value/encrypt/kmsv2"
)

// oracleSecrets is testdata/oracle/secrets.json: Secrets that kube-apiserver
// 1.37.1 wrote to etcd with aescbc, aesgcm, secretbox and identity first,
// as etcd held them, and as the oracle served them.
type oracleSecrets struct {
	Keys    map[string]struct{ Name, Secret string }
	Objects []struct {
		Provider string
		EtcdKey  string
		Value    string
		Object   corev1.Secret
	}
}

func readOracleSecrets(t *testing.T) oracleSecrets {
	t.Helper()
	data, err := os.ReadFile("testdata/oracle/secrets.json")
	if err != nil {
		t.Fatal(err)
	}
	var o oracleSecrets
	if err := json.Unmarshal(data, &o); err != nil {
		t.Fatal(err)
	}
	if len(o.Objects) != 4 {
		t.Fatalf("%d recorded secrets, want 4", len(o.Objects))
	}
	return o
}

// configWith writes a configuration for secrets with the recorded keys,
// providers in the order given.
func configWith(t *testing.T, o oracleSecrets, order ...string) string {
	t.Helper()
	cfg := "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [secrets]\n  providers:\n"
	for _, p := range order {
		if p == "identity" {
			cfg += "  - identity: {}\n"
			continue
		}
		k := o.Keys[p]
		cfg += fmt.Sprintf("  - %s: {keys: [{name: %s, secret: %q}]}\n", p, k.Name, k.Secret)
	}
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestKubeAPIServersEncryptedSecretsDecryptToTheSecretItServed(t *testing.T) {
	o := readOracleSecrets(t)
	tr, err := Load(context.Background(), Options{ConfigFile: configWith(t, o, "aescbc", "aesgcm", "secretbox", "identity")})
	if err != nil {
		t.Fatal(err)
	}
	secrets := tr.TransformerFor("", "secrets")
	codec := storagebackend.ProtobufCodec(schema.GroupVersion{Version: "v1"})
	for _, rec := range o.Objects {
		stored, err := base64.StdEncoding.DecodeString(rec.Value)
		if err != nil {
			t.Fatal(err)
		}
		wantPrefix := "k8s:enc:" + rec.Provider + ":v1:"
		if rec.Provider == "identity" {
			wantPrefix = "k8s\x00"
		}
		if !bytes.HasPrefix(stored, []byte(wantPrefix)) {
			t.Fatalf("%s: recorded value starts %q", rec.Provider, stored[:20])
		}
		plain, stale, err := secrets.FromStorage(context.Background(), stored, []byte(rec.EtcdKey))
		if err != nil {
			t.Fatalf("%s: %v", rec.Provider, err)
		}
		if wantStale := rec.Provider != "aescbc"; stale != wantStale {
			t.Errorf("%s: stale %v with aescbc first", rec.Provider, stale)
		}
		var got corev1.Secret
		if _, _, err := codec.Decode(plain, nil, &got); err != nil {
			t.Fatalf("%s: %v", rec.Provider, err)
		}
		want := rec.Object
		if got.Name != want.Name || got.Namespace != want.Namespace || got.UID != want.UID ||
			!got.CreationTimestamp.Equal(&want.CreationTimestamp) || got.Type != want.Type ||
			len(got.Data) != 2 || !bytes.Equal(got.Data["password"], want.Data["password"]) || !bytes.Equal(got.Data["user"], want.Data["user"]) {
			t.Errorf("%s: decrypted %+v\nthe oracle served %+v", rec.Provider, got, want)
		}
		if string(got.Data["password"]) != "hunter2" {
			t.Errorf("%s: password %q", rec.Provider, got.Data["password"])
		}
		// aesgcm binds the value to its key, as kube-apiserver does: at
		// another key it does not decrypt.
		if rec.Provider == "aesgcm" {
			if _, _, err := secrets.FromStorage(context.Background(), stored, []byte(rec.EtcdKey+"x")); err == nil {
				t.Error("kube-apiserver's aesgcm value decrypted at another etcd key")
			}
		}
	}
}

func TestKubeAPIServersValuesNeedTheirProvider(t *testing.T) {
	o := readOracleSecrets(t)
	// Only aesgcm configured: the aescbc value has no provider, the plain
	// one no identity.
	tr, err := Load(context.Background(), Options{ConfigFile: configWith(t, o, "aesgcm")})
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range o.Objects {
		stored, _ := base64.StdEncoding.DecodeString(rec.Value)
		_, _, err := tr.TransformerFor("", "secrets").FromStorage(context.Background(), stored, []byte(rec.EtcdKey))
		if (err == nil) != (rec.Provider == "aesgcm") {
			t.Errorf("%s read with aesgcm alone: %v", rec.Provider, err)
		}
		if rec.Provider != "aesgcm" && err.Error() != "no matching prefix found" {
			t.Errorf("%s: %v", rec.Provider, err)
		}
	}
}

// testdata/oracle/secret-kmsv2.json: a Secret kube-apiserver 1.37.1 wrote
// through a KMS v2 plugin (kapi's fake, with a known key). kapi, given the
// same plugin, decrypts it to the Secret the oracle served.
func TestKubeAPIServersKMSv2SecretDecrypts(t *testing.T) {
	data, err := os.ReadFile("testdata/oracle/secret-kmsv2.json")
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Config, PluginKeyID, PluginKey, EtcdKey, Value string
		Object                                         corev1.Secret
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	plugin := kmstest.Start(t)
	key, _ := base64.StdEncoding.DecodeString(rec.PluginKey)
	plugin.SetKey(rec.PluginKeyID, key, true)
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(rec.Config, "unix:///tmp/kapi-kms.sock", plugin.Endpoint)), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tr, err := Load(ctx, Options{ConfigFile: path, DialKMS: func(ctx context.Context, c *KMSConfiguration) (value.Transformer, func(context.Context) error, error) {
		p, err := kmsv2.Dial(ctx, c.Name, c.Endpoint, c.Timeout.Duration, nil)
		if err != nil {
			return nil, nil, err
		}
		return p, p.Check, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	stored, _ := base64.StdEncoding.DecodeString(rec.Value)
	if !bytes.HasPrefix(stored, []byte("k8s:enc:kms:v2:fake:")) {
		t.Fatalf("recorded value starts %q", stored[:20])
	}
	plain, stale, err := tr.TransformerFor("", "secrets").FromStorage(ctx, stored, []byte(rec.EtcdKey))
	if err != nil {
		t.Fatal(err)
	}
	if stale {
		t.Error("stale, though the plugin's key ID is the one it was written with")
	}
	var got corev1.Secret
	if _, _, err := storagebackend.ProtobufCodec(schema.GroupVersion{Version: "v1"}).Decode(plain, nil, &got); err != nil {
		t.Fatal(err)
	}
	if got.UID != rec.Object.UID || string(got.Data["password"]) != "hunter2" || string(got.Data["user"]) != "admin" {
		t.Fatalf("decrypted %+v", got)
	}
	if n := plugin.Decrypts.Load(); n != 1 {
		t.Errorf("%d Decrypt calls", n)
	}
}

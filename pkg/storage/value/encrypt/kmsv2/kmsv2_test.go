package kmsv2

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kapi-dev/kapi/internal/kmstest"
	"github.com/kapi-dev/kapi/pkg/storage/value"
)

func dial(t *testing.T, plugin *kmstest.Plugin) *Provider {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	p, err := Dial(ctx, "fake", plugin.Endpoint, 3*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestKMSv2RoundTripWithOneSeedPerPluginKey(t *testing.T) {
	plugin := kmstest.Start(t)
	p := dial(t, plugin)
	ctx := context.Background()
	key := []byte("/registry/secrets/ns/a")
	var stored [][]byte
	for i := 0; i < 5; i++ {
		out, err := p.ToStorage(ctx, []byte("plain value"), key)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(out, []byte("plain value")) {
			t.Fatal("the value is stored in the clear")
		}
		stored = append(stored, out)
	}
	// One seed for every write: the plugin encrypted once.
	if n := plugin.Encrypts.Load(); n != 1 {
		t.Fatalf("%d Encrypt calls for 5 writes", n)
	}
	for _, s := range stored {
		got, stale, err := p.FromStorage(ctx, s, key)
		if err != nil || stale || string(got) != "plain value" {
			t.Fatalf("read %q stale %v err %v", got, stale, err)
		}
	}
	// The writer knows its seed: reading needs no Decrypt.
	if n := plugin.Decrypts.Load(); n != 0 {
		t.Fatalf("%d Decrypt calls", n)
	}
	// Another server (a fresh provider) decrypts the seed once, then
	// reads from its cache.
	other := dial(t, plugin)
	for _, s := range stored {
		if got, _, err := other.FromStorage(ctx, s, key); err != nil || string(got) != "plain value" {
			t.Fatalf("another provider read %q: %v", got, err)
		}
	}
	if n := plugin.Decrypts.Load(); n != 1 {
		t.Fatalf("%d Decrypt calls for one seed", n)
	}
	// The etcd key is authenticated.
	if _, _, err := p.FromStorage(ctx, stored[0], []byte("/registry/secrets/ns/b")); err == nil {
		t.Fatal("a value moved to another key decrypted")
	}
}

// The stored format is kube-apiserver's: an EncryptedObject whose data is
// info(32) + nonce(12) + AES-GCM(HKDF-SHA256-Expand(seed, info)). Decoded
// here with protowire's reader and the standard library, from the seed the
// plugin holds.
func TestKMSv2StoredFormat(t *testing.T) {
	plugin := kmstest.Start(t)
	p := dial(t, plugin)
	key := []byte("/registry/secrets/ns/a")
	out, err := p.ToStorage(context.Background(), []byte("v"), key)
	if err != nil {
		t.Fatal(err)
	}
	o, err := unmarshal(out)
	if err != nil {
		t.Fatal(err)
	}
	if o.keyID != "key-1" || o.sourceType != sourceHKDFSeed || string(o.annotations["kms.kapi.example.com"]) != "key-1" {
		t.Fatalf("object %+v", o)
	}
	seed := p.write.Load().seed
	dk, err := hkdf.Expand(sha256.New, seed, string(o.data[:32]), 32)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := aes.NewCipher(dk)
	gcm, _ := cipher.NewGCM(block)
	plain, err := gcm.Open(nil, o.data[32:44], o.data[44:], key)
	if err != nil || string(plain) != "v" {
		t.Fatalf("%q %v", plain, err)
	}
}

func TestKMSv2KeyRotationMakesANewSeedAndOldValuesStale(t *testing.T) {
	plugin := kmstest.Start(t)
	p := dial(t, plugin)
	ctx := context.Background()
	old, err := p.ToStorage(ctx, []byte("v"), nil)
	if err != nil {
		t.Fatal(err)
	}
	plugin.Rotate("key-2")
	p.mu.Lock()
	p.checked = time.Time{} // the next check asks the plugin
	p.mu.Unlock()
	if err := p.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if n := plugin.Encrypts.Load(); n != 2 {
		t.Fatalf("%d Encrypt calls after a key rotation, want 2", n)
	}
	fresh, _ := p.ToStorage(ctx, []byte("v"), nil)
	if o, _ := unmarshal(fresh); o.keyID != "key-2" {
		t.Fatalf("written under %q", o.keyID)
	}
	if _, stale, err := p.FromStorage(ctx, old, nil); err != nil || !stale {
		t.Fatalf("a value under the old key: stale %v err %v", stale, err)
	}
	if _, stale, err := p.FromStorage(ctx, fresh, nil); err != nil || stale {
		t.Fatalf("a value under the new key: stale %v err %v", stale, err)
	}
}

func TestKMSv2UnhealthyPlugin(t *testing.T) {
	plugin := kmstest.Start(t)
	plugin.SetHealthz("sick")
	p := dial(t, plugin)
	err := p.Check(context.Background())
	if err == nil || err.Error() != "kmsv2 Provider fake is not healthy, error: got unexpected healthz status: sick" {
		t.Fatalf("check: %v", err)
	}
	// As in kube-apiserver, a valid key ID still gets a seed: writes
	// work, the health check fails.
	if _, err := p.ToStorage(context.Background(), []byte("v"), nil); err != nil {
		t.Fatalf("write: %v", err)
	}

	// A plugin that is not there.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	gone, err := Dial(ctx, "gone", "unix:///nonexistent/kms.sock", 200*time.Millisecond, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := gone.Check(ctx); err == nil || !strings.HasPrefix(err.Error(), "failed to perform status section of the healthz check for KMS Provider gone, error: ") {
		t.Fatalf("check of a missing plugin: %v", err)
	}
	// Never a Status: no seed, no writes.
	if _, err := gone.ToStorage(ctx, []byte("v"), nil); err == nil || err.Error() != "got unexpected nil transformer" {
		t.Fatalf("write: %v", err)
	}
}

func TestKMSv2SeedExpiresWithoutAGoodStatus(t *testing.T) {
	plugin := kmstest.Start(t)
	p := dial(t, plugin)
	now := time.Now()
	p.now = func() time.Time { return now.Add(writeSeedTTL + time.Second) }
	if _, err := p.ToStorage(context.Background(), []byte("v"), nil); err == nil || !strings.Contains(err.Error(), "expired at") {
		t.Fatalf("a write 3 minutes after the last good Status: %v", err)
	}
}

func TestEncryptedObjectValidation(t *testing.T) {
	good := encryptedObject{data: []byte{1}, keyID: "k", dekSource: []byte{1}, sourceType: 1}
	for name, c := range map[string]struct {
		mod  func(o *encryptedObject)
		want string
	}{
		"unknown source type": {func(o *encryptedObject) { o.sourceType = 7 }, "unknown encryptedDEKSourceType: 7"},
		"no data":             {func(o *encryptedObject) { o.data = nil }, "encrypted data is empty"},
		"no DEK":              {func(o *encryptedObject) { o.dekSource = nil }, "failed to validate encrypted DEK source: encrypted DEK source is empty"},
		"no key ID":           {func(o *encryptedObject) { o.keyID = "" }, "failed to validate key id: keyID is empty"},
		"long key ID":         {func(o *encryptedObject) { o.keyID = strings.Repeat("k", 1025) }, "failed to validate key id: keyID is 1025 bytes, which exceeds the max size of 1024"},
		"bad annotation":      {func(o *encryptedObject) { o.annotations = map[string][]byte{"nodot": nil} }, "failed to validate annotations"},
	} {
		o := good
		c.mod(&o)
		_, err := unmarshal(o.marshal())
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	if _, err := unmarshal([]byte{0xff, 0xff}); err == nil {
		t.Error("garbage unmarshalled")
	}
}

// A read whose seed the provider must ask the plugin to decrypt is a
// cache miss of apiserver_storage_envelope_transformation_cache_misses_total;
// the reads after it are not.
func TestCacheMissesAreCounted(t *testing.T) {
	plugin := kmstest.Start(t)
	ctx := context.Background()
	writer := dial(t, plugin)
	key := []byte("/registry/secrets/ns/a")
	stored, err := writer.ToStorage(ctx, []byte("plain value"), key)
	if err != nil {
		t.Fatal(err)
	}
	m := value.NewMetrics("apiserver-test")
	dctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	reader, err := Dial(dctx, "fake", plugin.Endpoint, 3*time.Second, m)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, _, err := reader.FromStorage(ctx, stored, key); err != nil {
			t.Fatal(err)
		}
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(m)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range families {
		if mf.GetName() == "apiserver_storage_envelope_transformation_cache_misses_total" {
			if got := mf.GetMetric()[0].GetCounter().GetValue(); got != 1 {
				t.Errorf("%v cache misses for three reads of one value, want 1", got)
			}
			return
		}
	}
	t.Error("no apiserver_storage_envelope_transformation_cache_misses_total")
}

// Every write and every read counts the plugin key it used, and every
// Status answer the key it names, by the key ID's sha256 (kube-apiserver's
// apiserver_envelope_encryption_key_id_hash_* families); a Status answer
// with an empty key ID is counted as invalid, "empty" (as the oracle
// counted its fake plugin's).
func TestKeyIDsAreCountedByTheirHash(t *testing.T) {
	plugin := kmstest.Start(t)
	ctx := context.Background()
	m := value.NewMetrics("apiserver-test")
	dctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	p, err := Dial(dctx, "fake", plugin.Endpoint, 3*time.Second, m)
	if err != nil {
		t.Fatal(err)
	}
	key := []byte("/registry/secrets/ns/a")
	var stored []byte
	for range 2 {
		if stored, err = p.ToStorage(ctx, []byte("plain value"), key); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := p.FromStorage(ctx, stored, key); err != nil {
		t.Fatal(err)
	}
	plugin.Rotate("")
	if err := p.check(ctx); err == nil {
		t.Error("an empty key ID is healthy")
	}
	plugin.Rotate("key-2")
	if err := p.check(ctx); err != nil {
		t.Fatal(err)
	}

	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(m)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, mf := range families {
		if !strings.HasPrefix(mf.GetName(), "apiserver_envelope_encryption_") || !strings.Contains(mf.GetName(), "key_id") {
			continue
		}
		for _, s := range mf.GetMetric() {
			var labels []string
			for _, l := range s.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			v := s.GetCounter().GetValue()
			if s.GetGauge().GetValue() != 0 {
				v = 1 // a time: set, whenever
			}
			got[mf.GetName()+"{"+strings.Join(labels, ",")+"}"] = v
		}
	}
	server, key1, key2 := hash("apiserver-test"), hash("key-1"), hash("key-2")
	want := map[string]float64{
		"apiserver_envelope_encryption_key_id_hash_total{apiserver_id_hash=" + server + ",key_id_hash=" + key1 + ",provider_name=fake,transformation_type=to_storage}":                    2,
		"apiserver_envelope_encryption_key_id_hash_total{apiserver_id_hash=" + server + ",key_id_hash=" + key1 + ",provider_name=fake,transformation_type=from_storage}":                  1,
		"apiserver_envelope_encryption_key_id_hash_last_timestamp_seconds{apiserver_id_hash=" + server + ",key_id_hash=" + key1 + ",provider_name=fake,transformation_type=to_storage}":   1,
		"apiserver_envelope_encryption_key_id_hash_last_timestamp_seconds{apiserver_id_hash=" + server + ",key_id_hash=" + key1 + ",provider_name=fake,transformation_type=from_storage}": 1,
		"apiserver_envelope_encryption_key_id_hash_status_last_timestamp_seconds{apiserver_id_hash=" + server + ",key_id_hash=" + key1 + ",provider_name=fake}":                           1,
		"apiserver_envelope_encryption_key_id_hash_status_last_timestamp_seconds{apiserver_id_hash=" + server + ",key_id_hash=" + key2 + ",provider_name=fake}":                           1,
		"apiserver_envelope_encryption_invalid_key_id_from_status_total{error=empty,provider_name=fake}":                                                                                  1,
	}
	if !maps.Equal(got, want) {
		t.Errorf("series\n%v\nwant\n%v", got, want)
	}
}

// hash is sha256 in kube-apiserver's label form, computed apart from the
// code under test.
func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Every call of the plugin is timed by its gRPC method and code, and the
// size of the read cache is the number of data-key sources decrypted, as
// kube-apiserver's apiserver_envelope_encryption_kms_operations_latency_seconds
// and _dek_source_cache_size have them.
func TestPluginCallsAndTheReadCacheAreMeasured(t *testing.T) {
	plugin := kmstest.Start(t)
	ctx := context.Background()
	writer := dial(t, plugin)
	key := []byte("/registry/secrets/ns/a")
	stored, err := writer.ToStorage(ctx, []byte("plain value"), key)
	if err != nil {
		t.Fatal(err)
	}
	m := value.NewMetrics("apiserver-test")
	dctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	reader, err := Dial(dctx, "fake", plugin.Endpoint, 3*time.Second, m) // Status, then Encrypt of its seed
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := reader.FromStorage(ctx, stored, key); err != nil { // Decrypt of the writer's seed
		t.Fatal(err)
	}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(m)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, mf := range families {
		for _, s := range mf.GetMetric() {
			var labels []string
			for _, l := range s.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			name := mf.GetName() + "{" + strings.Join(labels, ",") + "}"
			switch mf.GetName() {
			case "apiserver_envelope_encryption_kms_operations_latency_seconds":
				got[name] = float64(s.GetHistogram().GetSampleCount())
			case "apiserver_envelope_encryption_dek_source_cache_size":
				got[name] = s.GetGauge().GetValue()
			}
		}
	}
	want := map[string]float64{
		"apiserver_envelope_encryption_kms_operations_latency_seconds{grpc_status_code=OK,method_name=/v2.KeyManagementService/Status,provider_name=fake}":  1,
		"apiserver_envelope_encryption_kms_operations_latency_seconds{grpc_status_code=OK,method_name=/v2.KeyManagementService/Encrypt,provider_name=fake}": 1,
		"apiserver_envelope_encryption_kms_operations_latency_seconds{grpc_status_code=OK,method_name=/v2.KeyManagementService/Decrypt,provider_name=fake}": 1,
		// The reader's own seed and the writer's.
		"apiserver_envelope_encryption_dek_source_cache_size{provider_name=fake}": 2,
	}
	if !maps.Equal(got, want) {
		t.Errorf("series\n%v\nwant\n%v", got, want)
	}
}

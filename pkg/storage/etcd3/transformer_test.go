package etcd3_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/kmstest"
	"github.com/kapi-dev/kapi/pkg/storage"
	"github.com/kapi-dev/kapi/pkg/storage/etcd3"
	"github.com/kapi-dev/kapi/pkg/storage/value"
	"github.com/kapi-dev/kapi/pkg/storage/value/encrypt/aes"
	"github.com/kapi-dev/kapi/pkg/storage/value/encrypt/identity"
	"github.com/kapi-dev/kapi/pkg/storage/value/encrypt/kmsv2"
	"github.com/kapi-dev/kapi/pkg/storage/value/encrypt/secretbox"
)

var secrets = schema.GroupResource{Resource: "secrets"}

func newSecret() runtime.Object     { return &corev1.Secret{} }
func newSecretList() runtime.Object { return &corev1.SecretList{} }

func aescbcFirst(tb testing.TB, keys ...byte) value.Transformer {
	var ks []value.Prefixed
	for _, k := range keys {
		t, err := aes.NewCBC(bytes.Repeat([]byte{k}, 32))
		if err != nil {
			tb.Fatal(err)
		}
		ks = append(ks, value.Prefixed{Prefix: []byte(fmt.Sprintf("k%d:", k)), Transformer: t})
	}
	return value.NewRouter(errors.New("no matching prefix found"),
		value.Prefixed{Prefix: []byte("k8s:enc:aescbc:v1:"), Transformer: value.NewRouter(errors.New("no key"), ks...)},
		value.Prefixed{Prefix: []byte{}, Transformer: identity.Transformer})
}

// An update that changes nothing still writes a value read with an old
// key, re-encrypting it with the first: that is key rotation. A value
// already under the first key is not written again.
func TestAnUnchangedUpdateRewritesOnlyStaleValues(t *testing.T) {
	ctx := context.Background()
	prefix := fmt.Sprintf("/test%d/registry", prefixes.Add(1))
	old := etcd3.NewWithTransformer(shared.Client(), codec, newSecret, newSecretList, prefix, secrets, aescbcFirst(t, 1))
	out := &corev1.Secret{}
	if err := old.Create(ctx, "/secrets/ns/s", &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns"}, Data: map[string][]byte{"k": []byte("v")}}, out); err != nil {
		t.Fatal(err)
	}
	raw := func() []byte {
		resp, err := shared.Client().Get(ctx, prefix+"/secrets/ns/s")
		if err != nil || len(resp.Kvs) != 1 {
			t.Fatal(resp, err)
		}
		return resp.Kvs[0].Value
	}
	if !bytes.HasPrefix(raw(), []byte("k8s:enc:aescbc:v1:k1:")) {
		t.Fatalf("stored %q", raw()[:24])
	}
	rotated := etcd3.NewWithTransformer(shared.Client(), codec, newSecret, newSecretList, prefix, secrets, aescbcFirst(t, 2, 1))
	unchanged := func(in runtime.Object, _ storage.ResponseMeta) (runtime.Object, error) { return in, nil }
	before := out.ResourceVersion
	if err := rotated.GuaranteedUpdate(ctx, "/secrets/ns/s", &corev1.Secret{}, false, nil, unchanged); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(raw(), []byte("k8s:enc:aescbc:v1:k2:")) {
		t.Fatalf("after an unchanged update of a stale value, stored %q", raw()[:24])
	}
	got := &corev1.Secret{}
	if err := rotated.Get(ctx, "/secrets/ns/s", storage.GetOptions{}, got); err != nil || got.ResourceVersion == before || string(got.Data["k"]) != "v" {
		t.Fatalf("%v %v", got, err)
	}
	again := &corev1.Secret{}
	if err := rotated.GuaranteedUpdate(ctx, "/secrets/ns/s", again, false, nil, unchanged); err != nil {
		t.Fatal(err)
	}
	if again.ResourceVersion != got.ResourceVersion {
		t.Fatalf("an unchanged update of a current value wrote: %s -> %s", got.ResourceVersion, again.ResourceVersion)
	}
	// A store without the key cannot read the value: an error, not garbage.
	other := etcd3.NewWithTransformer(shared.Client(), codec, newSecret, newSecretList, prefix, secrets, aescbcFirst(t, 3))
	err := other.Get(ctx, "/secrets/ns/s", storage.GetOptions{}, &corev1.Secret{})
	if !storage.IsCorruptObj(err) {
		t.Fatalf("read without the key: %v", err)
	}
}

// BenchmarkSecretCreateGet is the secret create and get path of the etcd
// store on embedded etcd, plain and with each provider first. The
// transformers' own cost is BenchmarkTransform.
func BenchmarkSecretCreateGet(b *testing.B) {
	for _, c := range benchTransformers(b) {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			prefix := fmt.Sprintf("/bench%d/registry", prefixes.Add(1))
			s := etcd3.NewWithTransformer(shared.Client(), codec, newSecret, newSecretList, prefix, secrets, c.t)
			secret := &corev1.Secret{Data: map[string][]byte{"tls.key": bytes.Repeat([]byte("k"), 1024)}}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				in := secret.DeepCopy()
				in.Name, in.Namespace = fmt.Sprintf("s%d", i), "ns"
				key := "/secrets/ns/" + in.Name
				if err := s.Create(ctx, key, in, &corev1.Secret{}); err != nil {
					b.Fatal(err)
				}
				if err := s.Get(ctx, key, storage.GetOptions{}, &corev1.Secret{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTransform is one write and one read of a 1.2 kB value.
func BenchmarkTransform(b *testing.B) {
	data := bytes.Repeat([]byte("v"), 1200)
	key := []byte("/registry/secrets/ns/name")
	for _, c := range benchTransformers(b) {
		if c.t == nil {
			continue
		}
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				out, err := c.t.ToStorage(ctx, data, key)
				if err != nil {
					b.Fatal(err)
				}
				if _, _, err := c.t.FromStorage(ctx, out, key); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func benchTransformers(b *testing.B) []struct {
	name string
	t    value.Transformer
} {
	k := bytes.Repeat([]byte{9}, 32)
	cbc, _ := aes.NewCBC(k)
	gcm, _ := aes.NewGCM(k)
	box, _ := secretbox.New(k)
	plugin := kmstest.Start(b)
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	kms, err := kmsv2.Dial(ctx, "bench", plugin.Endpoint, 3*time.Second, nil)
	if err != nil {
		b.Fatal(err)
	}
	prefixed := func(p string, t value.Transformer) value.Transformer {
		return value.NewRouter(errors.New("no matching prefix found"), value.Prefixed{Prefix: []byte(p), Transformer: t})
	}
	return []struct {
		name string
		t    value.Transformer
	}{
		{"none", nil},
		{"identity", prefixed("", identity.Transformer)},
		{"aescbc", prefixed("k8s:enc:aescbc:v1:k:", cbc)},
		{"aesgcm", prefixed("k8s:enc:aesgcm:v1:k:", gcm)},
		{"secretbox", prefixed("k8s:enc:secretbox:v1:k:", box)},
		{"kmsv2", prefixed("k8s:enc:kms:v2:bench:", kms)},
	}
}

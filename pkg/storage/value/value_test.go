package value_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/kapi-dev/kapi/pkg/storage/value"
	"github.com/kapi-dev/kapi/pkg/storage/value/encrypt/aes"
	"github.com/kapi-dev/kapi/pkg/storage/value/encrypt/identity"
	"github.com/kapi-dev/kapi/pkg/storage/value/encrypt/secretbox"
)

func key(b byte, n int) []byte { return bytes.Repeat([]byte{b}, n) }

// must is for keys the test knows to be valid.
func must(tr value.Transformer, err error) value.Transformer {
	if err != nil {
		panic(err)
	}
	return tr
}

// The providers of the file, each with two keys, the way pkg/encryption
// builds them.
func providers(t *testing.T) map[string]value.Transformer {
	keyed := func(prefix string, newKey func([]byte) (value.Transformer, error), size int) value.Transformer {
		k1 := must(newKey(key(1, size)))
		k2 := must(newKey(key(2, size)))
		keys := value.NewRouter(errors.New("no key"), value.Prefixed{Prefix: []byte("k1:"), Transformer: k1}, value.Prefixed{Prefix: []byte("k2:"), Transformer: k2})
		return value.NewRouter(errors.New("no prefix"), value.Prefixed{Prefix: []byte(prefix), Transformer: keys})
	}
	return map[string]value.Transformer{
		"aescbc":    keyed("k8s:enc:aescbc:v1:", aes.NewCBC, 32),
		"aesgcm":    keyed("k8s:enc:aesgcm:v1:", aes.NewGCM, 32),
		"secretbox": keyed("k8s:enc:secretbox:v1:", secretbox.New, 32),
	}
}

func TestEveryProviderRoundTripsBehindItsPrefixAndFirstKey(t *testing.T) {
	ctx := context.Background()
	for name, tr := range providers(t) {
		for _, plain := range [][]byte{{}, []byte("k8s\x00secret"), bytes.Repeat([]byte("x"), 16), bytes.Repeat([]byte("y"), 10000)} {
			stored, err := tr.ToStorage(ctx, plain, []byte("/registry/secrets/ns/a"))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if want := "k8s:enc:" + name + ":v1:k1:"; !bytes.HasPrefix(stored, []byte(want)) {
				t.Fatalf("%s wrote %q, want prefix %q", name, stored[:min(len(stored), 30)], want)
			}
			if len(plain) > 4 && bytes.Contains(stored, plain) {
				t.Fatalf("%s stored the plain value", name)
			}
			got, stale, err := tr.FromStorage(ctx, stored, []byte("/registry/secrets/ns/a"))
			if err != nil || stale || !bytes.Equal(got, plain) {
				t.Fatalf("%s: read back %q, stale %v, err %v", name, got, stale, err)
			}
			again, _ := tr.ToStorage(ctx, plain, []byte("/registry/secrets/ns/a"))
			if bytes.Equal(again, stored) {
				t.Fatalf("%s wrote the same bytes twice: its IV or nonce is not random", name)
			}
		}
	}
}

func TestAReadWithAnotherThanTheFirstKeyIsStale(t *testing.T) {
	ctx := context.Background()
	for name, tr := range providers(t) {
		stored, _ := tr.ToStorage(ctx, []byte("value"), nil)
		// A value written when key 2 was first.
		k2only := keyedSecond(t, name)
		old, err := k2only.ToStorage(ctx, []byte("value"), nil)
		if err != nil {
			t.Fatal(err)
		}
		got, stale, err := tr.FromStorage(ctx, old, nil)
		if err != nil || !stale || string(got) != "value" {
			t.Fatalf("%s: value of the second key: %q stale %v err %v", name, got, stale, err)
		}
		if _, stale, _ := tr.FromStorage(ctx, stored, nil); stale {
			t.Fatalf("%s: the first key's value is stale", name)
		}
	}
}

// keyedSecond is provider name with key 2 first.
func keyedSecond(t *testing.T, name string) value.Transformer {
	newKey := map[string]func([]byte) (value.Transformer, error){"aescbc": aes.NewCBC, "aesgcm": aes.NewGCM, "secretbox": secretbox.New}[name]
	k2 := must(newKey(key(2, 32)))
	return value.NewRouter(errors.New("no prefix"), value.Prefixed{Prefix: []byte("k8s:enc:" + name + ":v1:k2:"), Transformer: k2})
}

func TestAWrongKeyIsAnErrorNotGarbage(t *testing.T) {
	ctx := context.Background()
	for name, newKey := range map[string]func([]byte) (value.Transformer, error){"aescbc": aes.NewCBC, "aesgcm": aes.NewGCM, "secretbox": secretbox.New} {
		right := must(newKey(key(7, 32)))
		wrong := must(newKey(key(8, 32)))
		// CBC cannot tell a wrong key from its padding alone every time
		// (1 in 256 garbage ends in a valid 0x01): try enough values
		// that a missing check would show, and accept only errors.
		errs := 0
		for i := 0; i < 50; i++ {
			stored, _ := right.ToStorage(ctx, []byte("a secret value of some length"), nil)
			got, _, err := wrong.FromStorage(ctx, stored, nil)
			if err == nil && string(got) == "a secret value of some length" {
				t.Fatalf("%s decrypted with the wrong key", name)
			}
			if err != nil {
				errs++
			}
		}
		if name != "aescbc" && errs != 50 {
			t.Fatalf("%s: %d of 50 wrong-key reads returned data instead of an error", name, 50-errs)
		}
		if errs < 40 {
			t.Fatalf("%s: only %d of 50 wrong-key reads failed", name, errs)
		}
	}
}

func TestAESGCMBindsTheValueToItsEtcdKey(t *testing.T) {
	ctx := context.Background()
	gcm := must(aes.NewGCM(key(3, 16)))
	stored, _ := gcm.ToStorage(ctx, []byte("v"), []byte("/registry/secrets/a/x"))
	if _, _, err := gcm.FromStorage(ctx, stored, []byte("/registry/secrets/b/x")); err == nil {
		t.Fatal("an aesgcm value moved to another key decrypted")
	}
	// aescbc and secretbox authenticate nothing but the value, as in
	// kube-apiserver: a moved value still reads.
	for _, tr := range []value.Transformer{must(aes.NewCBC(key(3, 24))), must(secretbox.New(key(3, 32)))} {
		stored, _ := tr.ToStorage(ctx, []byte("v"), []byte("/registry/secrets/a/x"))
		if got, _, err := tr.FromStorage(ctx, stored, []byte("/registry/secrets/b/x")); err != nil || string(got) != "v" {
			t.Fatalf("%T: %q %v", tr, got, err)
		}
	}
}

func TestKeySizes(t *testing.T) {
	for _, n := range []int{16, 24, 32} {
		if _, err := aes.NewCBC(key(1, n)); err != nil {
			t.Errorf("aescbc %d: %v", n, err)
		}
		if _, err := aes.NewGCM(key(1, n)); err != nil {
			t.Errorf("aesgcm %d: %v", n, err)
		}
	}
	for _, n := range []int{0, 15, 31, 33} {
		if _, err := aes.NewGCM(key(1, n)); err == nil {
			t.Errorf("aesgcm accepted a %d-byte key", n)
		}
	}
	for _, n := range []int{16, 24, 31, 33} {
		if _, err := secretbox.New(key(1, n)); err == nil {
			t.Errorf("secretbox accepted a %d-byte key", n)
		}
	}
}

func TestRouting(t *testing.T) {
	ctx := context.Background()
	cbc := must(aes.NewCBC(key(1, 32)))
	cbcKeys := value.NewRouter(errors.New("no matching key was found for the provided AES transformer"), value.Prefixed{Prefix: []byte("k1:"), Transformer: cbc})
	identityFirst := value.NewRouter(errors.New("no matching prefix found"),
		value.Prefixed{Prefix: []byte{}, Transformer: identity.Transformer},
		value.Prefixed{Prefix: []byte("k8s:enc:aescbc:v1:"), Transformer: cbcKeys})
	cbcFirst := value.NewRouter(errors.New("no matching prefix found"),
		value.Prefixed{Prefix: []byte("k8s:enc:aescbc:v1:"), Transformer: cbcKeys},
		value.Prefixed{Prefix: []byte{}, Transformer: identity.Transformer})
	cbcOnly := value.NewRouter(errors.New("no matching prefix found"),
		value.Prefixed{Prefix: []byte("k8s:enc:aescbc:v1:"), Transformer: cbcKeys})

	plain := []byte("k8s\x00plain")
	enc, _ := cbcFirst.ToStorage(ctx, plain, nil)

	for _, c := range []struct {
		name      string
		tr        value.Transformer
		data      []byte
		want      string
		wantStale bool
		wantErr   string
	}{
		{"identity first reads plain", identityFirst, plain, string(plain), false, ""},
		{"identity first reads aescbc, stale", identityFirst, enc, string(plain), true, ""},
		{"aescbc first reads plain through identity, stale", cbcFirst, plain, string(plain), true, ""},
		{"aescbc first reads aescbc", cbcFirst, enc, string(plain), false, ""},
		{"no identity: a plain value matches nothing", cbcOnly, plain, "", false, "no matching prefix found"},
		{"an unknown key name", cbcOnly, []byte("k8s:enc:aescbc:v1:k9:xxxxxxxxxxxxxxxx"), "", false, "no matching key was found for the provided AES transformer"},
		{"an unknown provider with identity last", cbcFirst, []byte("k8s:enc:secretbox:v1:k:xxxx"), "", false, "no matching prefix found"},
		{"identity never reads encrypted data", value.NewRouter(errors.New("no matching prefix found"), value.Prefixed{Prefix: []byte{}, Transformer: identity.Transformer}), enc, "", false, "no matching prefix found"},
	} {
		got, stale, err := c.tr.FromStorage(ctx, c.data, nil)
		if c.wantErr != "" {
			if err == nil || err.Error() != c.wantErr {
				t.Errorf("%s: error %v, want %q", c.name, err, c.wantErr)
			}
			continue
		}
		if err != nil || string(got) != c.want || stale != c.wantStale {
			t.Errorf("%s: %q stale %v err %v", c.name, got, stale, err)
		}
	}
	if _, _, err := identity.Transformer.FromStorage(ctx, enc, nil); err == nil || err.Error() != "identity transformer tried to read encrypted data" {
		t.Errorf("identity read encrypted data: %v", err)
	}
}

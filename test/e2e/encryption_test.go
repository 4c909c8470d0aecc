package e2e

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/internal/kmstest"
	"github.com/kapi-dev/kapi/pkg/storage/embedded"
	"github.com/kapi-dev/kapi/pkg/testserver"
)

// Keys of the tests, base64 as the file holds them.
var (
	encKey1 = bytes.Repeat([]byte{1}, 32)
	encKey2 = bytes.Repeat([]byte{2}, 32)
)

// startEtcd runs an etcd the test reads directly, served on loopback for
// kapi to use as --etcd-servers.
func startEtcd(t *testing.T) (*clientv3.Client, string) {
	t.Helper()
	e, err := embedded.Start(context.Background(), embedded.Config{DataDir: t.TempDir(), ClientURL: "http://127.0.0.1:0", UnsafeNoFsync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e.Client(), e.ClientURL()
}

func writeEncryptionConfig(t *testing.T, path, providers string) {
	t.Helper()
	cfg := "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [secrets]\n  providers:\n" + providers
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
}

func aescbcKeys(keys ...string) string {
	s := "  - aescbc:\n      keys:\n"
	for _, k := range keys {
		secret := map[string][]byte{"key1": encKey1, "key2": encKey2}[k]
		s += fmt.Sprintf("      - name: %s\n        secret: %s\n", k, base64.StdEncoding.EncodeToString(secret))
	}
	return s
}

func rawValue(t *testing.T, etcd *clientv3.Client, key string) []byte {
	t.Helper()
	resp, err := etcd.Get(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) != 1 {
		t.Fatalf("%s is not in etcd", key)
	}
	return resp.Kvs[0].Value
}

// decryptAESCBC reads kube-apiserver's aescbc format with nothing but the
// standard library, independently of kapi's transformers:
// "k8s:enc:aescbc:v1:<name>:" + IV + AES-CBC(PKCS#7-padded value).
func decryptAESCBC(t *testing.T, stored []byte, name string, key []byte) []byte {
	t.Helper()
	prefix := "k8s:enc:aescbc:v1:" + name + ":"
	if !bytes.HasPrefix(stored, []byte(prefix)) {
		t.Fatalf("stored value starts %q, want %q", stored[:min(len(stored), len(prefix))], prefix)
	}
	body := stored[len(prefix):]
	block, err := aes.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	if len(body) < 32 || len(body)%16 != 0 {
		t.Fatalf("aescbc body of %d bytes", len(body))
	}
	out := make([]byte, len(body)-16)
	cipher.NewCBCDecrypter(block, body[:16]).CryptBlocks(out, body[16:])
	pad := int(out[len(out)-1])
	if pad < 1 || pad > 16 {
		t.Fatalf("bad padding %d", pad)
	}
	return out[:len(out)-pad]
}

func decodeSecret(t *testing.T, data []byte) *corev1.Secret {
	t.Helper()
	s := &corev1.Secret{}
	if _, _, err := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme).Decode(data, nil, s); err != nil {
		t.Fatalf("decoding the decrypted value: %v", err)
	}
	return s
}

// TestEncryptionAtRestOfSecrets: with an aescbc key first, a Secret is
// stored encrypted in kube-apiserver's format (checked by decrypting etcd's
// raw value with the standard library) and is served as plain by get,
// list, watch and update; a ConfigMap, not named by the configuration,
// stays plain.
func TestEncryptionAtRestOfSecrets(t *testing.T) {
	etcd, etcdURL := startEtcd(t)
	cfgPath := filepath.Join(t.TempDir(), "encryption.yaml")
	writeEncryptionConfig(t, cfgPath, aescbcKeys("key1")+"  - identity: {}\n")
	s := testserver.Start(t, testserver.Options{EtcdServers: []string{etcdURL}, EncryptionProviderConfig: cfgPath})
	c := clientset(t, s.ClientConfig)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	secrets := c.CoreV1().Secrets("default")

	w, err := secrets.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	created, err := secrets.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "db"}, StringData: map[string]string{"password": "hunter2"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if string(created.Data["password"]) != "hunter2" {
		t.Fatalf("create returned %q", created.Data["password"])
	}

	stored := rawValue(t, etcd, "/registry/secrets/default/db")
	if bytes.Contains(stored, []byte("hunter2")) {
		t.Fatal("the password is in etcd in the clear")
	}
	plain := decryptAESCBC(t, stored, "key1", encKey1)
	if got := decodeSecret(t, plain); string(got.Data["password"]) != "hunter2" || got.UID != created.UID {
		t.Fatalf("etcd holds %+v", got)
	}

	got, err := secrets.Get(ctx, "db", metav1.GetOptions{})
	if err != nil || string(got.Data["password"]) != "hunter2" {
		t.Fatalf("get: %v %v", got, err)
	}
	list, err := secrets.List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 || string(list.Items[0].Data["password"]) != "hunter2" {
		t.Fatalf("list: %v %v", list, err)
	}
	// Straight from etcd too, not the watch cache.
	list, err = secrets.List(ctx, metav1.ListOptions{ResourceVersion: "", Limit: 10})
	if err != nil || len(list.Items) != 1 || string(list.Items[0].Data["password"]) != "hunter2" {
		t.Fatalf("list from etcd: %v %v", list, err)
	}
	got.Data["password"] = []byte("correct horse")
	if _, err := secrets.Update(ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if p := decodeSecret(t, decryptAESCBC(t, rawValue(t, etcd, "/registry/secrets/default/db"), "key1", encKey1)); string(p.Data["password"]) != "correct horse" {
		t.Fatalf("after update etcd holds %q", p.Data["password"])
	}
	for _, want := range []struct {
		typ      watch.EventType
		password string
	}{{watch.Added, "hunter2"}, {watch.Modified, "correct horse"}} {
		select {
		case ev := <-w.ResultChan():
			sec, ok := ev.Object.(*corev1.Secret)
			if ev.Type != want.typ || !ok || string(sec.Data["password"]) != want.password {
				t.Fatalf("watch: %s %v, want %s with %q", ev.Type, ev.Object, want.typ, want.password)
			}
		case <-ctx.Done():
			t.Fatal("no watch event")
		}
	}

	if _, err := c.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "plain"}, Data: map[string]string{"k": "visible"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if v := rawValue(t, etcd, "/registry/configmaps/default/plain"); !bytes.HasPrefix(v, []byte("k8s\x00")) || !bytes.Contains(v, []byte("visible")) {
		t.Fatalf("a configmap was not stored plain: %q", v[:min(len(v), 30)])
	}
	if err := secrets.Delete(ctx, "db", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestEncryptionKeyRotationByRewriting is kube-apiserver's documented key
// rotation: with a new key first (and the old one still listed), every
// Secret still reads; `kubectl get secrets -A -o json | kubectl replace -f -`
// writes each again, unchanged, and etcd then holds them under the new
// key. Then the old key can go.
func TestEncryptionKeyRotationByRewriting(t *testing.T) {
	etcd, etcdURL := startEtcd(t)
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "encryption.yaml")
	writeEncryptionConfig(t, cfgPath, aescbcKeys("key1"))
	p := startKapiBinary(t, filepath.Join(dir, "data"), "--etcd-servers", etcdURL, "--encryption-provider-config", cfgPath)
	for _, ns := range []string{"default", "kube-system"} {
		for i := 0; i < 3; i++ {
			p.mustKubectl(t, "", "-n", ns, "create", "secret", "generic", fmt.Sprintf("s%d", i), "--from-literal=k=v"+ns)
		}
	}
	keysOfSecrets := func() map[string]int {
		resp, err := etcd.Get(context.Background(), "/registry/secrets/", clientv3.WithPrefix())
		if err != nil {
			t.Fatal(err)
		}
		n := map[string]int{}
		for _, kv := range resp.Kvs {
			switch {
			case bytes.HasPrefix(kv.Value, []byte("k8s:enc:aescbc:v1:key1:")):
				n["key1"]++
			case bytes.HasPrefix(kv.Value, []byte("k8s:enc:aescbc:v1:key2:")):
				n["key2"]++
			default:
				n["other"]++
			}
		}
		return n
	}
	if n := keysOfSecrets(); n["key1"] != 6 || n["key2"] != 0 || n["other"] != 0 {
		t.Fatalf("before rotation: %v", n)
	}
	p.stop(t)

	writeEncryptionConfig(t, cfgPath, aescbcKeys("key2", "key1"))
	p = startKapiBinary(t, filepath.Join(dir, "data"), "--etcd-servers", etcdURL, "--encryption-provider-config", cfgPath)
	if out := p.mustKubectl(t, "", "-n", "kube-system", "get", "secret", "s1", "-o", "jsonpath={.data.k}"); out != base64.StdEncoding.EncodeToString([]byte("vkube-system")) {
		t.Fatalf("a secret under the old key reads %q", out)
	}
	all := p.mustKubectl(t, "", "get", "secrets", "-A", "-o", "json")
	p.mustKubectl(t, all, "replace", "-f", "-")
	if n := keysOfSecrets(); n["key2"] != 6 || n["key1"] != 0 || n["other"] != 0 {
		t.Fatalf("after kubectl replace: %v", n)
	}
	p.stop(t)

	// The old key is gone from the file: everything still reads.
	writeEncryptionConfig(t, cfgPath, aescbcKeys("key2"))
	p = startKapiBinary(t, filepath.Join(dir, "data"), "--etcd-servers", etcdURL, "--encryption-provider-config", cfgPath)
	if out := p.mustKubectl(t, "", "get", "secrets", "-A", "--no-headers"); strings.Count(out, "\n") != 6 {
		t.Fatalf("after dropping key1:\n%s", out)
	}
}

// TestEncryptionConfigAutomaticReload: a valid new file replaces the
// providers while the server runs; an invalid one is refused and the
// previous providers stay; health reports as kube-apiserver's
// (kms-providers in /healthz and /readyz, not /livez; the reload hook).
func TestEncryptionConfigAutomaticReload(t *testing.T) {
	etcd, etcdURL := startEtcd(t)
	cfgPath := filepath.Join(t.TempDir(), "encryption.yaml")
	writeEncryptionConfig(t, cfgPath, aescbcKeys("key1"))
	s := testserver.Start(t, testserver.Options{EtcdServers: []string{etcdURL}, EncryptionProviderConfig: cfgPath,
		EncryptionProviderConfigAutomaticReload: true, EncryptionReloadInterval: 50 * time.Millisecond})
	c := clientset(t, s.ClientConfig)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	secrets := c.CoreV1().Secrets("default")
	n := 0
	// storedWith creates a secret and returns the prefix it is stored with.
	storedWith := func() string {
		n++
		name := fmt.Sprintf("s%d", n)
		if _, err := secrets.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		v := rawValue(t, etcd, "/registry/secrets/default/"+name)
		return string(v[:min(len(v), 30)])
	}
	if p := storedWith(); !strings.HasPrefix(p, "k8s:enc:aescbc:v1:key1:") {
		t.Fatalf("stored as %q", p)
	}

	writeEncryptionConfig(t, cfgPath, "  - secretbox:\n      keys:\n      - name: sb\n        secret: "+base64.StdEncoding.EncodeToString(encKey2)+"\n"+aescbcKeys("key1"))
	deadline := time.Now().Add(30 * time.Second)
	for p := storedWith(); !strings.HasPrefix(p, "k8s:enc:secretbox:v1:sb:"); p = storedWith() {
		if time.Now().After(deadline) {
			t.Fatalf("the new configuration was not loaded: still %q", p)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := secrets.Get(ctx, "s1", metav1.GetOptions{}); err != nil {
		t.Fatalf("the secret under the previous first provider: %v", err)
	}

	// An invalid file is refused: secretbox stays first.
	if err := os.WriteFile(cfgPath, []byte("apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // several reload rounds
	if p := storedWith(); !strings.HasPrefix(p, "k8s:enc:secretbox:v1:sb:") {
		t.Fatalf("after an invalid file, stored as %q", p)
	}

	client, err := rest.HTTPClientFor(s.ClientConfig)
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string) (int, string) {
		resp, err := client.Get(s.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		_, _ = b.ReadFrom(resp.Body)
		return resp.StatusCode, b.String()
	}
	for path, want := range map[string][]string{
		"/healthz?verbose": {"[+]kms-providers ok", "[+]poststarthook/start-encryption-provider-config-automatic-reload ok"},
		"/readyz?verbose":  {"[+]kms-providers ok", "[+]poststarthook/start-encryption-provider-config-automatic-reload ok"},
		"/livez?verbose":   {"[+]poststarthook/start-encryption-provider-config-automatic-reload ok"},
	} {
		code, body := get(path)
		if code != http.StatusOK {
			t.Fatalf("%s: %d\n%s", path, code, body)
		}
		for _, line := range want {
			if !strings.Contains(body, line) {
				t.Errorf("%s lacks %q:\n%s", path, line, body)
			}
		}
		if path == "/livez?verbose" && strings.Contains(body, "kms-providers") {
			t.Errorf("/livez checks the KMS providers, kube-apiserver's does not:\n%s", body)
		}
	}
}

// TestEncryptionWithAKMSv2Plugin: secrets encrypted through a KMS v2
// plugin the test serves on a unix socket; the plugin's health is
// kms-providers in /healthz and /readyz.
func TestEncryptionWithAKMSv2Plugin(t *testing.T) {
	plugin := kmstest.Start(t)
	etcd, etcdURL := startEtcd(t)
	cfgPath := filepath.Join(t.TempDir(), "encryption.yaml")
	writeEncryptionConfig(t, cfgPath, "  - kms:\n      apiVersion: v2\n      name: fake\n      endpoint: "+plugin.Endpoint+"\n  - identity: {}\n")
	s := testserver.Start(t, testserver.Options{EtcdServers: []string{etcdURL}, EncryptionProviderConfig: cfgPath})
	c := clientset(t, s.ClientConfig)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	secrets := c.CoreV1().Secrets("default")
	for i := 0; i < 3; i++ {
		if _, err := secrets.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("k%d", i)}, StringData: map[string]string{"password": "hunter2"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		v := rawValue(t, etcd, fmt.Sprintf("/registry/secrets/default/k%d", i))
		if !bytes.HasPrefix(v, []byte("k8s:enc:kms:v2:fake:")) || bytes.Contains(v, []byte("hunter2")) {
			t.Fatalf("stored as %q", v[:min(len(v), 40)])
		}
	}
	list, err := secrets.List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 3 || string(list.Items[2].Data["password"]) != "hunter2" {
		t.Fatalf("list: %v %v", list, err)
	}
	// One data key for all the writes.
	if n := plugin.Encrypts.Load(); n != 1 {
		t.Errorf("the plugin encrypted %d times for 3 writes", n)
	}
	client, err := rest.HTTPClientFor(s.ClientConfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/healthz/kms-providers", "/readyz/kms-providers"} {
		resp, err := client.Get(s.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: %d", path, resp.StatusCode)
		}
	}
	if resp, err := client.Get(s.URL + "/livez/kms-providers"); err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("/livez/kms-providers: %d, want 404: kube-apiserver does not check KMS in /livez", resp.StatusCode)
		}
	}
}

// TestEncryptionOfCustomResources: a rule naming a custom resource's
// group-resource encrypts it at rest like a built-in one (custom resources
// are stored as JSON, encrypted the same way).
func TestEncryptionOfCustomResources(t *testing.T) {
	etcd, etcdURL := startEtcd(t)
	cfgPath := filepath.Join(t.TempDir(), "encryption.yaml")
	cfg := "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [\"*.example.com\"]\n  providers:\n  - aesgcm:\n      keys:\n      - name: g\n        secret: " + base64.StdEncoding.EncodeToString(encKey1) + "\n"
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	s := testserver.Start(t, testserver.Options{EtcdServers: []string{etcdURL}, EncryptionProviderConfig: cfgPath})
	createCRD(t, apiextensionsClient(t, s.ClientConfig), referenceCRD(t))
	ws := dynamicClient(t, s.ClientConfig).Resource(widgets).Namespace("default")
	ctx := context.Background()
	w := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]interface{}{"name": "secretive"},
		"spec":     map[string]interface{}{"name": "plaintext-marker", "size": int64(3)},
	}}
	if _, err := ws.Create(ctx, w, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	v := rawValue(t, etcd, "/registry/example.com/widgets/default/secretive")
	if !bytes.HasPrefix(v, []byte("k8s:enc:aesgcm:v1:g:")) || bytes.Contains(v, []byte("plaintext-marker")) {
		t.Fatalf("the widget is stored as %q", v[:min(len(v), 40)])
	}
	// Decrypted with the standard library: AES-GCM, 12-byte nonce, the
	// etcd key as authenticated data, JSON inside.
	block, _ := aes.NewCipher(encKey1)
	gcm, _ := cipher.NewGCM(block)
	body := v[len("k8s:enc:aesgcm:v1:g:"):]
	plain, err := gcm.Open(nil, body[:12], body[12:], []byte("/registry/example.com/widgets/default/secretive"))
	if err != nil || !bytes.HasPrefix(plain, []byte("{")) || !bytes.Contains(plain, []byte("plaintext-marker")) {
		t.Fatalf("decrypted %q: %v", plain, err)
	}
	got, err := ws.Get(ctx, "secretive", metav1.GetOptions{})
	if err != nil || got.Object["spec"].(map[string]interface{})["name"] != "plaintext-marker" {
		t.Fatalf("get: %v %v", got, err)
	}
	// The CRD itself (apiextensions.k8s.io) is not named: plain.
	if v := rawValue(t, etcd, "/registry/apiextensions.k8s.io/customresourcedefinitions/widgets.example.com"); bytes.HasPrefix(v, []byte("k8s:enc:")) {
		t.Fatal("the CRD was encrypted")
	}
}

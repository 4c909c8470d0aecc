package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestBinaryRestartKeepsData stops a zero-config kapi with SIGTERM and
// starts it again on the same data dir: everything written is still there.
func TestBinaryRestartKeepsData(t *testing.T) {
	dir := t.TempDir()
	p := startKapiBinary(t, dir)
	c := clientset(t, p.restConfig(t))
	ctx := context.Background()
	if _, err := c.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "kept"}, Data: map[string]string{"k": "v"},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	p.stop(t)

	p2 := startKapiBinary(t, dir)
	c2 := clientset(t, p2.restConfig(t))
	cm, err := c2.CoreV1().ConfigMaps("default").Get(ctx, "kept", metav1.GetOptions{})
	if err != nil || cm.Data["k"] != "v" {
		t.Fatalf("after restart: %v %v", cm, err)
	}
	svc, err := c2.CoreV1().Services("default").Get(ctx, "kubernetes", metav1.GetOptions{})
	if err != nil || svc.Spec.ClusterIP != "10.96.0.1" {
		t.Fatalf("kubernetes service: %v %v", svc, err)
	}
}

// TestShutdownEndsWatchesCleanly checks that SIGTERM ends an open watch
// with a clean end of stream, and that kapi exits 0.
func TestShutdownEndsWatchesCleanly(t *testing.T) {
	p := startKapiBinary(t, t.TempDir())
	c := clientset(t, p.restConfig(t))
	w, err := c.CoreV1().ConfigMaps("default").Watch(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	// Drain the initial events of the watch.
	timeout := time.After(30 * time.Second)
	p.stop(t)
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				return // the stream ended cleanly
			}
			if ev.Type == "ERROR" {
				t.Fatalf("watch ended with an error event: %#v", ev.Object)
			}
		case <-timeout:
			t.Fatal("the watch did not end after SIGTERM")
		}
	}
}

// TestExternalEtcd runs kapi against an etcd process started by the test
// and checks that objects land under kube-apiserver's keys, encoded as
// kube-apiserver encodes them.
func TestExternalEtcd(t *testing.T) {
	bin := binaries(t)
	clientPort, peerPort := freePort(t), freePort(t)
	clientURL := fmt.Sprintf("http://127.0.0.1:%d", clientPort)
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", peerPort)
	var etcdLog bytes.Buffer
	etcd := exec.Command(filepath.Join(bin, "etcd"),
		"--data-dir", filepath.Join(t.TempDir(), "etcd"),
		"--listen-client-urls", clientURL, "--advertise-client-urls", clientURL,
		"--listen-peer-urls", peerURL, "--initial-advertise-peer-urls", peerURL,
		"--initial-cluster", "default="+peerURL, "--log-level", "error")
	etcd.Stdout, etcd.Stderr = &etcdLog, &etcdLog
	if err := etcd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = etcd.Process.Kill()
		_ = etcd.Wait()
		if t.Failed() {
			t.Logf("etcd log:\n%s", etcdLog.String())
		}
	})

	p := startKapiBinary(t, t.TempDir(), "--etcd-servers", clientURL, "--etcd-prefix", "/kapi-test")
	c := clientset(t, p.restConfig(t))
	ctx := context.Background()
	if _, err := c.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "outside"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	ec, err := clientv3.New(clientv3.Config{Endpoints: []string{clientURL}, DialTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	resp, err := ec.Get(ctx, "/kapi-test/configmaps/default/outside")
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("configmap not at its kube-apiserver key: %v %v", resp, err)
	}
	if v := resp.Kvs[0].Value; !strings.HasPrefix(string(v), "k8s\x00") {
		t.Errorf("value is not protobuf with the k8s envelope: %q", v[:min(len(v), 16)])
	}
	if resp, err := ec.Get(ctx, "/kapi-test/namespaces/kube-system"); err != nil || len(resp.Kvs) != 1 {
		t.Errorf("system namespace not stored in the external etcd: %v %v", resp, err)
	}
	if _, err := ec.Get(ctx, "/kapi-test/services/specs/default/kubernetes"); err != nil {
		t.Error(err)
	}
}

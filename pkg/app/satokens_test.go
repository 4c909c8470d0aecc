package app

import (
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	kapiclient "github.com/kapi-dev/kapi/pkg/client"
)

// TestLegacyTokenTrackerPatchesOncePerDay: the Secret of a legacy token
// gets kube-apiserver's last-used label, patched once per day however many
// requests use the token before the label shows in the cache.
func TestLegacyTokenTrackerPatchesOncePerDay(t *testing.T) {
	client := fake.NewSimpleClientset(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "tok"}})
	secrets := func(ns string) kapiclient.Interface[*corev1.Secret, *corev1.SecretList] {
		return client.CoreV1().Secrets(ns)
	}
	tr := legacyTokenTracker{secrets: secrets, log: slog.New(slog.NewTextHandler(io.Discard, nil)), patched: &sync.Map{}}
	for range 5 {
		if err := tr.MarkLegacyTokenUsed("ns", "tok", "2026-11-25"); err != nil {
			t.Fatal(err)
		}
	}
	waitForLabel(t, client, "2026-11-25")
	_ = tr.MarkLegacyTokenUsed("ns", "tok", "2026-11-26")
	waitForLabel(t, client, "2026-11-26")
	patches := 0
	for _, a := range client.Actions() {
		if a.GetVerb() == "patch" {
			patches++
		}
	}
	if patches != 2 {
		t.Errorf("%d patches, want one per day", patches)
	}
}

func waitForLabel(t *testing.T, client *fake.Clientset, date string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s, err := client.Tracker().Get(corev1.SchemeGroupVersion.WithResource("secrets"), "ns", "tok")
		if err == nil && s.(*corev1.Secret).Labels["kubernetes.io/legacy-token-last-used"] == date {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Secret never got the label %s: %v %+v", date, err, s)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

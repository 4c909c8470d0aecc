package webhook

import (
	"crypto/tls"
	"encoding/base64"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/kapi-dev/kapi/internal/testpki"
	"github.com/kapi-dev/kapi/pkg/audit"
	"github.com/kapi-dev/kapi/pkg/metrics"
)

// An audit webhook whose serving certificate has no subjectAltName is
// refused by Go and counted in apiserver_webhooks_x509_missing_san_total,
// as kube-apiserver counts its audit webhook's.
func TestAWebhookCertificateWithoutSANIsCounted(t *testing.T) {
	caPEM, serving := testpki.ServingWithoutSAN(t)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{serving}}
	srv.StartTLS()
	defer srv.Close()
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	content := "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: \"" + srv.URL + "/hook\", certificate-authority-data: " +
		base64.StdEncoding.EncodeToString(caPEM) + "}\ncontexts:\n- name: c\n  context: {cluster: c}\ncurrent-context: c\n"
	if err := os.WriteFile(kubeconfig, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}

	certs := metrics.NewWebhookX509(nil)
	var logs strings.Builder
	b, err := New(kubeconfig, time.Millisecond, slogTo(&logs), audit.NewMetrics(), certs)
	if err != nil {
		t.Fatal(err)
	}
	ev := &audit.Event{AuditID: "a", Stage: audit.StageResponseComplete, Level: audit.LevelMetadata}
	ev.Kind, ev.APIVersion = "Event", audit.APIVersion
	if b.ProcessEvents(ev) {
		t.Fatal("the events were posted through a certificate Go refuses")
	}
	ch := make(chan prometheus.Metric, 2)
	certs.Collect(ch)
	close(ch)
	got := map[string]float64{}
	for m := range ch {
		var d dto.Metric
		if err := m.Write(&d); err != nil {
			t.Fatal(err)
		}
		name := m.Desc().String()
		got[name[strings.Index(name, `"`)+1:strings.Index(name, `", help`)]] = d.GetCounter().GetValue()
	}
	// Once per attempt: the audit webhook retries every failure, this one
	// too, five times.
	if got["apiserver_webhooks_x509_missing_san_total"] != 5 || got["apiserver_webhooks_x509_insecure_sha1_total"] != 0 {
		t.Errorf("counters %v", got)
	}
	if !strings.Contains(logs.String(), "x509: certificate relies on legacy Common Name field, use SANs instead") {
		t.Errorf("the failure was not logged with Go's reason: %s", logs.String())
	}
}

func slogTo(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }

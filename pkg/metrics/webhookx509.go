package metrics

import (
	"crypto/x509"
	"errors"
	"log/slog"
	"net/http"
	"reflect"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kapi-dev/kapi/pkg/endpoints/auditcontext"
)

// WebhookX509 are kube-apiserver's counts of webhooks (token
// authentication, authorization, audit; admission later) whose serving
// certificates have a deprecated trait: no subjectAltName extension (Go
// refuses to match a host name against the Common Name, so the call
// fails), or a SHA-1 signature (Go refuses it too). Wrap the transport of
// each webhook client with WrapTransport. A nil *WebhookX509 counts
// nothing.
type WebhookX509 struct {
	missingSAN, insecureSHA1 prometheus.Counter
	log                      *slog.Logger
}

// NewWebhookX509 returns unregistered counters with kube-apiserver's
// names and help; log receives a line for each call to such a webhook.
func NewWebhookX509(log *slog.Logger) *WebhookX509 {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &WebhookX509{
		missingSAN: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "apiserver_webhooks_x509_missing_san_total",
			Help: "[BETA] Counts the number of requests to servers missing SAN extension in their serving certificate OR the number of connection failures due to the lack of x509 certificate SAN extension missing (either/or, based on the runtime environment)",
		}),
		insecureSHA1: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "apiserver_webhooks_x509_insecure_sha1_total",
			Help: "[BETA] Counts the number of requests to servers with insecure SHA1 signatures in their serving certificate OR the number of connection failures due to the insecure SHA1 signatures (either/or, based on the runtime environment)",
		}),
		log: log,
	}
}

// Describe implements prometheus.Collector.
func (m *WebhookX509) Describe(ch chan<- *prometheus.Desc) {
	m.missingSAN.Describe(ch)
	m.insecureSHA1.Describe(ch)
}

// Collect implements prometheus.Collector.
func (m *WebhookX509) Collect(ch chan<- prometheus.Metric) {
	m.missingSAN.Collect(ch)
	m.insecureSHA1.Collect(ch)
}

// WrapTransport returns rt counting, for each round trip, a failure Go
// gave because of a deprecated certificate trait, or a response from a
// server whose certificate has one (possible when verification is off).
// As in kube-apiserver, each counted call also logs, and adds to the
// audit event of the request whose context the call carries, the
// annotation "<trait>.invalid-cert.kubernetes.io/<host>".
func (m *WebhookX509) WrapTransport(rt http.RoundTripper) http.RoundTripper {
	if m == nil {
		return rt
	}
	return &x509RoundTripper{rt: rt, m: m}
}

// The traits, with the id and reason kube-apiserver logs and annotates.
var (
	missingSAN   = certTrait{id: "missing-san", reason: "relies on a legacy Common Name field instead of the SAN extension for subject validation"}
	insecureSHA1 = certTrait{id: "insecure-sha1", reason: "uses an insecure SHA-1 signature"}
)

type certTrait struct{ id, reason string }

type x509RoundTripper struct {
	rt http.RoundTripper
	m  *WebhookX509
}

// WrappedRoundTripper lets client-go's transport helpers see through the
// wrapper.
func (w *x509RoundTripper) WrappedRoundTripper() http.RoundTripper { return w.rt }

func (w *x509RoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := w.rt.RoundTrip(req)
	switch {
	case err != nil:
		if failedForMissingSAN(err) {
			w.count(req, missingSAN, w.m.missingSAN)
		}
		if failedForSHA1(err) {
			w.count(req, insecureSHA1, w.m.insecureSHA1)
		}
	case resp != nil && resp.TLS != nil && len(resp.TLS.PeerCertificates) > 0:
		certs := resp.TLS.PeerCertificates
		if !hasSAN(certs[0]) {
			w.count(req, missingSAN, w.m.missingSAN)
		}
		if hasSHA1Signature(certs) {
			w.count(req, insecureSHA1, w.m.insecureSHA1)
		}
	}
	return resp, err
}

func (w *x509RoundTripper) count(req *http.Request, t certTrait, c prometheus.Counter) {
	if req != nil && req.URL != nil {
		if host := req.URL.Hostname(); host != "" {
			prefix := t.id + ".invalid-cert.kubernetes.io"
			w.m.log.Info(prefix+": invalid certificate detected connecting to \""+host+"\": "+t.reason, "host", host)
			auditcontext.AddAnnotation(req.Context(), prefix+"/"+host, t.reason)
		}
	}
	c.Inc()
}

// failedForMissingSAN: Go would not match the host against a
// certificate's Common Name.
func failedForMissingSAN(err error) bool {
	var hostErr x509.HostnameError
	return errors.As(err, &hostErr) && strings.Contains(err.Error(), "x509: certificate relies on legacy Common Name field")
}

// failedForSHA1: Go would not verify a SHA-1 signature in the chain.
func failedForSHA1(err error) bool {
	var authErr x509.UnknownAuthorityError
	if !errors.As(err, &authErr) {
		return false
	}
	msg := err.Error()
	i := strings.Index(msg, "x509: cannot verify signature: insecure algorithm")
	return i >= 0 && strings.Contains(msg[i:], "SHA1")
}

// hasSAN: the certificate has a subjectAltName extension (2.5.29.17),
// even an empty one.
func hasSAN(c *x509.Certificate) bool {
	for _, e := range c.Extensions {
		if e.Id.Equal([]int{2, 5, 29, 17}) {
			return true
		}
	}
	return false
}

// hasSHA1Signature: a certificate of the chain other than a self-signed
// root is signed with SHA-1.
func hasSHA1Signature(certs []*x509.Certificate) bool {
	for _, c := range certs {
		if (c.SignatureAlgorithm == x509.SHA1WithRSA || c.SignatureAlgorithm == x509.ECDSAWithSHA1) && !reflect.DeepEqual(c.Issuer, c.Subject) {
			return true
		}
	}
	return false
}

package jwt

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"fmt"
	"io"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kapi-dev/kapi/pkg/metrics"
)

// The metrics time every token of the issuer, whether it passes or not,
// and no other token; they record each fetch of the issuer's key set with
// the sha256 of the document fetched, as kube-apiserver's
// apiserver_authentication_jwt_authenticator_* families do, until the
// issuer is forgotten.
func TestMetricsTimeTheIssuersTokensAndRecordItsKeySet(t *testing.T) {
	iss := newIssuer(t)
	m := NewMetrics("apiserver-test")
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(m)
	cfg := oracleConfig(iss)
	cfg.Metrics = m
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := map[string]any{"iss": iss.srv.URL, "aud": "kapi", "sub": "alice", "tenant": "acme", "exp": time.Now().Add(time.Hour).Unix()}
	other, _ := rsa.GenerateKey(rand.Reader, 2048)
	a.AuthenticateToken(context.Background(), sign(t, iss.key.Load(), "k1", c))
	a.AuthenticateToken(context.Background(), sign(t, iss.key.Load(), "k1", c))
	a.AuthenticateToken(context.Background(), sign(t, other, "k1", c)) // a bad signature
	c["iss"] = "https://evil.example"
	a.AuthenticateToken(context.Background(), sign(t, iss.key.Load(), "k1", c)) // not this issuer's
	a.AuthenticateToken(context.Background(), "not-a-jwt")

	resp, err := iss.srv.Client().Get(iss.srv.URL + "/jwks")
	if err != nil {
		t.Fatal(err)
	}
	jwks, _ := io.ReadAll(resp.Body)
	resp.Body.Close()

	issuer, server := metrics.Hash(iss.srv.URL), metrics.Hash("apiserver-test")
	want := map[string]float64{
		fmt.Sprintf("apiserver_authentication_jwt_authenticator_latency_seconds{jwt_issuer_hash=%q,result=\"success\"}", issuer):                                                            2,
		fmt.Sprintf("apiserver_authentication_jwt_authenticator_latency_seconds{jwt_issuer_hash=%q,result=\"failure\"}", issuer):                                                            1,
		fmt.Sprintf("apiserver_authentication_jwt_authenticator_jwks_fetch_last_timestamp_seconds{apiserver_id_hash=%q,jwt_issuer_hash=%q,result=\"success\"}", server, issuer):             1,
		fmt.Sprintf("apiserver_authentication_jwt_authenticator_jwks_fetch_last_key_set_info{apiserver_id_hash=%q,hash=%q,jwt_issuer_hash=%q}", server, metrics.Hash(string(jwks)), issuer): 1,
	}
	if got := series(t, reg); !maps.Equal(got, want) {
		t.Errorf("series\n%v\nwant\n%v", got, want)
	}

	m.Forget(iss.srv.URL)
	for k := range want {
		if !strings.Contains(k, "latency") {
			delete(want, k)
		}
	}
	if got := series(t, reg); !maps.Equal(got, want) {
		t.Errorf("after Forget: series\n%v\nwant\n%v", got, want)
	}
}

// series returns every series of reg as name{labels}: the count of a
// histogram, 1 for a gauge that is set (the time of a timestamp does not
// matter), the value of anything else.
func series(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
			}
			v := m.GetCounter().GetValue()
			switch {
			case m.GetHistogram() != nil:
				v = float64(m.GetHistogram().GetSampleCount())
			case m.GetGauge() != nil && m.GetGauge().GetValue() != 0:
				v = 1
			}
			out[f.GetName()+"{"+strings.Join(labels, ",")+"}"] = v
		}
	}
	return out
}

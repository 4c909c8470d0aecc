package proxy

import (
	"crypto/tls"
	"net/http"
	"sync"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/transport"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// Transports keeps one HTTP transport (one pool of connections) for each
// remote APIService, shared by the proxy and the availability checks, as
// kube-apiserver shares client-go's cached transports between them. The
// transport of an APIService is built again when its TLS settings change
// or when the client certificate is replaced: kube-apiserver rebuilds
// every proxy transport when the files of --proxy-client-cert-file
// change, so that no new connection presents the old certificate.
type Transports struct {
	cert *ClientCert

	mu     sync.Mutex
	byName map[string]*builtTransport
}

// builtTransport is a transport and what it was built from.
type builtTransport struct {
	tls  tlsSettings
	cert *loadedCert
	rt   *http.Transport
	err  error
}

// tlsSettings are the fields of an APIService a transport depends on.
type tlsSettings struct {
	serverName string
	insecure   bool
	caBundle   string
}

// idleConnsPerHost is client-go's: the idle connections kept to a server.
const idleConnsPerHost = 25

// NewTransports returns transports presenting cert (nil: no client
// certificate).
func NewTransports(cert *ClientCert) *Transports {
	return &Transports{cert: cert, byName: map[string]*builtTransport{}}
}

// For returns the transport to the Service of a remote APIService: TLS
// verified with its caBundle (the system's roots if it has none) for the
// name <service>.<namespace>.svc whatever address is dialled, or not
// verified with insecureSkipTLSVerify; presenting the client certificate
// in force; HTTP/2 when the server offers it. The error is the one
// kube-apiserver shows for a caBundle it cannot use.
func (t *Transports) For(apiService *apiregistrationv1.APIService) (*http.Transport, error) {
	s := apiService.Spec
	want := tlsSettings{insecure: s.InsecureSkipTLSVerify, caBundle: string(s.CABundle)}
	if s.Service != nil {
		want.serverName = s.Service.Name + "." + s.Service.Namespace + ".svc"
	}
	cert := t.cert.load()

	t.mu.Lock()
	defer t.mu.Unlock()
	if b := t.byName[apiService.Name]; b != nil {
		if b.tls == want && b.cert == cert {
			return b.rt, b.err
		}
		if b.rt != nil {
			b.rt.CloseIdleConnections()
		}
	}
	b := &builtTransport{tls: want, cert: cert}
	b.rt, b.err = newTransport(want, cert)
	t.byName[apiService.Name] = b
	return b.rt, b.err
}

// Forget drops the transport of an APIService that is gone, closing its
// idle connections.
func (t *Transports) Forget(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if b := t.byName[name]; b != nil && b.rt != nil {
		b.rt.CloseIdleConnections()
	}
	delete(t.byName, name)
}

func newTransport(s tlsSettings, cert *loadedCert) (*http.Transport, error) {
	cfg := &transport.Config{TLS: transport.TLSConfig{
		Insecure:   s.insecure,
		ServerName: s.serverName,
		CAData:     []byte(s.caBundle),
	}}
	if cert != nil {
		c := cert.cert
		cfg.TLS.GetCertHolder = &transport.GetCertHolder{GetCert: func() (*tls.Certificate, error) { return c, nil }}
	}
	// client-go's TLS settings, so that the errors (an unusable
	// caBundle) are kube-apiserver's words.
	tlsConfig, err := transport.TLSConfigFor(cfg)
	if err != nil {
		return nil, err
	}
	return utilnet.SetTransportDefaults(&http.Transport{
		TLSClientConfig:     tlsConfig,
		MaxIdleConnsPerHost: idleConnsPerHost,
	}), nil
}

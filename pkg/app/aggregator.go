package app

// AggregatorConfig is how the aggregator reaches the servers of remote
// APIServices.
type AggregatorConfig struct {
	// ProxyClientCertFile and ProxyClientKeyFile are
	// --proxy-client-cert-file and --proxy-client-key-file: the client
	// certificate presented to them, re-read when the files change. As
	// in kube-apiserver, none is presented unless both are set.
	ProxyClientCertFile, ProxyClientKeyFile string
	// RejectForwardingRedirects is --aggregator-reject-forwarding-redirect:
	// a redirect from a backend becomes a 502 (true by default).
	RejectForwardingRedirects bool
}

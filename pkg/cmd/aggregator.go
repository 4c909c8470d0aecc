package cmd

import (
	"github.com/spf13/pflag"

	"github.com/kapi-dev/kapi/pkg/app"
)

// addAggregatorFlags registers kube-apiserver's flags of the proxy to
// remote APIServices (--enable-aggregator-routing is with admission's,
// whose webhooks it also routes), with its help texts.
func addAggregatorFlags(fs *pflag.FlagSet, c *app.AggregatorConfig) {
	fs.StringVar(&c.ProxyClientCertFile, "proxy-client-cert-file", c.ProxyClientCertFile, "Client certificate used to prove the identity of the aggregator or kube-apiserver when it must call out during a request. This includes proxying requests to a user api-server and calling out to webhook admission plugins. It is expected that this cert includes a signature from the CA in the --requestheader-client-ca-file flag. That CA is published in the 'extension-apiserver-authentication' configmap in the kube-system namespace. Components receiving calls from kube-aggregator should use that CA to perform their half of the mutual TLS verification.")
	fs.StringVar(&c.ProxyClientKeyFile, "proxy-client-key-file", c.ProxyClientKeyFile, "Private key for the client certificate used to prove the identity of the aggregator or kube-apiserver when it must call out during a request. This includes proxying requests to a user api-server and calling out to webhook admission plugins.")
	fs.BoolVar(&c.RejectForwardingRedirects, "aggregator-reject-forwarding-redirect", c.RejectForwardingRedirects, "Aggregator reject forwarding redirect response back to client.")
}

package node

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/transport"

	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// KubeletConfig is how the API server reaches kubelets, from
// kube-apiserver's --kubelet-* flags.
type KubeletConfig struct {
	// Port is the kubelet port of a node that does not report one in
	// status.daemonEndpoints.kubeletEndpoint (--kubelet-port, 10250).
	Port uint
	// PreferredAddressTypes is the order in which a node's
	// status.addresses are tried (--kubelet-preferred-address-types).
	PreferredAddressTypes []string
	// CertFile and KeyFile are the client certificate the API server
	// shows kubelets (--kubelet-client-certificate, --kubelet-client-key);
	// CAFile verifies kubelets' serving certificates
	// (--kubelet-certificate-authority). Without a CA kubelets are not
	// verified, as in kube-apiserver.
	CertFile, KeyFile, CAFile string
	// HTTPTimeout is --kubelet-timeout.
	HTTPTimeout time.Duration
	// Dial, if set, dials kubelets, pods and services in place of the
	// network (kube-apiserver's egress selector for the cluster).
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
}

// DefaultKubeletConfig is kube-apiserver's default.
func DefaultKubeletConfig() KubeletConfig {
	return KubeletConfig{
		Port: 10250,
		PreferredAddressTypes: []string{
			string(corev1.NodeHostName),
			string(corev1.NodeInternalDNS),
			string(corev1.NodeInternalIP),
			string(corev1.NodeExternalDNS),
			string(corev1.NodeExternalIP),
		},
		HTTPTimeout: 5 * time.Second,
	}
}

// ConnectionInfo is where a node's kubelet listens and how to reach it.
type ConnectionInfo struct {
	Scheme, Hostname, Port string
	// Transport verifies the kubelet as the configuration says;
	// InsecureSkipTLSVerifyTransport does not (a log read with
	// insecureSkipTLSVerifyBackend).
	Transport                      http.RoundTripper
	InsecureSkipTLSVerifyTransport http.RoundTripper
}

// Kubelets finds the kubelet of a node: the node's first address of the
// preferred types, and the port it reports.
type Kubelets struct {
	nodes                        rest.Getter
	defaultPort                  int
	preferred                    []corev1.NodeAddressType
	transport, insecureTransport http.RoundTripper
	proxyTransport               http.RoundTripper
}

// NewKubelets returns the kubelets of the nodes nodes reads.
func NewKubelets(nodes rest.Getter, cfg KubeletConfig) (*Kubelets, error) {
	k := &Kubelets{nodes: nodes, defaultPort: int(cfg.Port)}
	for _, t := range cfg.PreferredAddressTypes {
		k.preferred = append(k.preferred, corev1.NodeAddressType(t))
	}
	var err error
	if k.transport, err = kubeletTransport(cfg, false); err != nil {
		return nil, err
	}
	if k.insecureTransport, err = kubeletTransport(cfg, true); err != nil {
		return nil, err
	}
	k.proxyTransport = newProxyTransport(cfg.Dial)
	return k, nil
}

// kubeletTransport is the transport to kubelets: the client certificate,
// and the CA if one is configured (the files are read again when they
// change, as kube-apiserver does).
func kubeletTransport(cfg KubeletConfig, insecure bool) (http.RoundTripper, error) {
	tc := &transport.Config{TLS: transport.TLSConfig{
		CAFile: cfg.CAFile, CertFile: cfg.CertFile, KeyFile: cfg.KeyFile, ReloadTLSFiles: true,
	}}
	if insecure || !tc.HasCA() {
		tc.TLS.Insecure = true
		tc.TLS.CAFile = ""
	}
	if cfg.Dial != nil {
		tc.DialHolder = &transport.DialHolder{Dial: cfg.Dial}
	}
	rt, err := transport.New(tc)
	if err != nil {
		return nil, fmt.Errorf("kubelet client: %w", err)
	}
	return rt, nil
}

// newProxyTransport is the transport of pods/proxy, services/proxy and of
// nodes/proxy to a port other than the kubelet's: kube-apiserver does not
// verify the certificates of what it proxies to.
func newProxyTransport(dial func(ctx context.Context, network, address string) (net.Conn, error)) http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil
	t.TLSClientConfig = &tls.Config{InsecureSkipVerify: true}
	if dial != nil {
		t.DialContext = dial
	}
	return t
}

// ProxyTransport is the transport to pods and services.
func (k *Kubelets) ProxyTransport() http.RoundTripper { return k.proxyTransport }

// ConnectionInfo returns where the kubelet of the node nodeName listens.
func (k *Kubelets) ConnectionInfo(ctx context.Context, nodeName string) (*ConnectionInfo, error) {
	obj, err := k.nodes.Get(request.WithNamespace(ctx, ""), nodeName, &metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		// kube-apiserver names the resource of the request in the
		// error: a missing node of a pod is a pod "not found".
		if info, ok := request.RequestInfoFrom(ctx); ok && info.Resource != "" {
			return nil, apierrors.NewNotFound(schema.GroupResource{Group: info.APIGroup, Resource: info.Resource}, nodeName)
		}
	}
	if err != nil {
		return nil, err
	}
	node := obj.(*corev1.Node)
	host, err := preferredAddress(node, k.preferred)
	if err != nil {
		return nil, err
	}
	port := int(node.Status.DaemonEndpoints.KubeletEndpoint.Port)
	if port <= 0 {
		port = k.defaultPort
	}
	return &ConnectionInfo{
		Scheme:                         "https",
		Hostname:                       host,
		Port:                           strconv.Itoa(port),
		Transport:                      k.transport,
		InsecureSkipTLSVerifyTransport: k.insecureTransport,
	}, nil
}

// preferredAddress is the node's first address of the first preferred
// type it has.
func preferredAddress(node *corev1.Node, preferred []corev1.NodeAddressType) (string, error) {
	for _, t := range preferred {
		for _, a := range node.Status.Addresses {
			if a.Type == t {
				return a.Address, nil
			}
		}
	}
	return "", fmt.Errorf("no preferred addresses found; known addresses: %v", node.Status.Addresses)
}

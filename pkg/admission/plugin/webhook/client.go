package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionv1beta1 "k8s.io/api/admission/v1beta1"
	v1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/lru"
	netutils "k8s.io/utils/net"
	"net/http"
)

// clientCacheSize bounds the clients kept, as kube-apiserver's: one per
// distinct client configuration (URL or service, and CA bundle), shared
// by every webhook that has it. Each client's transport keeps its
// connections open for reuse (client-go keeps at most 25 idle ones a
// host); transports with the same TLS configuration are shared.
const clientCacheSize = 200

// ServiceResolver turns a service reference into the URL of one of its
// servers (kube-apiserver uses the service's cluster IP).
type ServiceResolver interface {
	ResolveEndpoint(namespace, name string, port int32) (*url.URL, error)
}

// ClientManager builds and caches the REST clients of webhooks.
type ClientManager struct {
	// Auth gives the credentials (and other client settings) to call a
	// host with, from the kubeconfig of the WebhookAdmissionConfiguration;
	// nil calls anonymously.
	Auth *AuthResolver
	// Services resolves service references.
	Services ServiceResolver
	// WrapTransport wraps each client's transport (kapi counts the calls
	// to servers with deprecated certificates there); nil wraps nothing.
	WrapTransport func(rt http.RoundTripper) http.RoundTripper

	serializer runtime.NegotiatedSerializer
	cache      *lru.Cache
}

// NewClientManager is a manager with an empty cache.
func NewClientManager(auth *AuthResolver, services ServiceResolver, wrap func(http.RoundTripper) http.RoundTripper) *ClientManager {
	s := runtime.NewScheme()
	_ = admissionv1.AddToScheme(s)
	_ = admissionv1beta1.AddToScheme(s)
	codec := serializer.NewCodecFactory(s).LegacyCodec(admissionv1beta1.SchemeGroupVersion, admissionv1.SchemeGroupVersion)
	return &ClientManager{
		Auth:          auth,
		Services:      services,
		WrapTransport: wrap,
		serializer:    serializer.NegotiatedSerializerWrapper(runtime.SerializerInfo{Serializer: codec}),
		cache:         lru.New(clientCacheSize),
	}
}

// Client is the client of h, built on first use.
func (m *ClientManager) Client(h *Hook) (*rest.RESTClient, error) {
	h.clientOnce.Do(func() { h.client, h.clientErr = m.clientFor(h.Name, h.ClientConfig) })
	return h.client, h.clientErr
}

func (m *ClientManager) clientFor(name string, cc v1.WebhookClientConfig) (*rest.RESTClient, error) {
	key, err := json.Marshal(cc)
	if err != nil {
		return nil, err
	}
	if c, ok := m.cache.Get(string(key)); ok {
		return c.(*rest.RESTClient), nil
	}
	cfg, err := m.restConfig(name, cc)
	if err != nil {
		return nil, err
	}
	c, err := rest.UnversionedRESTClientFor(cfg)
	if err != nil {
		return nil, err
	}
	m.cache.Add(string(key), c)
	return c, nil
}

func (m *ClientManager) restConfig(name string, cc v1.WebhookClientConfig) (*rest.Config, error) {
	complete := func(cfg *rest.Config) *rest.Config {
		// The webhook is called as often as writes come: no client-side
		// rate limit.
		cfg.QPS = -1
		if len(cfg.TLSClientConfig.CAData) > 0 {
			cfg.TLSClientConfig.CAData = append(cfg.TLSClientConfig.CAData, '\n')
		}
		cfg.TLSClientConfig.CAData = append(cfg.TLSClientConfig.CAData, cc.CABundle...)
		cfg.ContentConfig.NegotiatedSerializer = m.serializer
		cfg.ContentConfig.ContentType = runtime.ContentTypeJSON
		if m.WrapTransport != nil {
			cfg.Wrap(m.WrapTransport)
		}
		return cfg
	}
	if svc := cc.Service; svc != nil {
		port := int32(443)
		if svc.Port != nil {
			port = *svc.Port
		}
		serverName := svc.Name + "." + svc.Namespace + ".svc"
		host := net.JoinHostPort(serverName, strconv.Itoa(int(port)))
		cfg, err := m.Auth.configFor(host)
		if err != nil {
			return nil, err
		}
		// HTTP/1.1, so that concurrent calls spread over the service's
		// servers rather than share one HTTP/2 connection.
		cfg.NextProtos = []string{"http/1.1"}
		cfg.Host = "https://" + host
		if svc.Path != nil {
			cfg.APIPath = *svc.Path
		}
		if cfg.TLSClientConfig.ServerName == "" {
			cfg.TLSClientConfig.ServerName = serverName
		}
		dial := cfg.Dial
		if dial == nil {
			var d net.Dialer
			dial = d.DialContext
		}
		namespace, service := svc.Namespace, svc.Name
		cfg.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
			if addr == host {
				if m.Services == nil {
					return nil, fmt.Errorf("no service resolver for service %s/%s", namespace, service)
				}
				u, err := m.Services.ResolveEndpoint(namespace, service, port)
				if err != nil {
					return nil, err
				}
				addr = u.Host
			}
			return dial(ctx, network, addr)
		}
		return complete(cfg), nil
	}
	if cc.URL == nil || *cc.URL == "" {
		return nil, &CallError{Webhook: name, Reason: errors.New("webhook configuration must have either service or URL")}
	}
	u, err := url.Parse(*cc.URL)
	if err != nil {
		return nil, &CallError{Webhook: name, Reason: fmt.Errorf("Unparsable URL: %v", err)}
	}
	hostPort := u.Host
	if u.Port() == "" {
		hostPort = net.JoinHostPort(hostPort, "443")
	}
	cfg, err := m.Auth.configFor(hostPort)
	if err != nil {
		return nil, err
	}
	cfg.Host = u.Scheme + "://" + u.Host
	cfg.APIPath = u.Path
	if !isLocalHost(u) {
		cfg.NextProtos = []string{"http/1.1"}
	}
	return complete(cfg), nil
}

func isLocalHost(u *url.URL) bool {
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := netutils.ParseIPSloppy(host)
	return ip != nil && ip.IsLoopback()
}

// AuthResolver finds the credentials to call a webhook's host with in a
// kubeconfig, as kube-apiserver does: the user named after the host and
// port, then after the host under a "*." wildcard, then (for port 443)
// the same without the port, then the user "*", then the current
// context's user; anonymous otherwise. A nil AuthResolver calls
// anonymously.
type AuthResolver struct {
	kubeconfig clientcmdapi.Config
}

// NewAuthResolver reads kubeconfigFile; an empty name resolves every host
// to anonymous.
func NewAuthResolver(kubeconfigFile string) (*AuthResolver, error) {
	if kubeconfigFile == "" {
		return nil, nil
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfigFile
	raw, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).RawConfig()
	if err != nil {
		return nil, err
	}
	return &AuthResolver{kubeconfig: raw}, nil
}

func (r *AuthResolver) configFor(target string) (*rest.Config, error) {
	if r == nil {
		return withDefaults(&rest.Config{}), nil
	}
	infos := r.kubeconfig.AuthInfos
	lookup := func(target string) *clientcmdapi.AuthInfo {
		if a, ok := infos[target]; ok {
			return a
		}
		steps := strings.Split(target, ".")
		for i := 1; i < len(steps); i++ {
			if a, ok := infos["*."+strings.Join(steps[i:], ".")]; ok {
				return a
			}
		}
		return nil
	}
	a := lookup(target)
	if host, port, err := net.SplitHostPort(target); a == nil && err == nil && port == "443" {
		a = lookup(host)
	}
	if a == nil {
		a = infos["*"]
	}
	if a == nil {
		if c, ok := r.kubeconfig.Contexts[r.kubeconfig.CurrentContext]; ok && c.AuthInfo != "" {
			a = infos[c.AuthInfo]
		}
	}
	if a == nil {
		return withDefaults(&rest.Config{}), nil
	}
	return configFromAuthInfo(a)
}

func configFromAuthInfo(a *clientcmdapi.AuthInfo) (*rest.Config, error) {
	cfg := &rest.Config{}
	if a.Token != "" {
		cfg.BearerToken, cfg.BearerTokenFile = a.Token, a.TokenFile
	} else if a.TokenFile != "" {
		b, err := os.ReadFile(a.TokenFile)
		if err != nil {
			return nil, err
		}
		cfg.BearerToken, cfg.BearerTokenFile = string(b), a.TokenFile
	}
	if a.Impersonate != "" {
		cfg.Impersonate = rest.ImpersonationConfig{UserName: a.Impersonate, UID: a.ImpersonateUID, Groups: a.ImpersonateGroups, Extra: a.ImpersonateUserExtra}
	}
	if a.ClientCertificate != "" || len(a.ClientCertificateData) > 0 {
		cfg.CertFile, cfg.CertData = a.ClientCertificate, a.ClientCertificateData
		cfg.KeyFile, cfg.KeyData = a.ClientKey, a.ClientKeyData
	}
	if a.Username != "" || a.Password != "" {
		cfg.Username, cfg.Password = a.Username, a.Password
	}
	if a.Exec != nil {
		cfg.ExecProvider = a.Exec.DeepCopy()
	}
	if a.AuthProvider != nil {
		return nil, fmt.Errorf("auth provider not supported")
	}
	return withDefaults(cfg), nil
}

// withDefaults are kube-apiserver's settings of every webhook client.
func withDefaults(cfg *rest.Config) *rest.Config {
	cfg.UserAgent = "kube-apiserver-admission"
	cfg.Timeout = 30 * time.Second
	return cfg
}

package etcd3

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// ClientConfig says how to reach an external etcd cluster, with the
// meanings of kube-apiserver's --etcd-* flags.
type ClientConfig struct {
	// Servers are the client URLs of the etcd members, such as
	// "https://10.0.0.1:2379" (--etcd-servers).
	Servers []string
	// CAFile verifies the members' serving certificates (--etcd-cafile).
	CAFile string
	// CertFile and KeyFile are the client certificate kapi presents
	// (--etcd-certfile, --etcd-keyfile).
	CertFile, KeyFile string
	// DialTimeout bounds the set-up of the client; 0 means 20s, as in
	// kube-apiserver.
	DialTimeout time.Duration
}

// Defaults of kube-apiserver for its etcd client.
const (
	defaultDialTimeout = 20 * time.Second
	keepaliveTime      = 30 * time.Second
	keepaliveTimeout   = 10 * time.Second
	healthCheckTimeout = 2 * time.Second
	healthCheckKey     = "health"
)

// NewClient returns a client of the etcd cluster cfg describes. It talks
// TLS when a file is given or a server URL is https. The connection is
// made in the background: an unreachable cluster shows in requests and in
// HealthCheck, not here.
func NewClient(cfg ClientConfig) (*clientv3.Client, error) {
	if len(cfg.Servers) == 0 {
		return nil, errors.New("etcd client: no servers")
	}
	tlsConfig, err := clientTLS(cfg)
	if err != nil {
		return nil, err
	}
	dialTimeout := cfg.DialTimeout
	if dialTimeout == 0 {
		dialTimeout = defaultDialTimeout
	}
	return clientv3.New(clientv3.Config{
		Endpoints:            cfg.Servers,
		TLS:                  tlsConfig,
		DialTimeout:          dialTimeout,
		DialKeepAliveTime:    keepaliveTime,
		DialKeepAliveTimeout: keepaliveTimeout,
		// The etcd client logs every retry at info level; what matters
		// reaches kapi as errors of its requests.
		Logger: zap.NewNop(),
	})
}

func clientTLS(cfg ClientConfig) (*tls.Config, error) {
	secure := cfg.CAFile != "" || cfg.CertFile != "" || cfg.KeyFile != ""
	for _, s := range cfg.Servers {
		secure = secure || strings.HasPrefix(s, "https://")
	}
	if !secure {
		return nil, nil
	}
	if (cfg.CertFile == "") != (cfg.KeyFile == "") {
		return nil, errors.New("etcd client: a client certificate needs both a certificate and a key file")
	}
	info := transport.TLSInfo{CertFile: cfg.CertFile, KeyFile: cfg.KeyFile, TrustedCAFile: cfg.CAFile}
	c, err := info.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("etcd client: %w", err)
	}
	return c, nil
}

// HealthCheck returns a check of the etcd behind client, for /livez/etcd
// and /readyz/etcd: a linearizable read, which succeeds only when the
// cluster has a leader and a quorum. A check that takes longer than two
// seconds fails, unless ctx says otherwise.
func HealthCheck(client *clientv3.Client) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		if _, ok := ctx.Deadline(); !ok {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, healthCheckTimeout)
			defer cancel()
		}
		_, err := client.Get(ctx, healthCheckKey, clientv3.WithCountOnly())
		// A member that answers "permission denied" is up: the read was
		// only refused by etcd's authorization.
		if err == nil || errors.Is(err, rpctypes.ErrPermissionDenied) {
			return nil
		}
		return fmt.Errorf("error getting data from etcd: %w", err)
	}
}

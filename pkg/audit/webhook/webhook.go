// Package webhook is the audit backend of --audit-webhook-config-file: it
// POSTs events as an audit.k8s.io/v1 EventList (JSON) to the server of a
// kubeconfig file, with the kubeconfig's credentials and TLS settings.
//
// A POST that fails with a connection error, a 429 or a 5xx is retried
// with exponential backoff (the first wait is --audit-webhook-initial-
// backoff, each next one 1.5 times longer, five tries), as kube-apiserver
// does; events that could not be sent are logged and counted. The backend
// is synchronous: in the default batch mode the buffered package calls it
// from its own goroutines.
package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kapi-dev/kapi/pkg/audit"
	"github.com/kapi-dev/kapi/pkg/metrics"
)

// PluginName names the backend in logs and metrics.
const PluginName = "webhook"

// DefaultInitialBackoff is --audit-webhook-initial-backoff's default.
const DefaultInitialBackoff = 10 * time.Second

// Backend posts events to a webhook.
type Backend struct {
	url     string
	client  *http.Client
	backoff wait.Backoff
	logger  *slog.Logger
	errors  audit.ErrorCounter
}

// New reads the kubeconfig file and returns a backend posting to its
// current context's server. certs counts the posts to a webhook whose
// serving certificate has a deprecated trait, as kube-apiserver counts
// them for its audit webhook too (nil counts nothing).
func New(kubeconfigFile string, initialBackoff time.Duration, logger *slog.Logger, errors audit.ErrorCounter, certs *metrics.WebhookX509) (*Backend, error) {
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: kubeconfigFile}, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("invalid configuration: %w", err)
	}
	cfg.Wrap(certs.WrapTransport)
	return NewForConfig(cfg, initialBackoff, logger, errors)
}

// NewForConfig returns a backend posting to cfg.Host.
func NewForConfig(cfg *rest.Config, initialBackoff time.Duration, logger *slog.Logger, errors audit.ErrorCounter) (*Backend, error) {
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if initialBackoff <= 0 {
		initialBackoff = DefaultInitialBackoff
	}
	return &Backend{
		url: cfg.Host, client: client, logger: logger, errors: errors,
		backoff: wait.Backoff{Duration: initialBackoff, Factor: 1.5, Jitter: 0.2, Steps: 5},
	}, nil
}

// ProcessEvents posts events in one EventList and reports whether the
// webhook took them.
func (b *Backend) ProcessEvents(events ...*audit.Event) bool {
	if err := b.post(events); err != nil {
		audit.HandlePluginError(b.logger, b.errors, PluginName, err, events...)
		return false
	}
	return true
}

func (b *Backend) post(events []*audit.Event) error {
	list := audit.EventList{TypeMeta: metav1.TypeMeta{Kind: "EventList", APIVersion: audit.APIVersion}, Items: make([]audit.Event, len(events))}
	for i, ev := range events {
		list.Items[i] = *ev
		// Items of a list carry no kind of their own.
		list.Items[i].TypeMeta = metav1.TypeMeta{}
	}
	body, err := json.Marshal(&list)
	if err != nil {
		return err
	}
	var lastErr error
	err = wait.ExponentialBackoff(b.backoff, func() (bool, error) {
		retry, err := b.try(body)
		if err == nil {
			return true, nil
		}
		lastErr = err
		if retry {
			return false, nil
		}
		return false, err
	})
	if wait.Interrupted(err) {
		return lastErr
	}
	return err
}

// try posts once; it says whether a failure is worth another try.
func (b *Backend) try(body []byte) (bool, error) {
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, b.url, bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, */*")
	resp, err := b.client.Do(req)
	if err != nil {
		// As kube-apiserver's webhook client, a connection reset is
		// retried, not a failure to connect or a certificate Go refuses.
		return utilnet.IsConnectionReset(err) || utilnet.IsHTTP2ConnectionLost(err), err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return false, nil
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return true, fmt.Errorf("the server responded with %d: %s", resp.StatusCode, msg)
	}
	return false, fmt.Errorf("the server responded with %d: %s", resp.StatusCode, msg)
}

// Run does nothing: the backend posts as events come.
func (b *Backend) Run(context.Context) error { return nil }

// Shutdown does nothing: posts in flight belong to their callers.
func (b *Backend) Shutdown() {}

func (b *Backend) String() string { return PluginName }

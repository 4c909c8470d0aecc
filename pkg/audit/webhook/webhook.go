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
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/pkg/audit"
	webhookclient "github.com/kapi-dev/kapi/pkg/client/webhook"
	"github.com/kapi-dev/kapi/pkg/metrics"
)

// PluginName names the backend in logs and metrics.
const PluginName = "webhook"

// DefaultInitialBackoff is --audit-webhook-initial-backoff's default.
const DefaultInitialBackoff = 10 * time.Second

// Backend posts events to a webhook.
type Backend struct {
	client  *rest.RESTClient
	backoff wait.Backoff
	logger  *slog.Logger
	errors  audit.ErrorCounter
}

// New reads the kubeconfig file and returns a backend posting to its
// current context's server. certs counts the posts to a webhook whose
// serving certificate has a deprecated trait, as kube-apiserver counts
// them for its audit webhook too (nil counts nothing).
func New(kubeconfigFile string, initialBackoff time.Duration, logger *slog.Logger, errors audit.ErrorCounter, certs *metrics.WebhookX509) (*Backend, error) {
	cfg, err := webhookclient.LoadKubeconfig(kubeconfigFile)
	if err != nil {
		return nil, fmt.Errorf("invalid configuration: %w", err)
	}
	cfg.Wrap(certs.WrapTransport)
	return NewForConfig(cfg, initialBackoff, logger, errors)
}

// NewForConfig returns a backend posting to cfg.Host.
func NewForConfig(cfg *rest.Config, initialBackoff time.Duration, logger *slog.Logger, errors audit.ErrorCounter) (*Backend, error) {
	client, err := webhookclient.NewClient(cfg)
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
		client: client, logger: logger, errors: errors,
		backoff: webhookclient.RetryBackoff(initialBackoff),
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
	// An audit post belongs to no request: only the backoff bounds it.
	ctx := context.Background()
	return webhookclient.CallWithRetry(ctx, b.backoff, retryAnyError, func() rest.Result {
		return webhookclient.Post(ctx, b.client, body)
	}).Error()
}

// retryAnyError is kube-apiserver's rule for its audit webhook: every
// failure is retried, a 4xx included. Events are lost when the attempts
// run out, and a webhook that answers wrongly now may well answer rightly
// a moment later.
func retryAnyError(error) bool { return true }

// Run does nothing: the backend posts as events come.
func (b *Backend) Run(context.Context) error { return nil }

// Shutdown does nothing: posts in flight belong to their callers.
func (b *Backend) Shutdown() {}

func (b *Backend) String() string { return PluginName }

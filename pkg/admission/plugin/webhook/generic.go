package webhook

import (
	"context"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// KubeconfigClient is the client of a webhook configured by a kubeconfig
// file alone, as the plugins that predate the dynamic webhooks
// (ImagePolicyWebhook) reach theirs: the current context's cluster is the
// server (its URL, path included, is where reviews are posted) and its
// user the credentials. Bodies are encoded with codec. Every call is
// bounded by kube-apiserver's 30 s and not rate limited; wrap, if not
// nil, wraps the transport (the counters of deprecated certificates).
func KubeconfigClient(path string, codec runtime.Codec, wrap func(http.RoundTripper) http.RoundTripper) (*rest.RESTClient, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = path
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, err
	}
	// A kubeconfig cannot say how long to wait; kube-apiserver waits 30 s.
	cfg.Timeout = 30 * time.Second
	cfg.QPS = -1
	cfg.ContentType = runtime.ContentTypeJSON
	cfg.NegotiatedSerializer = serializer.NegotiatedSerializerWrapper(runtime.SerializerInfo{Serializer: codec})
	if wrap != nil {
		cfg.Wrap(wrap)
	}
	return rest.UnversionedRESTClientFor(cfg)
}

// RetryBackoff is kube-apiserver's backoff between the attempts of a
// kubeconfig webhook's call, from the first delay: five attempts, each
// delay half again the last, with a fifth of jitter.
func RetryBackoff(initial time.Duration) wait.Backoff {
	return wait.Backoff{Duration: initial, Factor: 1.5, Jitter: 0.2, Steps: 5}
}

// ShouldRetry says whether a failed call is worth another attempt, as
// kube-apiserver judges it: a connection reset or lost, an answer of
// 500, 504 or 429, or any answer with Retry-After.
func ShouldRetry(err error) bool {
	if utilnet.IsConnectionReset(err) || utilnet.IsHTTP2ConnectionLost(err) ||
		apierrors.IsInternalError(err) || apierrors.IsTimeout(err) || apierrors.IsTooManyRequests(err) {
		return true
	}
	_, retry := apierrors.SuggestsClientDelay(err)
	return retry
}

// CallWithRetry makes call, then again after each backoff step while
// ShouldRetry says so, and returns the last result: the zero Result
// (no error, status 0) if the context ended before the first attempt,
// as in kube-apiserver.
func CallWithRetry(ctx context.Context, backoff wait.Backoff, call func() rest.Result) rest.Result {
	var result rest.Result
	_ = wait.ExponentialBackoffWithContext(ctx, backoff, func(context.Context) (bool, error) {
		result = call()
		err := result.Error()
		if ShouldRetry(err) {
			return false, nil
		}
		return err == nil, err
	})
	return result
}

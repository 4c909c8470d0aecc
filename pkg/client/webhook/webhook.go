// Package webhook is the client side of the webhooks kube-apiserver
// reaches through a kubeconfig file: the token authenticator, the
// authorizer, the audit backend and ImagePolicyWebhook. All four post one
// JSON body to the current context's server and retry the same failures
// with the same backoff, so they share this one client rather than four
// readings of kube-apiserver's rules.
//
// The client is client-go's RESTClient, as kube-apiserver's is: the
// `timeout` query parameter a webhook sees, the Accept header, the
// wording of errors and client-go's own retry of answers that carry
// Retry-After all come with it.
package webhook

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// DefaultTimeout is how long kube-apiserver waits for a webhook whose
// configuration gives no timeout: a kubeconfig file cannot say.
const DefaultTimeout = 30 * time.Second

// LoadKubeconfig reads the kubeconfig file that says where a webhook is:
// its current context's cluster is the server (its URL, path included,
// is where bodies are posted, with its CA), and its user the credentials
// presented to it.
func LoadKubeconfig(path string) (*rest.Config, error) {
	rules := &clientcmd.ClientConfigLoadingRules{ExplicitPath: path}
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
}

// NewClient returns a client posting JSON to cfg.Host. Answers decode into
// the kinds addToScheme registers; a failed answer's Status is decoded
// whatever they are. The client is not rate limited: every review is
// sent. A cfg without a timeout gets DefaultTimeout.
func NewClient(cfg *rest.Config, addToScheme ...func(*runtime.Scheme) error) (*rest.RESTClient, error) {
	scheme := runtime.NewScheme()
	// The kinds every answer may be: Status above all.
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"})
	var versions []schema.GroupVersion
	for _, add := range addToScheme {
		if err := add(scheme); err != nil {
			return nil, err
		}
	}
	for _, gv := range scheme.PrioritizedVersionsAllGroups() {
		if gv.Group != "" {
			versions = append(versions, gv)
		}
	}
	codec := serializer.NewCodecFactory(scheme).LegacyCodec(versions...)
	c := rest.CopyConfig(cfg)
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	c.QPS = -1
	c.ContentType = runtime.ContentTypeJSON
	c.NegotiatedSerializer = serializer.NegotiatedSerializerWrapper(runtime.SerializerInfo{Serializer: codec})
	return rest.UnversionedRESTClientFor(c)
}

// Post makes one attempt: body, JSON, posted to the client's URL.
func Post(ctx context.Context, c *rest.RESTClient, body []byte) rest.Result {
	// client-go sets the content type of the objects it encodes, not of
	// bytes.
	return c.Post().SetHeader("Content-Type", runtime.ContentTypeJSON).Body(body).Do(ctx)
}

// RetryBackoff is kube-apiserver's backoff between the attempts of a
// webhook call, from the first delay: five attempts, each delay half
// again the last, with a fifth of jitter.
func RetryBackoff(initial time.Duration) wait.Backoff {
	return wait.Backoff{Duration: initial, Factor: 1.5, Jitter: 0.2, Steps: 5}
}

// ShouldRetry says whether a failed call is worth another attempt, as
// kube-apiserver judges it: a connection reset or lost, an answer of
// 500, 504 or 429, or any answer with Retry-After. Anything else (a 503
// without Retry-After, a 4xx, a certificate Go refuses, a server that
// cannot be reached at all) is the webhook's final answer.
func ShouldRetry(err error) bool {
	if utilnet.IsConnectionReset(err) || utilnet.IsHTTP2ConnectionLost(err) ||
		apierrors.IsInternalError(err) || apierrors.IsTimeout(err) || apierrors.IsTooManyRequests(err) {
		return true
	}
	_, retry := apierrors.SuggestsClientDelay(err)
	return retry
}

// CallWithRetry makes call, then again after each backoff step while
// shouldRetry (nil: ShouldRetry) says the failure is worth it, and
// returns the last result: the zero Result (no error, status 0) if the
// context ended before the first attempt, as in kube-apiserver.
func CallWithRetry(ctx context.Context, backoff wait.Backoff, shouldRetry func(error) bool, call func() rest.Result) rest.Result {
	if shouldRetry == nil {
		shouldRetry = ShouldRetry
	}
	var result rest.Result
	_ = wait.ExponentialBackoffWithContext(ctx, backoff, func(context.Context) (bool, error) {
		result = call()
		err := result.Error()
		if err != nil && shouldRetry(err) {
			return false, nil
		}
		return err == nil, err
	})
	return result
}

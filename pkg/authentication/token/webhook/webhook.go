// Package webhook authenticates bearer tokens by asking a remote service
// with a TokenReview, as kube-apiserver's
// --authentication-token-webhook-config-file does.
//
// The config file is a kubeconfig: its current cluster's server is the URL
// the TokenReview is POSTed to, its user the credentials kapi presents.
// The review carries the server's API audiences; an answer that names
// audiences must share one with them. Wrap the authenticator in
// token/cache for --authentication-token-webhook-cache-ttl.
package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/metrics"
)

// Versions are the TokenReview versions --authentication-token-webhook-version
// accepts; kube-apiserver's default is v1beta1.
var Versions = []string{"v1", "v1beta1"}

// Backoff is how often and how patiently a failed call is retried.
type Backoff struct {
	// Steps is the number of attempts.
	Steps int
	// Duration is the wait before the second attempt; each next wait is
	// Factor times longer.
	Duration time.Duration
	Factor   float64
}

// DefaultBackoff is kube-apiserver's webhook retry: five attempts, 500ms
// apart, growing by half each time (the oracle called a webhook that
// answered 500 five times per request).
var DefaultBackoff = Backoff{Steps: 5, Duration: 500 * time.Millisecond, Factor: 1.5}

// Authenticator asks a webhook.
type Authenticator struct {
	url          string
	client       *http.Client
	apiVersion   string
	apiAudiences []string
	backoff      Backoff
	log          *slog.Logger
}

// NewFromKubeconfig reads the kubeconfig at path. version is v1 or v1beta1.
// certs counts the calls to a webhook whose serving certificate has a
// deprecated trait (nil counts nothing).
func NewFromKubeconfig(path, version string, apiAudiences []string, backoff Backoff, certs *metrics.WebhookX509, log *slog.Logger) (*Authenticator, error) {
	if !slices.Contains(Versions, version) {
		return nil, fmt.Errorf("unsupported authentication webhook version %q, supported versions are %q, %q", version, "v1", "v1beta1")
	}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: path}, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, err
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 30 * time.Second
	}
	cfg.Wrap(certs.WrapTransport)
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	// kube-apiserver's client tells the webhook how long it will wait, as
	// every client-go request with a timeout does; the URL is in the
	// errors TokenReview shows.
	u, err := url.Parse(cfg.Host)
	if err != nil {
		return nil, err
	}
	q := u.Query()
	q.Set("timeout", cfg.Timeout.String())
	u.RawQuery = q.Encode()
	return &Authenticator{
		url:          u.String(),
		client:       client,
		apiVersion:   "authentication.k8s.io/" + version,
		apiAudiences: apiAudiences,
		backoff:      backoff,
		log:          log,
	}, nil
}

// AuthenticateToken implements authenticator.Token.
//
// authenticated=true: the user the webhook names. authenticated=false
// with status.error: that error (a 401, logged). authenticated=false
// without: not ok. A webhook that cannot be reached or answers other than
// 2xx is retried, then its failure is the error.
func (a *Authenticator) AuthenticateToken(ctx context.Context, token string) (*authenticator.Response, bool, error) {
	review := authenticationv1.TokenReview{
		TypeMeta: metav1.TypeMeta{APIVersion: a.apiVersion, Kind: "TokenReview"},
		Spec:     authenticationv1.TokenReviewSpec{Token: token, Audiences: a.apiAudiences},
	}
	body, err := json.Marshal(review)
	if err != nil {
		return nil, false, err
	}
	var result authenticationv1.TokenReview
	if err := a.call(ctx, body, &result); err != nil {
		a.log.Error("Failed to make webhook authenticator request", "err", err)
		return nil, false, err
	}
	st := result.Status
	if !st.Authenticated {
		if st.Error != "" {
			return nil, false, errors.New(st.Error)
		}
		return nil, false, nil
	}
	var auds []string
	if len(a.apiAudiences) > 0 {
		// An answer without audiences is meant for this server's.
		got := a.apiAudiences
		if len(st.Audiences) > 0 {
			got = st.Audiences
		}
		for _, x := range a.apiAudiences {
			if slices.Contains(got, x) {
				auds = append(auds, x)
			}
		}
		if len(auds) == 0 {
			return nil, false, nil
		}
	}
	extra := map[string][]string(nil)
	if len(st.User.Extra) > 0 {
		extra = make(map[string][]string, len(st.User.Extra))
		for k, v := range st.User.Extra {
			extra[k] = v
		}
	}
	return &authenticator.Response{
		User:      &user.DefaultInfo{Name: st.User.Username, UID: st.User.UID, Groups: st.User.Groups, Extra: extra},
		Audiences: auds,
	}, true, nil
}

// call POSTs body and decodes the answer into out, retrying a connection
// the webhook reset (as kube-apiserver does; any other transport error,
// such as a certificate Go refuses, fails at once) and 5xx (and 429)
// answers.
func (a *Authenticator) call(ctx context.Context, body []byte, out *authenticationv1.TokenReview) error {
	wait := a.backoff.Duration
	var last error
	for attempt := 0; attempt < max(a.backoff.Steps, 1); attempt++ {
		if attempt > 0 {
			time.Sleep(wait)
			wait = time.Duration(float64(wait) * a.backoff.Factor)
		}
		retry, err := a.post(ctx, body, out)
		if err == nil {
			return nil
		}
		last = err
		if !retry {
			break
		}
	}
	return last
}

func (a *Authenticator) post(ctx context.Context, body []byte, out *authenticationv1.TokenReview) (retry bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.url, bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := a.client.Do(req)
	if err != nil {
		return utilnet.IsConnectionReset(err) || utilnet.IsHTTP2ConnectionLost(err), err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 10<<20))
	if err != nil {
		return true, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		// The wording is client-go's, which kube-apiserver logs.
		err := fmt.Errorf("an error on the server (%q) has prevented the request from succeeding", bytes.TrimSpace(data))
		return resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests, err
	}
	if err := json.Unmarshal(data, out); err != nil {
		return false, fmt.Errorf("decoding the TokenReview answer: %w", err)
	}
	return false, nil
}

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
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
	webhookclient "github.com/kapi-dev/kapi/pkg/client/webhook"
	"github.com/kapi-dev/kapi/pkg/metrics"
)

// Versions are the TokenReview versions --authentication-token-webhook-version
// accepts; kube-apiserver's default is v1beta1.
var Versions = []string{"v1", "v1beta1"}

// DefaultBackoff is kube-apiserver's webhook retry: five attempts, 500ms
// apart, growing by half each time (the oracle called a webhook that
// answered 500 five times per request).
var DefaultBackoff = webhookclient.RetryBackoff(500 * time.Millisecond)

// Authenticator asks a webhook.
type Authenticator struct {
	client       *rest.RESTClient
	apiVersion   string
	apiAudiences []string
	backoff      wait.Backoff
	log          *slog.Logger
}

// NewFromKubeconfig reads the kubeconfig at path. version is v1 or v1beta1.
// certs counts the calls to a webhook whose serving certificate has a
// deprecated trait (nil counts nothing).
func NewFromKubeconfig(path, version string, apiAudiences []string, backoff wait.Backoff, certs *metrics.WebhookX509, log *slog.Logger) (*Authenticator, error) {
	if !slices.Contains(Versions, version) {
		return nil, fmt.Errorf("unsupported authentication webhook version %q, supported versions are %q, %q", version, "v1", "v1beta1")
	}
	cfg, err := webhookclient.LoadKubeconfig(path)
	if err != nil {
		return nil, err
	}
	cfg.Wrap(certs.WrapTransport)
	client, err := webhookclient.NewClient(cfg)
	if err != nil {
		return nil, err
	}
	return &Authenticator{
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

// call POSTs body and decodes the answer into out, retrying what
// webhookclient.ShouldRetry says is worth another attempt.
func (a *Authenticator) call(ctx context.Context, body []byte, out *authenticationv1.TokenReview) error {
	result := webhookclient.CallWithRetry(ctx, a.backoff, nil, func() rest.Result {
		return webhookclient.Post(ctx, a.client, body)
	})
	if err := result.Error(); err != nil {
		return err
	}
	data, err := result.Raw()
	if err != nil {
		return err
	}
	if data == nil {
		// The context ended before the first attempt.
		return context.Cause(ctx)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("decoding the TokenReview answer: %w", err)
	}
	return nil
}

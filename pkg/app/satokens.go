package app

import (
	"context"
	"crypto"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corelisters "k8s.io/client-go/listers/core/v1"

	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
	saauth "github.com/kapi-dev/kapi/pkg/authentication/serviceaccount"
	"github.com/kapi-dev/kapi/pkg/authentication/token/bootstrap"
	"github.com/kapi-dev/kapi/pkg/certs"
	"github.com/kapi-dev/kapi/pkg/client"
	"github.com/kapi-dev/kapi/pkg/endpoints"
	"github.com/kapi-dev/kapi/pkg/metrics"
	"github.com/kapi-dev/kapi/pkg/registry/core/serviceaccount"
	"github.com/kapi-dev/kapi/pkg/server"
	sa "github.com/kapi-dev/kapi/pkg/serviceaccount"
)

// serviceAccountTokens is what the service-account flags build: the
// token authenticators, the issuer of serviceaccounts/token and the
// issuer discovery documents.
type serviceAccountTokens struct {
	apiAudiences []string
	// authenticators go into the token union of the authentication
	// chain: service-account tokens, then bootstrap tokens when enabled,
	// in kube-apiserver's order.
	authenticators []authenticator.Token
	issue          serviceaccount.TokenConfig
	openIDConfig   []byte
	jwks           []byte
}

// buildServiceAccountTokens reads the keys (kapi's generated sa.key and
// sa.pub in pkiDir unless the flags name others) and builds the
// authenticators, reading objects through the loopback informers, and the
// token issuer. externalAddress is host:port of this server as the
// cluster sees it, for the default JWKS URI.
func buildServiceAccountTokens(c *Config, pkiDir, externalAddress string, clients *client.Set, informers *client.Informers, reg *metrics.Registry, log *slog.Logger) (*serviceAccountTokens, error) {
	sac := c.ServiceAccounts
	issuers := sac.Issuers
	if len(issuers) == 0 {
		issuers = []string{DefaultServiceAccountIssuer}
	}
	apiAudiences := c.APIAudiences
	if len(apiAudiences) == 0 {
		apiAudiences = issuers
	}
	signingKeyFile, keyFiles := sac.SigningKeyFile, sac.KeyFiles
	if signingKeyFile == "" && len(keyFiles) == 0 {
		signingKeyFile = filepath.Join(pkiDir, certs.ServiceAccountKeyFileName)
		keyFiles = []string{filepath.Join(pkiDir, certs.ServiceAccountPublicKeyFileName)}
	}
	var signer *sa.Signer
	var signingKey crypto.Signer
	if signingKeyFile != "" {
		var err error
		if signingKey, err = sa.ReadSigningKey(signingKeyFile); err != nil {
			return nil, fmt.Errorf("--service-account-signing-key-file: %w", err)
		}
		if signer, err = sa.NewSigner(signingKey); err != nil {
			return nil, fmt.Errorf("--service-account-signing-key-file: %w", err)
		}
	}
	var pubs []crypto.PublicKey
	for _, f := range keyFiles {
		keys, err := sa.ReadPublicKeys(f)
		if err != nil {
			return nil, fmt.Errorf("--service-account-key-file: %w", err)
		}
		pubs = append(pubs, keys...)
	}
	if len(keyFiles) == 0 && signingKey != nil {
		// kube-apiserver verifies with the signing key when no key file
		// is given.
		pubs = append(pubs, signingKey.Public())
	}
	verifier, err := sa.NewVerifier(pubs)
	if err != nil {
		return nil, fmt.Errorf("--service-account-key-file: %w", err)
	}

	getter := newObjectGetter(clients, informers)
	t := &serviceAccountTokens{apiAudiences: apiAudiences}
	saMetrics := saauth.NewMetrics()
	if err := reg.Register(saMetrics); err != nil {
		return nil, err
	}
	t.authenticators = append(t.authenticators, saauth.New(saauth.Config{
		Issuers:      issuers,
		Verifier:     verifier,
		APIAudiences: apiAudiences,
		Lookup:       sac.Lookup,
		Legacy:       true,
		Getter:       getter,
		Tracker:      legacyTokenTracker{secrets: client.NamespacedFor[*corev1.Secret, *corev1.SecretList](clients, "secrets"), log: log, patched: &sync.Map{}},
		Logger:       log.With("component", "serviceaccount-token"),
		Metrics:      saMetrics,
	}))
	if c.EnableBootstrapTokenAuth {
		t.authenticators = append(t.authenticators, bootstrap.New(getter, nil))
	}
	if signer != nil {
		t.issue = serviceaccount.TokenConfig{
			Signer:               signer,
			Issuer:               issuers[0],
			APIAudiences:         apiAudiences,
			MaxExpirationSeconds: int64(sac.MaxTokenExpiration / time.Second),
			ExtendExpiration:     sac.ExtendTokenExpiration,
		}
	}
	jwksURI := sac.JWKSURI
	if jwksURI == "" {
		jwksURI = "https://" + externalAddress + "/openid/v1/jwks"
	}
	if t.openIDConfig, t.jwks, err = sa.DiscoveryDocuments(issuers[0], jwksURI, verifier.Keys()); err != nil {
		return nil, err
	}
	return t, nil
}

// installIssuerDiscovery serves the service-account issuer discovery
// documents as kube-apiserver does: GET only, cacheable for an hour,
// authorized as the non-resource paths they are (the bootstrap policy
// grants them to system:serviceaccounts).
func installIssuerDiscovery(s *server.GenericAPIServer, t *serviceAccountTokens) {
	serve := func(contentType string, body []byte) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet {
				endpoints.MethodNotAllowed(w, r)
				return
			}
			w.Header().Set("Cache-Control", "public, max-age=3600")
			w.Header().Set("Content-Type", contentType)
			_, _ = w.Write(body)
		})
	}
	s.Handle("/.well-known/openid-configuration", serve("application/json", t.openIDConfig))
	s.Handle("/openid/v1/jwks", serve("application/jwk-set+json", t.jwks))
}

// objectGetter reads the objects tokens name from the loopback informers'
// caches and, when a cache does not have one (not synced yet, or the
// object is newer than the cache), from the server itself.
type objectGetter struct {
	accounts corelisters.ServiceAccountLister
	pods     corelisters.PodLister
	secrets  corelisters.SecretLister
	nodes    corelisters.NodeLister
	clients  *client.Set
}

func newObjectGetter(clients *client.Set, f *client.Informers) *objectGetter {
	return &objectGetter{
		accounts: corelisters.NewServiceAccountLister(client.InformerFor[*corev1.ServiceAccount, *corev1.ServiceAccountList](f, "serviceaccounts").GetIndexer()),
		pods:     corelisters.NewPodLister(client.InformerFor[*corev1.Pod, *corev1.PodList](f, "pods").GetIndexer()),
		secrets:  corelisters.NewSecretLister(client.InformerFor[*corev1.Secret, *corev1.SecretList](f, "secrets").GetIndexer()),
		nodes:    corelisters.NewNodeLister(client.InformerFor[*corev1.Node, *corev1.NodeList](f, "nodes").GetIndexer()),
		clients:  clients,
	}
}

// liveTimeout bounds a read that the cache could not answer.
const liveTimeout = 10 * time.Second

func cachedOrLive[T any](cached func() (T, error), live func(ctx context.Context) (T, error)) (T, error) {
	obj, err := cached()
	if err == nil || !apierrors.IsNotFound(err) {
		return obj, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), liveTimeout)
	defer cancel()
	return live(ctx)
}

func (g *objectGetter) GetServiceAccount(namespace, name string) (*corev1.ServiceAccount, error) {
	return cachedOrLive(func() (*corev1.ServiceAccount, error) { return g.accounts.ServiceAccounts(namespace).Get(name) },
		func(ctx context.Context) (*corev1.ServiceAccount, error) {
			return client.For[*corev1.ServiceAccount, *corev1.ServiceAccountList](g.clients, "serviceaccounts", namespace).Get(ctx, name, metav1.GetOptions{})
		})
}

func (g *objectGetter) GetPod(namespace, name string) (*corev1.Pod, error) {
	return cachedOrLive(func() (*corev1.Pod, error) { return g.pods.Pods(namespace).Get(name) },
		func(ctx context.Context) (*corev1.Pod, error) {
			return client.For[*corev1.Pod, *corev1.PodList](g.clients, "pods", namespace).Get(ctx, name, metav1.GetOptions{})
		})
}

func (g *objectGetter) GetSecret(namespace, name string) (*corev1.Secret, error) {
	return cachedOrLive(func() (*corev1.Secret, error) { return g.secrets.Secrets(namespace).Get(name) },
		func(ctx context.Context) (*corev1.Secret, error) {
			return client.For[*corev1.Secret, *corev1.SecretList](g.clients, "secrets", namespace).Get(ctx, name, metav1.GetOptions{})
		})
}

func (g *objectGetter) GetNode(name string) (*corev1.Node, error) {
	return cachedOrLive(func() (*corev1.Node, error) { return g.nodes.Get(name) },
		func(ctx context.Context) (*corev1.Node, error) {
			return client.For[*corev1.Node, *corev1.NodeList](g.clients, "nodes", "").Get(ctx, name, metav1.GetOptions{})
		})
}

// legacyTokenTracker labels a legacy token's Secret with the day it was
// last used, through the loopback client, without holding up the request
// that used it. Until the informer shows the label, the requests that use
// the token again find it missing: the tracker patches once per Secret and
// day all the same.
type legacyTokenTracker struct {
	secrets client.Namespaced[*corev1.Secret, *corev1.SecretList]
	log     *slog.Logger
	// patched is the day each Secret ("namespace/name") was last patched.
	patched *sync.Map
}

func (l legacyTokenTracker) MarkLegacyTokenUsed(namespace, secretName, date string) error {
	if prev, loaded := l.patched.Swap(namespace+"/"+secretName, date); loaded && prev == date {
		return nil
	}
	patch := fmt.Appendf(nil, `{"metadata":{"labels":{%q:%q}}}`, saauth.LegacyTokenLastUsedLabel, date)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), liveTimeout)
		defer cancel()
		if _, err := l.secrets(namespace).Patch(ctx, secretName, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil && !apierrors.IsNotFound(err) {
			l.log.Warn("Could not label a legacy service account token's Secret as used", "secret", namespace+"/"+secretName, "err", err)
		}
	}()
	return nil
}

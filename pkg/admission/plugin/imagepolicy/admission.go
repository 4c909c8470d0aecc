// Package imagepolicy is the ImagePolicyWebhook admission plugin (off by
// default, deprecated upstream): a backend named by a kubeconfig file
// decides which images pods may run. For each create or update of a pod
// (and each write of its ephemeral containers) the plugin posts an
// ImageReview (imagepolicy.k8s.io/v1alpha1) with the images, the pod's
// annotations under *.image-policy.k8s.io/ and the namespace, and refuses
// the write unless the backend allows it.
//
// As kube-apiserver's: answers are kept (1024 of them) for allowTTL or
// denyTTL, keyed by the review; a call that fails in a way worth retrying
// (a reset connection, 500, 504, 429, Retry-After) is made up to five
// times, the delays growing from retryBackoff; when the backend cannot
// answer, defaultAllow admits the pod, marked with the failed-open audit
// audit annotation, or refuses it with the failure. The
// backend's audit annotations are added under
// imagepolicywebhook.image-policy.k8s.io/.
package imagepolicy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/api/imagepolicy/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/cache"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/client/webhook"
	"github.com/kapi-dev/kapi/pkg/endpoints/auditcontext"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "ImagePolicyWebhook"

// AuditKeyPrefix prefixes the audit annotations the plugin adds: the
// backend's own, and failed-open.
const AuditKeyPrefix = "imagepolicywebhook.image-policy.k8s.io/"

// forwardedAnnotation is what a pod annotation's key contains for the
// backend to see it.
const forwardedAnnotation = ".image-policy.k8s.io/"

// cacheSize bounds the answers kept.
const cacheSize = 1024

var podsResource = schema.GroupResource{Resource: "pods"}

// Plugin validates creates and updates of pods.
type Plugin struct {
	admission.Handler
	client  *rest.RESTClient
	backoff wait.Backoff
	cache   *cache.LRUExpireCache
	cfg     Config
	log     *slog.Logger
}

// New builds the plugin's client from cfg's kubeconfig; wrap, if not nil,
// wraps its transport.
func New(cfg Config, wrap func(http.RoundTripper) http.RoundTripper, log *slog.Logger) (*Plugin, error) {
	rc, err := webhook.LoadKubeconfig(cfg.KubeConfigFile)
	if err != nil {
		return nil, err
	}
	if wrap != nil {
		rc.Wrap(wrap)
	}
	c, err := webhook.NewClient(rc, v1alpha1.AddToScheme)
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Plugin{
		Handler: admission.NewHandler(admission.Create, admission.Update),
		client:  c,
		backoff: webhook.RetryBackoff(cfg.RetryBackoff),
		cache:   cache.NewLRUExpireCache(cacheSize),
		cfg:     cfg,
		log:     log,
	}, nil
}

// Validate asks the backend about the images of a pod, or of its
// ephemeral containers on a write of that subresource; other resources
// and subresources are left alone.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	if (a.Subresource != "" && a.Subresource != "ephemeralcontainers") || a.Resource.GroupResource() != podsResource {
		return nil
	}
	pod, ok := a.Object.(*corev1.Pod)
	if !ok {
		return apierrors.NewBadRequest("Resource was marked with kind Pod but was unable to be converted")
	}
	var containers []v1alpha1.ImageReviewContainerSpec
	if a.Subresource == "" {
		for _, c := range pod.Spec.Containers {
			containers = append(containers, v1alpha1.ImageReviewContainerSpec{Image: c.Image})
		}
		for _, c := range pod.Spec.InitContainers {
			containers = append(containers, v1alpha1.ImageReviewContainerSpec{Image: c.Image})
		}
	} else {
		for _, c := range pod.Spec.EphemeralContainers {
			containers = append(containers, v1alpha1.ImageReviewContainerSpec{Image: c.Image})
		}
	}
	annotations := map[string]string{}
	for k, v := range pod.Annotations {
		if strings.Contains(k, forwardedAnnotation) {
			annotations[k] = v
		}
	}
	review := &v1alpha1.ImageReview{Spec: v1alpha1.ImageReviewSpec{
		Containers: containers, Annotations: annotations, Namespace: a.Namespace,
	}}
	if err := p.review(ctx, review); err != nil {
		return admission.NewForbidden(a, err)
	}
	return nil
}

// review fills review's status from the cache or the backend and says
// whether the pod may run. A backend that cannot answer is failure().
func (p *Plugin) review(ctx context.Context, review *v1alpha1.ImageReview) error {
	key, err := json.Marshal(review.Spec)
	if err != nil {
		return err
	}
	if status, ok := p.cache.Get(string(key)); ok {
		review.Status = status.(v1alpha1.ImageReviewStatus)
	} else {
		result := webhook.CallWithRetry(ctx, p.backoff, nil, func() rest.Result {
			return p.client.Post().Body(review).Do(ctx)
		})
		if err := result.Error(); err != nil {
			return p.failure(ctx, err)
		}
		var code int
		if result.StatusCode(&code); code < 200 || code >= 300 {
			return p.failure(ctx, fmt.Errorf("Error contacting webhook: %d", code))
		}
		if err := result.Into(review); err != nil {
			return p.failure(ctx, err)
		}
		ttl := p.cfg.DenyTTL
		if review.Status.Allowed {
			ttl = p.cfg.AllowTTL
		}
		p.cache.Add(string(key), review.Status, ttl)
	}
	for k, v := range review.Status.AuditAnnotations {
		auditcontext.AddAnnotation(ctx, AuditKeyPrefix+k, v)
	}
	if !review.Status.Allowed {
		if review.Status.Reason != "" {
			return fmt.Errorf("image policy webhook backend denied one or more images: %s", review.Status.Reason)
		}
		return errors.New("one or more images rejected by webhook backend")
	}
	return nil
}

// failure is the answer when the backend could not be asked: with
// defaultAllow the pod is admitted, marked as failed open in the audit
// event, else the failure refuses it. (kube-apiserver also sets the
// alpha.image-policy.k8s.io/failed-open annotation on the pod it
// validates, but on a copy: the pod stored does not have it, as the
// recorded answers show; a validating plugin here changes nothing.)
func (p *Plugin) failure(ctx context.Context, err error) error {
	p.log.Info("error contacting the image policy webhook backend", "err", err, "defaultAllow", p.cfg.DefaultAllow)
	if !p.cfg.DefaultAllow {
		return err
	}
	auditcontext.AddAnnotation(ctx, AuditKeyPrefix+"failed-open", "true")
	return nil
}

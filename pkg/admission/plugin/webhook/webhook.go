// Package webhook is what the MutatingAdmissionWebhook and
// ValidatingAdmissionWebhook admission plugins share, as kube-apiserver
// 1.37 calls admission webhooks: which webhooks of the
// mutatingwebhookconfigurations and validatingwebhookconfigurations a
// write calls (rules, namespaceSelector, objectSelector, matchPolicy,
// matchConditions in CEL), the AdmissionReview sent (v1 or v1beta1, with
// the objects in the version the webhook registered for) and the answer
// checked, the clients (URL or service, caBundle, credentials from a
// kubeconfig, cached per client configuration), the failure policy and
// kube-apiserver's messages, and its metrics. The dispatchers, which
// call mutating webhooks one after another and validating ones all at
// once, are in packages mutating and validating.
package webhook

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/internal/celinput"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
	celadmission "github.com/kapi-dev/kapi/pkg/cel/admission"
	"github.com/kapi-dev/kapi/pkg/endpoints/auditcontext"
	"github.com/kapi-dev/kapi/pkg/endpoints/warning"
)

// readyTimeout bounds how long a write waits for the configurations to be
// read once, as kube-apiserver's admission plugins wait.
const readyTimeout = 10 * time.Second

// Config is what either plugin is made of.
type Config struct {
	Source  Source
	Matcher *Matcher
	Clients *ClientManager
	Metrics *Metrics
	// NamespacesSynced says whether the namespace cache has synced once.
	NamespacesSynced func() bool
	// ExcludeVirtualResources leaves the reviews of authentication and
	// authorization (admission.Excluded) to no webhook, as kube-apiserver
	// does with its ExcludeAdmissionWebhookVirtualResources gate.
	ExcludeVirtualResources bool
	// Authorizer decides the checks of match conditions' authorizer; nil
	// leaves it out of them.
	Authorizer authorizer.Authorizer
}

// Base is the part of the plugins that does not depend on the kind of
// webhook.
type Base struct {
	cfg Config
}

// NewBase makes the shared part of a plugin.
func NewBase(cfg Config) *Base { return &Base{cfg: cfg} }

// Metrics are the plugin's metrics.
func (b *Base) Metrics() *Metrics { return b.cfg.Metrics }

// Webhooks are the webhooks to consider for the write a: none for the
// writes of the admission configurations themselves, nor (unless the gate
// is off) for the authentication and authorization reviews. Until the
// configurations (and namespaces) are known, the write waits, and is
// refused after a while, as kube-apiserver refuses it.
func (b *Base) Webhooks(a *admission.Attributes) ([]*Hook, error) {
	if b.cfg.ExcludeVirtualResources && admission.Excluded(a.Resource.GroupResource()) {
		return nil, nil
	}
	if Exempt(a) {
		return nil, nil
	}
	if !b.waitForReady() {
		return nil, admission.NewForbidden(a, fmt.Errorf("not yet ready to handle request"))
	}
	return b.cfg.Source.Webhooks(), nil
}

func (b *Base) synced() bool {
	return b.cfg.Source.HasSynced() && (b.cfg.NamespacesSynced == nil || b.cfg.NamespacesSynced())
}

func (b *Base) waitForReady() bool {
	deadline := time.Now().Add(readyTimeout)
	for !b.synced() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(100 * time.Millisecond)
	}
	return true
}

// Match returns the invocation of h for the write, or nil. See
// Matcher.Match; its match conditions are evaluated by Conditions, once
// the objects are in the invocation's version.
func (b *Base) Match(ctx context.Context, h *Hook, a *admission.Attributes, obj, old runtime.Object) (*Invocation, error) {
	return b.cfg.Matcher.Match(ctx, h, a, obj, old)
}

// Conditions evaluates the invocation's match conditions on v (in the
// invocation's version), recording the evaluation; an error fails the
// write with a 403.
func (b *Base) Conditions(ctx context.Context, inv *Invocation, v *Versioned) (bool, error) {
	start := time.Now()
	var authz celadmission.Authorizer
	if b.cfg.Authorizer != nil {
		authz = celinput.NewAuthorizer(b.cfg.Authorizer)
	}
	ok, err, evalErrors := ConditionsMatch(ctx, inv, v, authz)
	b.cfg.Metrics.observeConditions(inv.Hook, string(v.Attributes.Operation), time.Since(start), ok, err, evalErrors)
	if err != nil {
		return false, apierrors.NewForbidden(v.Attributes.Resource.GroupResource(), v.Attributes.Name, err)
	}
	return ok, nil
}

// Call sends the write to the webhook and returns its answer, having
// recorded its warnings and audit annotations. An error is a *CallError
// (the failure policy decides), or a *Rejection when the webhook refused
// the write; with a dry run, a webhook that may have side effects is
// refused with a 400 without being called.
func (b *Base) Call(ctx context.Context, inv *Invocation, v *Versioned) (*Response, error) {
	h := inv.Hook
	if v.Attributes.DryRun {
		if h.SideEffects == nil {
			return nil, &CallError{Webhook: h.Name, Reason: fmt.Errorf("Webhook SideEffects is nil"), Status: apierrors.NewBadRequest("Webhook SideEffects is nil")}
		}
		if *h.SideEffects != v1.SideEffectClassNone && *h.SideEffects != v1.SideEffectClassNoneOnDryRun {
			return nil, dryRunUnsupported(h.Name)
		}
	}
	uid, request, response, err := NewReview(inv, v)
	if err != nil {
		return nil, &CallError{Webhook: h.Name, Reason: fmt.Errorf("could not create admission objects: %w", err), Status: apierrors.NewBadRequest("error creating admission objects")}
	}
	client, err := b.cfg.Clients.Client(h)
	if err != nil {
		return nil, &CallError{Webhook: h.Name, Reason: fmt.Errorf("could not get REST client: %w", err), Status: apierrors.NewInternalError(err)}
	}
	callCtx := ctx
	if h.TimeoutSeconds != nil {
		// Never beyond the write's own deadline: the context keeps the
		// earlier of the two.
		var cancel context.CancelFunc
		callCtx, cancel = context.WithTimeout(ctx, time.Duration(*h.TimeoutSeconds)*time.Second)
		defer cancel()
	}
	r := client.Post().Body(request)
	if deadline, ok := callCtx.Deadline(); ok {
		// The webhook is told how long it has, in whole seconds rounded up.
		if timeout := time.Until(deadline); timeout > 0 {
			if truncated := timeout.Truncate(time.Second); truncated != timeout {
				timeout = truncated + time.Second
			}
			r.Timeout(timeout)
		}
	}
	if err := r.Do(callCtx).Into(response); err != nil {
		status, ok := err.(*apierrors.StatusError)
		if !ok {
			status = apierrors.NewServiceUnavailable("error calling webhook")
		}
		return nil, &CallError{Webhook: h.Name, Reason: fmt.Errorf("failed to call webhook: %w", err), Status: status}
	}
	result, err := VerifyResponse(uid, h.Mutating, response)
	if err != nil {
		return nil, &CallError{Webhook: h.Name, Reason: fmt.Errorf("received invalid webhook response: %w", err), Status: apierrors.NewServiceUnavailable("error validating webhook response")}
	}
	for k, val := range result.AuditAnnotations {
		auditcontext.AddAnnotation(ctx, h.Name+"/"+k, val)
	}
	for _, w := range result.Warnings {
		warning.AddWarning(ctx, w)
	}
	if !result.Allowed {
		return result, &Rejection{Status: RejectionStatus(h.Name, result.Result)}
	}
	return result, nil
}

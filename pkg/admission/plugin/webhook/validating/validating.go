// Package validating is the ValidatingAdmissionWebhook admission plugin:
// the validating webhooks of the validatingwebhookconfigurations that
// match a write are all called at once, each with the object in the
// version it registered for; the write is refused if any refuses it (or
// fails under failurePolicy Fail), with the first such error in the
// order they answered, as kube-apiserver reports it.
package validating

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/webhook"
	"github.com/kapi-dev/kapi/pkg/endpoints/auditcontext"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "ValidatingAdmissionWebhook"

// failedOpenAnnotationPrefix, followed by round_0_index_<index>, is the
// audit annotation of a webhook that failed open.
const failedOpenAnnotationPrefix = "failed-open.validating.webhook.admission.k8s.io/"

// Plugin calls validating webhooks.
type Plugin struct {
	admission.Handler
	base *webhook.Base
	log  *slog.Logger
}

// New is the plugin over cfg's webhooks; log receives the failures of
// webhooks that fail open (nil discards them).
func New(cfg webhook.Config, log *slog.Logger) *Plugin {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Plugin{
		Handler: admission.NewHandler(admission.Create, admission.Update, admission.Delete, admission.Connect),
		base:    webhook.NewBase(cfg),
		log:     log,
	}
}

// Validate calls the matching webhooks in parallel and waits for all.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	hooks, err := p.base.Webhooks(a)
	if err != nil || len(hooks) == 0 {
		return err
	}
	type call struct {
		inv   *webhook.Invocation
		v     *webhook.Versioned
		index int
	}
	var calls []call
	versions := map[schema.GroupVersionKind]*webhook.Versioned{}
	for _, h := range hooks {
		inv, err := p.base.Match(ctx, h, a, a.Object, a.OldObject)
		if err != nil {
			return err
		}
		if inv == nil {
			continue
		}
		v := versions[inv.Kind]
		if v == nil {
			if v, err = webhook.NewVersioned(a, inv.Kind); err != nil {
				return apierrors.NewInternalError(err)
			}
			versions[inv.Kind] = v
		}
		if ok, err := p.base.Conditions(ctx, inv, v); err != nil || !ok {
			if err != nil {
				return err
			}
			continue
		}
		calls = append(calls, call{inv: inv, v: v, index: len(calls)})
	}
	if len(calls) == 0 {
		return nil
	}
	if ctx.Err() != nil {
		return apierrors.NewTimeoutError("request did not complete within requested timeout", 0)
	}
	errs := make(chan error, len(calls))
	var wg sync.WaitGroup
	for _, c := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := p.callOne(ctx, c.inv, c.v, c.index); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	// kube-apiserver reports the first error to arrive.
	return <-errs
}

func (p *Plugin) callOne(ctx context.Context, inv *webhook.Invocation, v *webhook.Versioned, index int) (err error) {
	h := inv.Hook
	defer func() {
		if r := recover(); r != nil {
			if h.FailsOpen() {
				p.log.Warn("Panic calling webhook, failing open", "webhook", h.Name, "panic", r)
				p.base.Metrics().ObserveFailOpen(h)
				auditcontext.AddAnnotation(ctx, fmt.Sprintf("%sround_0_index_%d", failedOpenAnnotationPrefix, index), h.Name)
				err = nil
				return
			}
			err = apierrors.NewInternalError(fmt.Errorf("ValidatingAdmissionWebhook/%v has panicked: %v", h.Name, r))
		}
	}()
	start := time.Now()
	_, err = p.base.Call(ctx, inv, v)
	callErr, isCallErr := err.(*webhook.CallError)
	rejected := err != nil && !(isCallErr && h.FailsOpen())
	p.base.Metrics().ObserveCall(h, string(v.Attributes.Operation), time.Since(start), err, rejected)
	switch {
	case err == nil:
		return nil
	case isCallErr && h.FailsOpen():
		if !errors.Is(callErr.Reason, context.Canceled) {
			p.log.Warn("Failed calling webhook, failing open", "webhook", h.Name, "err", callErr)
			p.base.Metrics().ObserveFailOpen(h)
			auditcontext.AddAnnotation(ctx, fmt.Sprintf("%sround_0_index_%d", failedOpenAnnotationPrefix, index), h.Name)
		}
		return nil
	case isCallErr:
		p.log.Warn("Failed calling webhook, failing closed", "webhook", h.Name, "err", err)
		return apierrors.NewInternalError(err)
	}
	var rejection *webhook.Rejection
	if errors.As(err, &rejection) {
		return rejection.Status
	}
	return err
}

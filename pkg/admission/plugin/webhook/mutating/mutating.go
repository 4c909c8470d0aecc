// Package mutating is the MutatingAdmissionWebhook admission plugin: the
// mutating webhooks of the mutatingwebhookconfigurations that match a
// write are called one after another, each seeing the object as the
// previous ones patched it, in the version it registered for; their JSON
// patches are applied and the object converted back. A webhook with
// reinvocationPolicy IfNeeded is called once more when something after
// it changed the object.
package mutating

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	kjson "sigs.k8s.io/json"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/webhook"
	"github.com/kapi-dev/kapi/pkg/endpoints/auditcontext"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "MutatingAdmissionWebhook"

// The audit annotations of kube-apiserver's mutating webhooks, followed
// by round_<0 or 1>_index_<webhook's index>.
const (
	patchAnnotationPrefix      = "patch.webhook.admission.k8s.io/"
	mutationAnnotationPrefix   = "mutation.webhook.admission.k8s.io/"
	failedOpenAnnotationPrefix = "failed-open." + mutationAnnotationPrefix
)

// Plugin calls mutating webhooks.
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

// reinvocation is what the plugin remembers between the two runs of a
// write's mutating phase.
type reinvocation struct {
	// lastOutput is the object as the plugin left it in its last run.
	lastOutput runtime.Object
	// invoked are the reinvocable webhooks called since the object last
	// changed; toReinvoke those to call in the second run.
	invoked, toReinvoke sets.Set[string]
}

func (r *reinvocation) requireReinvokingInvoked() {
	r.toReinvoke = r.toReinvoke.Union(r.invoked)
	r.invoked = sets.New[string]()
}

// Admit calls the matching webhooks in order.
func (p *Plugin) Admit(ctx context.Context, a *admission.Attributes) error {
	hooks, err := p.base.Webhooks(a)
	if err != nil || len(hooks) == 0 {
		return err
	}
	state, _ := a.ReinvocationValue(PluginName).(*reinvocation)
	if state == nil {
		state = &reinvocation{invoked: sets.New[string](), toReinvoke: sets.New[string]()}
		a.SetReinvocationValue(PluginName, state)
	}
	if a.IsReinvoke() && a.Object != nil && !apiequality.Semantic.DeepEqual(state.lastOutput, a.Object) {
		// The built-in plugins' second run changed the object: every
		// reinvocable webhook called so far must see it.
		state.requireReinvokingInvoked()
	}
	defer func() {
		if a.Object != nil {
			state.lastOutput = a.Object.DeepCopyObject()
		}
	}()
	round := 0
	if a.IsReinvoke() {
		round = 1
	}
	var v *webhook.Versioned
	for i, h := range hooks {
		obj, old := a.Object, a.OldObject
		if v != nil {
			obj, old = v.Object, v.OldObject
		}
		inv, err := p.base.Match(ctx, h, a, obj, old)
		if err != nil {
			return err
		}
		if inv == nil {
			continue
		}
		if v == nil {
			if v, err = webhook.NewVersioned(a, inv.Kind); err != nil {
				return apierrors.NewInternalError(err)
			}
		} else if err := v.ConvertTo(inv.Kind); err != nil {
			return apierrors.NewInternalError(err)
		}
		if ok, err := p.base.Conditions(ctx, inv, v); err != nil || !ok {
			if err != nil {
				return err
			}
			continue
		}
		// A webhook not called in the first run is not called in the
		// second, even if it would now match.
		if a.IsReinvoke() && !state.toReinvoke.Has(h.UID) {
			continue
		}
		start := time.Now()
		changed, err := p.call(ctx, inv, v, round, i)
		_, isCallErr := err.(*webhook.CallError)
		rejected := err != nil && !(isCallErr && h.FailsOpen())
		p.base.Metrics().ObserveCall(h, string(a.Operation), time.Since(start), err, rejected)
		if changed {
			state.requireReinvokingInvoked()
			a.RequestReinvocation()
		}
		if h.Reinvocable() {
			state.invoked.Insert(h.UID)
		}
		if err == nil {
			continue
		}
		if callErr, ok := err.(*webhook.CallError); ok {
			if h.FailsOpen() {
				if !errors.Is(callErr.Reason, context.Canceled) {
					p.log.Warn("Failed calling webhook, failing open", "webhook", h.Name, "err", callErr)
					p.base.Metrics().ObserveFailOpen(h)
					auditcontext.AddAnnotation(ctx, fmt.Sprintf("%sround_%d_index_%d", failedOpenAnnotationPrefix, round, i), h.Name)
				}
				if ctx.Err() != nil {
					// The write's own deadline passed: no point going on.
					return apierrors.NewTimeoutError("request did not complete within requested timeout", 0)
				}
				continue
			}
			p.log.Warn("Failed calling webhook, failing closed", "webhook", h.Name, "err", err)
			return apierrors.NewInternalError(err)
		}
		var rejection *webhook.Rejection
		if errors.As(err, &rejection) {
			return rejection.Status
		}
		return err
	}
	if v != nil {
		if err := v.WriteBack(); err != nil {
			return apierrors.NewInternalError(err)
		}
	}
	return nil
}

// call calls one webhook and applies its patch to v, reporting whether
// the object changed.
func (p *Plugin) call(ctx context.Context, inv *webhook.Invocation, v *webhook.Versioned, round, index int) (changed bool, err error) {
	h := inv.Hook
	defer func() {
		annotate(ctx, fmt.Sprintf("%sround_%d_index_%d", mutationAnnotationPrefix, round, index),
			mutationAnnotation{Configuration: h.Configuration, Webhook: h.Name, Mutated: changed})
	}()
	result, err := p.base.Call(ctx, inv, v)
	if err != nil {
		return false, err
	}
	if len(result.Patch) == 0 {
		return false, nil
	}
	patch, err := jsonpatch.DecodePatch(result.Patch)
	if err != nil {
		return false, &webhook.CallError{Webhook: h.Name, Reason: fmt.Errorf("received undecodable patch in webhook response: %w", err), Status: apierrors.NewServiceUnavailable("error decoding patch in webhook response")}
	}
	if len(patch) == 0 {
		return false, nil
	}
	if v.Object == nil {
		return false, apierrors.NewInternalError(fmt.Errorf("admission webhook %q attempted to modify the object, which is not supported for this operation", h.Name))
	}
	if result.PatchType != admissionv1.PatchTypeJSONPatch {
		return false, &webhook.CallError{Webhook: h.Name, Reason: fmt.Errorf("unsupported patch type %q", result.PatchType), Status: webhook.RejectionStatus(h.Name, result.Result)}
	}
	doc, err := json.Marshal(v.Object)
	if err != nil {
		return false, apierrors.NewInternalError(err)
	}
	patched, err := patch.Apply(doc)
	if err != nil {
		return false, apierrors.NewInternalError(err)
	}
	out, err := decodeLike(v, patched)
	if err != nil {
		return false, apierrors.NewInternalError(err)
	}
	changed = !apiequality.Semantic.DeepEqual(v.Object, out)
	if auditcontext.From(ctx).Level() >= auditcontext.LevelRequest {
		annotate(ctx, fmt.Sprintf("%sround_%d_index_%d", patchAnnotationPrefix, round, index),
			patchAnnotation{Configuration: h.Configuration, Webhook: h.Name, Patch: patch, PatchType: string(admissionv1.PatchTypeJSONPatch)})
	}
	if d := v.Attributes.Objects.Defaulter; d != nil {
		d.Default(out)
	}
	v.Object = out
	v.Dirty = true
	return changed, nil
}

// decodeLike decodes a patched object into a new object of v's kind.
func decodeLike(v *webhook.Versioned, data []byte) (runtime.Object, error) {
	if _, ok := v.Object.(*unstructured.Unstructured); ok {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(data); err != nil {
			return nil, err
		}
		return u, nil
	}
	out, err := v.Attributes.Objects.Creater.New(v.Kind)
	if err != nil {
		return nil, err
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, out); err != nil {
		return nil, err
	}
	out.GetObjectKind().SetGroupVersionKind(v.Kind)
	return out, nil
}

// mutationAnnotation says whether a webhook changed the object.
type mutationAnnotation struct {
	Configuration string `json:"configuration"`
	Webhook       string `json:"webhook"`
	Mutated       bool   `json:"mutated"`
}

// patchAnnotation is the patch a webhook answered.
type patchAnnotation struct {
	Configuration string `json:"configuration"`
	Webhook       string `json:"webhook"`
	Patch         any    `json:"patch,omitempty"`
	PatchType     string `json:"patchType,omitempty"`
}

func annotate(ctx context.Context, key string, value any) {
	b, err := json.Marshal(value)
	if err != nil {
		return
	}
	auditcontext.AddAnnotation(ctx, key, string(b))
}

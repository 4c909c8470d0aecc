// Package mutating is kube-apiserver's MutatingAdmissionPolicy plugin:
// the MutatingAdmissionPolicies bound by MutatingAdmissionPolicyBindings
// change the objects of the writes they match with CEL, in the mutating
// phase, as kube-apiserver 1.37 applies them
// (k8s.io/apiserver/pkg/admission/plugin/policy/mutating):
//
//   - policies in the order of their names, each binding of a policy in
//     the order of theirs, each param of a binding in turn; a policy's
//     mutations in order, each seeing what the one before changed;
//   - matchConstraints, a binding's matchResources, params and match
//     conditions as package generic decides them; the expressions see the
//     object in the version the policy matched;
//   - a mutation that fails is the policy's failure: with failurePolicy
//     Fail (the default) the write is refused, after the other policies
//     ran, with the first failure's message (reason Invalid) and every
//     failure as a cause; with Ignore it is dropped. An object the patch
//     makes undecodable is an internal error whatever the failure policy;
//   - the changed object is defaulted, and carried back to the write's
//     version once all policies ran;
//   - reinvocationPolicy IfNeeded: a policy is invoked again, in the
//     chain's second mutating run, when a policy or plugin after it
//     changed the object.
//
// It handles creates, updates and connects: a delete has no object to
// mutate.
package mutating

import (
	"context"
	"errors"
	"fmt"
	"time"

	v1 "k8s.io/api/admissionregistration/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/internal/celinput"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/internal/ready"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/policy/generic"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/policy/mutating/patch"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/webhook"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
	celadmission "github.com/kapi-dev/kapi/pkg/cel/admission"
)

// PluginName is the name the plugin is enabled by.
const PluginName = "MutatingAdmissionPolicy"

type (
	Policy  = v1.MutatingAdmissionPolicy
	Binding = v1.MutatingAdmissionPolicyBinding
)

// Config is what the plugin is built from.
type Config struct {
	// Policies and Bindings list the stored objects (an informer's
	// cache); HasSynced says when both caches are filled.
	Policies  func() ([]*Policy, error)
	Bindings  func() ([]*Binding, error)
	HasSynced func() bool
	// Matcher decides which policies and bindings take a write; Params
	// reads the params of bindings.
	Matcher *generic.Matcher
	Params  *generic.Params
	// Authorizer decides the authorizer library's checks.
	Authorizer authorizer.Authorizer
	// Metrics records each mutation; nil records nothing.
	Metrics *Metrics
	// ConditionMetrics records the evaluations of match conditions, which
	// kube-apiserver counts with the webhooks' (webhook.Metrics does); nil
	// records nothing.
	ConditionMetrics ConditionMetrics
}

// ConditionMetrics records evaluations of match conditions.
type ConditionMetrics interface {
	ObserveConditions(name, kind, typ, op string, elapsed time.Duration, evalErrors int)
}

// Plugin is the MutatingAdmissionPolicy plugin.
type Plugin struct {
	admission.Handler
	cfg    Config
	source *generic.Source[*Policy, *Binding, *compiled]
}

// New makes the plugin.
func New(cfg Config) *Plugin {
	return &Plugin{
		Handler: admission.NewHandler(admission.Create, admission.Update, admission.Connect),
		cfg:     cfg,
		source: &generic.Source[*Policy, *Binding, *compiled]{
			Policies:  cfg.Policies,
			Bindings:  cfg.Bindings,
			HasSynced: cfg.HasSynced,
			Policy:    func(p *Policy) generic.PolicyAccessor { return policyAccessor{p} },
			Binding:   func(b *Binding) generic.BindingAccessor { return bindingAccessor{b} },
			Compile:   compile,
		},
	}
}

// invocation is one policy, binding and param that take a write.
type invocation struct {
	policy   *Policy
	binding  *Binding
	compiled *compiled
	param    runtime.Object
	resource schema.GroupVersionResource
	kind     schema.GroupVersionKind
}

// policyError is a policy's failure, which its failure policy decides.
type policyError struct {
	policy  *Policy
	binding *Binding
	err     error
	reason  metav1.StatusReason
}

func (e policyError) Error() string {
	if e.binding != nil {
		return fmt.Sprintf("policy '%s' with binding '%s' denied request: %s", e.policy.Name, e.binding.Name, e.err)
	}
	return fmt.Sprintf("policy %q denied request: %s", e.policy.Name, e.err)
}

// Admit applies the policies that take the write.
func (p *Plugin) Admit(ctx context.Context, a *admission.Attributes) error {
	if generic.Exempt(a) {
		return nil
	}
	if !ready.Wait(ctx, p.cfg.HasSynced) {
		return admission.NewForbidden(a, generic.ErrNotReady)
	}
	hooks, err := p.source.Hooks()
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	var invocations []invocation
	var errs []policyError
	configError := func(pol *Policy, b *Binding, err error) {
		if b == nil {
			err = fmt.Errorf("failed to configure policy: %w", err)
		} else {
			err = fmt.Errorf("failed to configure binding: %w", err)
		}
		errs = append(errs, policyError{policy: pol, binding: b, err: err})
	}
	for _, h := range hooks {
		pol := h.Policy
		ok, resource, kind, err := p.cfg.Matcher.PolicyMatches(ctx, a, policyAccessor{pol})
		if err != nil {
			configError(pol, nil, err)
			continue
		}
		if !ok {
			continue
		}
		params, err := p.cfg.Params.Source(pol.Spec.ParamKind)
		if err != nil {
			configError(pol, nil, err)
			continue
		}
		for _, b := range h.Bindings {
			ok, err := p.cfg.Matcher.BindingMatches(ctx, a, bindingAccessor{b})
			if err != nil {
				configError(pol, b, err)
				continue
			}
			if !ok {
				continue
			}
			objs, err := p.cfg.Params.Collect(ctx, params, paramRef(b), a.Namespace)
			if err != nil {
				configError(pol, b, err)
				continue
			}
			for _, param := range objs {
				invocations = append(invocations, invocation{policy: pol, binding: b, compiled: h.Compiled, param: param, resource: resource, kind: kind})
			}
		}
	}
	if len(invocations) > 0 {
		more, err := p.mutate(ctx, a, invocations)
		if err != nil {
			return err
		}
		errs = append(errs, more...)
	}
	return refusal(a, errs)
}

// refusal is the write's answer for the policies' failures: those of
// policies that fail closed, the first one's message (and reason) the
// answer's, every one a cause.
func refusal(a *admission.Attributes, errs []policyError) error {
	var status *apierrors.StatusError
	for _, e := range errs {
		if generic.FailsOpen(e.policy.Spec.FailurePolicy) {
			continue
		}
		msg := e.Error()
		if status == nil {
			if !errors.As(admission.NewForbidden(a, errors.New("admission request denied by policy")), &status) {
				return apierrors.NewInternalError(errors.New("failed to create status error"))
			}
			status.ErrStatus.Message = msg
			if e.reason != "" {
				status.ErrStatus.Reason = e.reason
			}
		}
		status.ErrStatus.Details.Causes = append(status.ErrStatus.Details.Causes, metav1.StatusCause{Message: msg})
	}
	if status == nil {
		return nil
	}
	return status
}

// key names an invocation across the chain's two runs.
type key struct {
	policy, binding string
	param           types.NamespacedName
}

func keyOf(inv invocation) (key, error) {
	k := key{policy: inv.policy.Name, binding: inv.binding.Name}
	if inv.param != nil {
		m, err := meta.Accessor(inv.param)
		if err != nil {
			return key{}, err
		}
		k.param = types.NamespacedName{Namespace: m.GetNamespace(), Name: m.GetName()}
	}
	return k, nil
}

// reinvocation is the plugin's state across the chain's two mutating
// runs of one write, as the mutating webhooks keep theirs.
type reinvocation struct {
	lastOutput runtime.Object
	// invoked are the reinvocable invocations since the object last
	// changed; toReinvoke those the second run invokes.
	invoked, toReinvoke sets.Set[key]
}

func (r *reinvocation) requireReinvokingInvoked() {
	r.toReinvoke = r.toReinvoke.Union(r.invoked)
	r.invoked = sets.New[key]()
}

// mutate runs the mutations of the invocations in order and returns the
// policies' failures; an error is the write's answer.
func (p *Plugin) mutate(ctx context.Context, a *admission.Attributes, invocations []invocation) ([]policyError, error) {
	state, _ := a.ReinvocationValue(PluginName).(*reinvocation)
	if state == nil {
		state = &reinvocation{invoked: sets.New[key](), toReinvoke: sets.New[key]()}
		a.SetReinvocationValue(PluginName, state)
	}
	if a.IsReinvoke() && !apiequality.Semantic.DeepEqual(state.lastOutput, a.Object) {
		// The built-in plugins' second run changed the object: every
		// reinvocable policy invoked so far must see it.
		state.requireReinvokingInvoked()
	}
	defer func() {
		state.lastOutput = nil
		if a.Object != nil {
			state.lastOutput = a.Object.DeepCopyObject()
		}
	}()

	namespace, err := p.cfg.Matcher.Namespace(ctx, a)
	if err != nil {
		var status apierrors.APIStatus
		if errors.As(err, &status) {
			return nil, err
		}
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, a.Namespace)
	}
	authz := celinput.NewAuthorizer(p.cfg.Authorizer)
	var errs []policyError
	var v *webhook.Versioned
	for _, inv := range invocations {
		if v == nil {
			if v, err = webhook.NewVersioned(a, inv.kind); err != nil {
				return nil, apierrors.NewInternalError(err)
			}
		} else if err := v.ConvertTo(inv.kind); err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		in := celadmission.Input{
			OldObject: v.OldObject, Params: inv.param, Request: celinput.NewRequest(a, inv.resource, inv.kind),
			Namespace: namespace, Authorizer: authz, User: celinput.UserOf(a), RequestResource: celinput.RequestResource(a),
			Variables: inv.compiled.variables,
		}
		if pk := inv.policy.Spec.ParamKind; pk != nil {
			in.ParamKind = &metav1.TypeMeta{APIVersion: pk.APIVersion, Kind: pk.Kind}
		}
		in.Object = v.Object
		matches, err := p.matchConditions(ctx, inv, in)
		if err != nil {
			var status apierrors.APIStatus
			if errors.As(err, &status) {
				return nil, err
			}
			errs = append(errs, policyError{policy: inv.policy, binding: inv.binding, err: err, reason: metav1.StatusReasonInvalid})
			continue
		}
		if !matches {
			continue
		}
		k, err := keyOf(inv)
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		if a.IsReinvoke() && !state.toReinvoke.Has(k) {
			continue
		}
		before := v.Object
		for _, m := range inv.compiled.mutations {
			if v.Object == nil {
				continue
			}
			in.Object = v.Object
			start := time.Now()
			err := p.apply(ctx, a, v, inv.resource, in, m)
			p.cfg.Metrics.observe(inv.policy.Name, inv.binding.Name, err, time.Since(start))
			if err != nil {
				var status apierrors.APIStatus
				if errors.As(err, &status) {
					return nil, err
				}
				errs = append(errs, policyError{policy: inv.policy, binding: inv.binding, err: err, reason: metav1.StatusReasonInvalid})
			}
		}
		if !apiequality.Semantic.DeepEqual(before, v.Object) {
			// A later policy or plugin invocation must reinvoke those
			// before that asked for it.
			state.requireReinvokingInvoked()
			a.RequestReinvocation()
		}
		if inv.policy.Spec.ReinvocationPolicy == v1.IfNeededReinvocationPolicy {
			state.invoked.Insert(k)
		}
	}
	if v != nil && v.Dirty {
		state.requireReinvokingInvoked()
		a.RequestReinvocation()
		if err := v.WriteBack(); err != nil {
			return nil, apierrors.NewInternalError(fmt.Errorf("failed to convert object: %w", err))
		}
	}
	return errs, nil
}

// matchConditions evaluates the policy's match conditions, which see no
// namespaceObject, and records them as kube-apiserver does (kind policy,
// type validate, as for validating policies).
func (p *Plugin) matchConditions(ctx context.Context, inv invocation, in celadmission.Input) (bool, error) {
	if len(inv.compiled.matchConditions) == 0 {
		return true, nil
	}
	in.Namespace = nil
	activation, err := celadmission.NewActivation(ctx, in)
	if err != nil {
		return false, apierrors.NewInternalError(err)
	}
	start := time.Now()
	ok, err, evalErrors := celadmission.MatchConditions(ctx, inv.compiled.matchConditions, activation)
	if p.cfg.ConditionMetrics != nil {
		p.cfg.ConditionMetrics.ObserveConditions(inv.policy.Name, "policy", "validate", string(in.Request.Operation), time.Since(start), evalErrors)
	}
	return ok, err
}

// apply evaluates one mutation on v's object and makes the result, in
// the version of v's kind and defaulted, v's object.
func (p *Plugin) apply(ctx context.Context, a *admission.Attributes, v *webhook.Versioned, resource schema.GroupVersionResource, in celadmission.Input, m mutation) error {
	tc := a.Objects.TypeConverter
	if tc == nil {
		return apierrors.NewServiceUnavailable(fmt.Sprintf("Resource kind %s not found. There can be a delay between when CustomResourceDefinitions are created and when they are available.", v.Kind))
	}
	if v.Kind.GroupVersion() != resource.GroupVersion() {
		tc = undescribed{tc}
	}
	activation, err := celadmission.NewActivation(ctx, in)
	if err != nil {
		return err
	}
	budget := int64(celadmission.Budget)
	r, err := activation.Eval(ctx, m.expr, &budget)
	if err != nil {
		return err
	}
	if r.Err != nil {
		return r.Err
	}
	var out runtime.Object
	switch m.patchType {
	case v1.PatchTypeApplyConfiguration:
		out, err = patch.ApplyConfiguration(tc, v.Object, r.Value)
	default:
		out, err = patch.JSONPatch(patch.Scheme{Creater: a.Objects.Creater, Typer: a.Objects.Typer}, v.Kind, v.Object, r.Value)
	}
	if err != nil {
		return err
	}
	if _, ok := v.Object.(*unstructured.Unstructured); !ok {
		// A typed object's apply configuration comes back unstructured.
		if out, err = a.Objects.Convertor.ConvertToVersion(out, v.Kind.GroupVersion()); err != nil {
			return err
		}
	}
	if a.Objects.Defaulter != nil {
		a.Objects.Defaulter.Default(out)
	}
	out.GetObjectKind().SetGroupVersionKind(v.Kind)
	v.Object, v.Dirty = out, true
	return nil
}

// paramRef is the binding's paramRef as the machinery reads it.
func paramRef(b *Binding) *v1.ParamRef { return b.Spec.ParamRef }

// undescribed is the type converter of a subresource whose kind is of
// another group version than its resource (a deployment's or custom
// resource's autoscaling/v1 Scale, a pod's policy/v1 Eviction, a
// service account's TokenRequest). kube-apiserver looks a kind's schema
// up in the OpenAPI document of the kind's own group version, which does
// not describe these kinds: it cannot merge an apply configuration into
// them (a JSON patch needs no schema).
type undescribed struct{ managedfields.TypeConverter }

func (u undescribed) ObjectToTyped(obj runtime.Object, _ ...typed.ValidationOptions) (*typed.TypedValue, error) {
	return nil, fmt.Errorf("no corresponding type for %v", obj.GetObjectKind().GroupVersionKind())
}

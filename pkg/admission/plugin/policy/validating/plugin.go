// Package validating is the ValidatingAdmissionPolicy admission plugin,
// as kube-apiserver 1.37 runs it: for each validatingadmissionpolicy
// whose matchConstraints take a write, and each of its bindings whose
// matchResources take it, with each param the binding names, the
// policy's match conditions, validations (with their messages) and audit
// annotations are evaluated on the write's objects in the version the
// policy matched; a failed validation refuses the write, warns, or is
// recorded in the audit event, as the binding's validationActions say;
// errors fail it unless the policy's failurePolicy is Ignore.
package validating

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	admissionv1 "k8s.io/api/admission/v1"

	v1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/internal/celinput"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/internal/ready"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/policy/generic"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/webhook"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
	celadmission "github.com/kapi-dev/kapi/pkg/cel/admission"
	"github.com/kapi-dev/kapi/pkg/endpoints/auditcontext"
	"github.com/kapi-dev/kapi/pkg/endpoints/warning"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "ValidatingAdmissionPolicy"

// validationFailureAnnotation is the audit annotation of the validations
// that failed with the Audit action; at most maxValidationFailures of
// them are recorded.
const (
	validationFailureAnnotation = "validation.policy.admission.k8s.io/validation_failure"
	maxValidationFailures       = 50
)

// Config is what the plugin is made of.
type Config struct {
	Policies func() ([]*v1.ValidatingAdmissionPolicy, error)
	Bindings func() ([]*v1.ValidatingAdmissionPolicyBinding, error)
	// HasSynced says whether the policies, bindings and namespaces have
	// been read once.
	HasSynced  func() bool
	Matcher    *generic.Matcher
	Params     *generic.Params
	Authorizer authorizer.Authorizer
	// Metrics may be nil; so may ConditionMetrics, the match conditions'
	// metrics the webhooks share.
	Metrics          *Metrics
	ConditionMetrics ConditionMetrics
}

// ConditionMetrics records evaluations of match conditions
// (webhook.Metrics does).
type ConditionMetrics interface {
	ObserveConditions(name, kind, typ, op string, elapsed time.Duration, evalErrors int)
}

// Plugin enforces validating admission policies.
type Plugin struct {
	admission.Handler
	cfg    Config
	source *generic.Source[*v1.ValidatingAdmissionPolicy, *v1.ValidatingAdmissionPolicyBinding, *compiled]
}

// New is the plugin over cfg.
func New(cfg Config) *Plugin {
	return &Plugin{
		Handler: admission.NewHandler(admission.Create, admission.Update, admission.Delete, admission.Connect),
		cfg:     cfg,
		source: &generic.Source[*v1.ValidatingAdmissionPolicy, *v1.ValidatingAdmissionPolicyBinding, *compiled]{
			Policies: cfg.Policies,
			Bindings: cfg.Bindings,
			Policy:   func(p *v1.ValidatingAdmissionPolicy) generic.PolicyAccessor { return policyAccessor{p} },
			Binding:  func(b *v1.ValidatingAdmissionPolicyBinding) generic.BindingAccessor { return bindingAccessor{b} },
			Compile:  compile,
		},
	}
}

// denial is a decision that refuses the write, with whom it is from.
type denial struct {
	decision
	policy  string
	binding string // empty for an error of the policy itself
}

// validationFailure is one entry of the validation_failure audit
// annotation.
type validationFailure struct {
	Message           string                `json:"message"`
	Policy            string                `json:"policy"`
	Binding           string                `json:"binding"`
	ExpressionIndex   int                   `json:"expressionIndex"`
	ValidationActions []v1.ValidationAction `json:"validationActions"`
}

// Validate evaluates the policies that apply to the write.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = apierrors.NewInternalError(fmt.Errorf("ValidatingAdmissionPolicy has panicked: %v", r))
		}
	}()
	if generic.Exempt(a) {
		return nil
	}
	if p.cfg.HasSynced != nil && !ready.Wait(ctx, p.cfg.HasSynced) {
		return admission.NewForbidden(a, generic.ErrNotReady)
	}
	hooks, err := p.source.Hooks()
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	if len(hooks) == 0 {
		return nil
	}
	var denials []denial
	var failures []validationFailure
	configError := func(policy *v1.ValidatingAdmissionPolicy, binding *v1.ValidatingAdmissionPolicyBinding, err error) {
		if generic.FailsOpen(policy.Spec.FailurePolicy) {
			return
		}
		d := denial{policy: policy.Name, decision: decision{action: deny, evalErr: true}}
		if binding == nil {
			d.message = fmt.Sprintf("failed to configure policy: %v", err)
		} else {
			d.binding = binding.Name
			d.message = fmt.Sprintf("failed to configure binding: %v", err)
		}
		denials = append(denials, d)
	}
	authz := celinput.NewAuthorizer(p.cfg.Authorizer)
	versions := map[schema.GroupVersionKind]*webhook.Versioned{}
	// What the expressions see of the write is built and converted once,
	// whatever the number of policies.
	w := &write{values: celadmission.NewValues(), requests: map[requestKey]*admissionv1.AdmissionRequest{}}
	for _, hook := range hooks {
		policy := hook.Policy
		matches, resource, kind, err := p.cfg.Matcher.PolicyMatches(ctx, a, policyAccessor{policy})
		if err != nil {
			configError(policy, nil, err)
			continue
		}
		if !matches {
			continue
		}
		params, err := p.cfg.Params.Source(policy.Spec.ParamKind)
		if err != nil {
			configError(policy, nil, err)
			continue
		}
		annotations := newAnnotationCollector()
		for _, binding := range hook.Bindings {
			ok, err := p.cfg.Matcher.BindingMatches(ctx, a, bindingAccessor{binding})
			if err != nil {
				configError(policy, binding, err)
				continue
			}
			if !ok {
				continue
			}
			paramObjs, err := p.cfg.Params.Collect(ctx, params, binding.Spec.ParamRef, a.Namespace)
			if err != nil {
				configError(policy, binding, err)
				continue
			}
			if len(paramObjs) == 0 {
				continue
			}
			v := versions[kind]
			if v == nil {
				if v, err = webhook.NewVersioned(a, kind); err != nil {
					configError(policy, binding, fmt.Errorf("failed to convert object version: %w", err))
					continue
				}
				versions[kind] = v
			}
			if !w.namespaceRead {
				if w.namespace, err = p.cfg.Matcher.Namespace(ctx, a); err != nil {
					return err
				}
				w.namespaceRead = true
			}
			for _, param := range paramObjs {
				r := p.evaluate(ctx, a, w, policy, hook.Compiled, resource, kind, v, param, authz)
				for i, d := range r.decisions {
					if d.action != deny {
						if d.evalErr {
							p.cfg.Metrics.observe(policy.Name, binding.Name, errorType(d), "allow", d.elapsed)
						}
						continue
					}
					for _, act := range binding.Spec.ValidationActions {
						switch act {
						case v1.Deny:
							denials = append(denials, denial{decision: d, policy: policy.Name, binding: binding.Name})
							p.cfg.Metrics.observe(policy.Name, binding.Name, errorType(d), "deny", d.elapsed)
						case v1.Audit:
							failures = append(failures, validationFailure{Message: d.message, Policy: binding.Spec.PolicyName, Binding: binding.Name,
								ExpressionIndex: i, ValidationActions: binding.Spec.ValidationActions})
							p.cfg.Metrics.observe(policy.Name, binding.Name, errorType(d), "audit", d.elapsed)
						case v1.Warn:
							warning.AddWarning(ctx, fmt.Sprintf("Validation failed for ValidatingAdmissionPolicy '%s' with binding '%s': %s", policy.Name, binding.Name, d.message))
							p.cfg.Metrics.observe(policy.Name, binding.Name, errorType(d), "warn", d.elapsed)
						}
					}
				}
				for _, an := range r.annotations {
					switch an.action {
					case annotationPublish:
						value := an.value
						if len(value) > maxAuditAnnotationValueLength {
							value = value[:maxAuditAnnotationValueLength]
						}
						annotations.add(an.key, value)
					case annotationError:
						d := decision{action: deny, evalErr: true, message: an.err, elapsed: an.elapsed}
						denials = append(denials, denial{decision: d, policy: policy.Name, binding: binding.Name})
						p.cfg.Metrics.observe(policy.Name, binding.Name, errorType(d), "deny", d.elapsed)
					}
				}
			}
		}
		annotations.publish(ctx, policy.Name)
	}
	if len(failures) > 0 {
		if len(failures) > maxValidationFailures {
			failures = failures[:maxValidationFailures]
		}
		if b, err := json.Marshal(failures); err == nil {
			auditcontext.AddAnnotation(ctx, validationFailureAnnotation, string(b))
		}
	}
	if len(denials) == 0 {
		return nil
	}
	return denied(a, denials[0])
}

// denied is kube-apiserver's refusal: a Forbidden naming the object, with
// the reason of the validation (Invalid if it has none) and its code,
// and the message as its one cause.
func denied(a *admission.Attributes, d denial) error {
	var message string
	if d.binding != "" {
		message = fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: %s", d.policy, d.binding, d.message)
	} else {
		message = fmt.Sprintf("ValidatingAdmissionPolicy '%s' denied request: %s", d.policy, d.message)
	}
	err := admission.NewForbidden(a, errors.New(message))
	var status *apierrors.StatusError
	if !errors.As(err, &status) {
		return err
	}
	reason := d.reason
	if reason == "" {
		reason = metav1.StatusReasonInvalid
	}
	status.ErrStatus.Reason = reason
	status.ErrStatus.Code = reasonCode(reason)
	if status.ErrStatus.Details == nil {
		status.ErrStatus.Details = &metav1.StatusDetails{}
	}
	status.ErrStatus.Details.Causes = append(status.ErrStatus.Details.Causes, metav1.StatusCause{Message: message})
	return status
}

func reasonCode(r metav1.StatusReason) int32 {
	switch r {
	case metav1.StatusReasonForbidden:
		return http.StatusForbidden
	case metav1.StatusReasonUnauthorized:
		return http.StatusUnauthorized
	case metav1.StatusReasonRequestEntityTooLarge:
		return http.StatusRequestEntityTooLarge
	}
	return http.StatusUnprocessableEntity
}

// write is what the policies of one write share: the values of its
// objects, its requests by matched resource and kind, and its namespace,
// read once.
type write struct {
	values        *celadmission.Values
	requests      map[requestKey]*admissionv1.AdmissionRequest
	namespace     *corev1.Namespace
	namespaceRead bool
}

type requestKey struct {
	resource schema.GroupVersionResource
	kind     schema.GroupVersionKind
}

// request is the write's request as matched as resource and kind.
func (w *write) request(a *admission.Attributes, resource schema.GroupVersionResource, kind schema.GroupVersionKind) *admissionv1.AdmissionRequest {
	k := requestKey{resource, kind}
	r := w.requests[k]
	if r == nil {
		r = celinput.NewRequest(a, resource, kind)
		w.requests[k] = r
	}
	return r
}

func (p *Plugin) evaluate(ctx context.Context, a *admission.Attributes, w *write, policy *v1.ValidatingAdmissionPolicy, c *compiled,
	resource schema.GroupVersionResource, kind schema.GroupVersionKind, v *webhook.Versioned,
	param runtime.Object, authz *celinput.Authorizer) result {
	in := celadmission.Input{
		Object: v.Object, OldObject: v.OldObject,
		Request:         w.request(a, resource, kind),
		Namespace:       w.namespace,
		Authorizer:      authz,
		User:            celinput.UserOf(a),
		RequestResource: celinput.RequestResource(a),
		Values:          w.values,
	}
	in.Params = param
	if pk := policy.Spec.ParamKind; pk != nil {
		in.ParamKind = &metav1.TypeMeta{APIVersion: pk.APIVersion, Kind: pk.Kind}
	}
	e := &evaluation{policy: policy, c: c, input: in, conditionMetrics: p.cfg.ConditionMetrics}
	return e.validate(ctx)
}

// annotationCollector gathers a policy's audit annotations across its
// bindings: the distinct values of a key, joined.
type annotationCollector map[string][]string

func newAnnotationCollector() annotationCollector { return annotationCollector{} }

func (c annotationCollector) add(key, value string) {
	for _, v := range c[key] {
		if v == value {
			return
		}
	}
	c[key] = append(c[key], value)
}

func (c annotationCollector) publish(ctx context.Context, policy string) {
	for key, values := range c {
		auditcontext.AddAnnotation(ctx, policy+"/"+key, strings.Join(values, ", "))
	}
}

// errorType is the error_type label of a decision.
func errorType(d decision) string {
	switch {
	case !d.evalErr && d.action == admit:
		return "no_error"
	case strings.HasPrefix(d.message, "compilation"):
		return "compile_error"
	case strings.HasPrefix(d.message, celadmission.OutOfBudget):
		return "out_of_budget"
	}
	return "invalid_error"
}

// Package podsecurity is the PodSecurity admission plugin: pods are
// checked against the Pod Security Standards level their namespace's
// labels choose (pod-security.kubernetes.io/enforce, audit, warn and
// their -version), refused when they violate the enforce level, with a
// warning when they violate the warn level and an audit annotation when
// they violate the audit level. The pod templates of workload resources
// are checked too, for warnings and audit only: the pods they make will
// be refused when they are created. A namespace whose labels cannot be
// read is refused, and a namespace whose enforce level is made stricter
// is answered with warnings about the existing pods that violate it.
//
// It behaves as kube-apiserver 1.37's plugin (built on the
// kubernetes/pod-security-admission library): the same checks at every
// policy version, the same messages, the same exemptions and defaults
// from the PodSecurityConfiguration of --admission-control-config-file.
// The checks themselves are in the policy package.
package podsecurity

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilcache "k8s.io/apimachinery/pkg/util/cache"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/podsecurity/policy"
	"github.com/kapi-dev/kapi/pkg/endpoints/auditcontext"
	"github.com/kapi-dev/kapi/pkg/endpoints/warning"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "PodSecurity"

// The audit annotations the plugin adds, under the label prefix.
const (
	annotationEnforcePolicy   = policy.LabelPrefix + "enforce-policy"
	annotationAuditViolations = policy.LabelPrefix + "audit-violations"
	annotationExempt          = policy.LabelPrefix + "exempt"
	annotationError           = policy.LabelPrefix + "error"
)

// NamespaceGetter reads a namespace: kube-apiserver's reads the
// informer's cache, then the server when the cache does not have it.
type NamespaceGetter interface {
	GetNamespace(ctx context.Context, name string) (*corev1.Namespace, error)
}

// PodLister lists the pods of a namespace (from the informer's cache).
type PodLister interface {
	ListPods(ctx context.Context, namespace string) ([]*corev1.Pod, error)
}

// Config is what the plugin needs.
type Config struct {
	// Configuration is the PodSecurityConfiguration; nil is the
	// defaults (LoadConfiguration(nil)).
	Configuration *Configuration
	// Namespaces reads namespaces from the informer's cache (then the
	// server, for those it does not have); Live reads them from the
	// server, for a while after the plugin admitted a change of one (nil:
	// never).
	Namespaces NamespaceGetter
	Live       NamespaceGetter
	Pods       PodLister
	// Metrics count evaluations, exemptions and errors; nil counts
	// nothing.
	Metrics *Metrics
}

// Plugin is the PodSecurity plugin. It only validates.
type Plugin struct {
	admission.Handler
	config         *Configuration
	defaults       policy.Policy
	evaluator      *policy.Evaluator
	namespaces     NamespaceGetter
	live           NamespaceGetter
	recent         *utilcache.LRUExpireCache
	pods           PodLister
	metrics        *Metrics
	maxPodsToCheck int
}

var _ admission.Validator = (*Plugin)(nil)

// New makes the plugin.
func New(c Config) (*Plugin, error) {
	if c.Configuration == nil {
		var err error
		if c.Configuration, err = LoadConfiguration(nil); err != nil {
			return nil, err
		}
	}
	defaults, err := c.Configuration.defaultPolicy()
	if err != nil {
		return nil, err
	}
	return &Plugin{
		Handler:        admission.NewHandler(admission.Create, admission.Update),
		config:         c.Configuration,
		defaults:       defaults,
		evaluator:      policy.NewEvaluator(),
		namespaces:     c.Namespaces,
		live:           c.Live,
		recent:         utilcache.NewLRUExpireCache(recentNamespaces),
		pods:           c.Pods,
		metrics:        c.Metrics,
		maxPodsToCheck: maxPodsToCheck,
	}, nil
}

var (
	podsResource       = corev1.Resource("pods")
	namespacesResource = corev1.Resource("namespaces")
)

// templated are the resources whose objects hold a pod template.
var templated = map[schema.GroupResource]bool{
	corev1.Resource("replicationcontrollers"): true,
	corev1.Resource("podtemplates"):           true,
	appsv1.Resource("replicasets"):            true,
	appsv1.Resource("deployments"):            true,
	appsv1.Resource("statefulsets"):           true,
	appsv1.Resource("daemonsets"):             true,
	batchv1.Resource("jobs"):                  true,
	batchv1.Resource("cronjobs"):              true,
}

// outcome is the plugin's answer to one write: refused with err, or
// admitted; with warnings and audit annotations either way.
type outcome struct {
	err         error
	warnings    []string
	annotations map[string]string
}

// Validate checks a pod, a workload's pod template or a namespace's
// labels.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	var o outcome
	switch gr := a.Resource.GroupResource(); {
	case gr == namespacesResource:
		o = p.validateNamespace(ctx, a)
	case gr == podsResource:
		o = p.validatePod(ctx, a)
	case templated[gr]:
		o = p.validateTemplate(ctx, a)
	default:
		return nil
	}
	for _, w := range o.warnings {
		warning.AddWarning(ctx, w)
	}
	for k, v := range o.annotations {
		auditcontext.AddAnnotation(ctx, k, v)
	}
	return o.err
}

// ignoredPodSubresources are the pod subresources whose writes cannot
// change what the checks look at.
var ignoredPodSubresources = map[string]bool{
	"exec": true, "attach": true, "binding": true, "eviction": true,
	"log": true, "portforward": true, "proxy": true, "status": true,
}

func exempt(reason string) outcome {
	return outcome{annotations: map[string]string{annotationExempt: reason}}
}

// validatePod enforces, audits and warns about a pod. Of updates, only
// those that change a container's image or add a container or an
// ephemeral container are checked.
func (p *Plugin) validatePod(ctx context.Context, a *admission.Attributes) outcome {
	if ignoredPodSubresources[a.Subresource] {
		return outcome{}
	}
	if o, ok := p.exemptRequest(a); ok {
		return o
	}
	ns, err := p.namespace(ctx, a.Namespace)
	if err != nil {
		p.metrics.error(true, a)
		status := apierrors.NewInternalError(fmt.Errorf("failed to lookup namespace %q", a.Namespace))
		return outcome{err: status, annotations: map[string]string{annotationError: fmt.Sprintf("%s: %v", status.ErrStatus.Message, err)}}
	}
	nsPolicy, nsErrs := policy.FromLabels(ns.Labels, p.defaults)
	if len(nsErrs) == 0 && nsPolicy.FullyPrivileged() {
		p.metrics.evaluation(allow, nsPolicy.Enforce, modeEnforce, a)
		return outcome{annotations: map[string]string{annotationEnforcePolicy: "privileged:latest"}}
	}
	pod, ok := a.Object.(*corev1.Pod)
	if !ok {
		p.metrics.error(true, a)
		return decodeError("failed to decode pod")
	}
	if a.Operation == admission.Update {
		old, ok := a.OldObject.(*corev1.Pod)
		if !ok {
			p.metrics.error(true, a)
			return decodeError("failed to decode old pod")
		}
		if !significantUpdate(pod, old) {
			return outcome{}
		}
	}
	return p.evaluate(a, nsPolicy, nsErrs, &pod.ObjectMeta, &pod.Spec, true)
}

func decodeError(msg string) outcome {
	status := apierrors.NewBadRequest(msg)
	return outcome{err: status, annotations: map[string]string{annotationError: msg}}
}

// How long, and for how many namespaces, the plugin reads a namespace
// from the server after it admitted a change of its labels.
const (
	recentNamespaceTTL = 10 * time.Second
	recentNamespaces   = 1024
)

// namespace reads the namespace of a pod or workload. The informer's
// cache may not have caught up yet with a change of the namespace's
// labels made just before (kapi's informers run over the loopback
// client, a watch event behind the write): for a while after the plugin
// admitted a change of a namespace, the namespace is read from the
// server, so that a pod created right after its namespace was labelled
// is checked against the new labels, as it would be on kube-apiserver.
func (p *Plugin) namespace(ctx context.Context, name string) (*corev1.Namespace, error) {
	if p.live != nil {
		if _, ok := p.recent.Get(name); ok {
			return p.live.GetNamespace(ctx, name)
		}
	}
	return p.namespaces.GetNamespace(ctx, name)
}

// validateTemplate warns and audits about the pod template of a
// workload; it never refuses.
func (p *Plugin) validateTemplate(ctx context.Context, a *admission.Attributes) outcome {
	if a.Subresource != "" {
		return outcome{}
	}
	if o, ok := p.exemptRequest(a); ok {
		return o
	}
	ns, err := p.namespace(ctx, a.Namespace)
	if err != nil {
		p.metrics.error(true, a)
		return outcome{annotations: map[string]string{annotationError: fmt.Sprintf("failed to lookup namespace %q: %v", a.Namespace, err)}}
	}
	nsPolicy, nsErrs := policy.FromLabels(ns.Labels, p.defaults)
	if len(nsErrs) == 0 && nsPolicy.Warn.Level == policy.Privileged && nsPolicy.Audit.Level == policy.Privileged {
		return outcome{}
	}
	template, err := podTemplate(a.Object)
	if err != nil {
		p.metrics.error(true, a)
		return outcome{annotations: map[string]string{annotationError: fmt.Sprintf("failed to extract pod template: %v", err)}}
	}
	if template == nil {
		return outcome{}
	}
	return p.evaluate(a, nsPolicy, nsErrs, &template.ObjectMeta, &template.Spec, false)
}

// podTemplate is the pod template of a workload (nil if it has none).
func podTemplate(obj any) (*corev1.PodTemplateSpec, error) {
	switch o := obj.(type) {
	case *corev1.PodTemplate:
		return &o.Template, nil
	case *corev1.ReplicationController:
		return o.Spec.Template, nil
	case *appsv1.ReplicaSet:
		return &o.Spec.Template, nil
	case *appsv1.Deployment:
		return &o.Spec.Template, nil
	case *appsv1.DaemonSet:
		return &o.Spec.Template, nil
	case *appsv1.StatefulSet:
		return &o.Spec.Template, nil
	case *batchv1.Job:
		return &o.Spec.Template, nil
	case *batchv1.CronJob:
		return &o.Spec.JobTemplate.Spec.Template, nil
	}
	return nil, fmt.Errorf("unexpected object type: %T", obj)
}

// exemptRequest answers a write in an exempt namespace or by an exempt
// user.
func (p *Plugin) exemptRequest(a *admission.Attributes) (outcome, bool) {
	if p.exemptNamespace(a.Namespace) {
		p.metrics.exemption(a)
		return exempt("namespace"), true
	}
	if a.User != nil && a.User.GetName() != "" && contains(p.config.Exemptions.Usernames, a.User.GetName()) {
		p.metrics.exemption(a)
		return exempt("user"), true
	}
	return outcome{}, false
}

func (p *Plugin) exemptNamespace(ns string) bool {
	return ns != "" && contains(p.config.Exemptions.Namespaces, ns)
}

func (p *Plugin) exemptRuntimeClass(rc *string) bool {
	return rc != nil && *rc != "" && contains(p.config.Exemptions.RuntimeClasses, *rc)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// evaluate checks a pod's metadata and spec in each mode of the
// namespace's policy: refusing it if enforce says so, annotating the
// audit of what audit finds and warning of what warn finds.
func (p *Plugin) evaluate(a *admission.Attributes, nsPolicy policy.Policy, nsErrs field.ErrorList, meta *metav1.ObjectMeta, spec *corev1.PodSpec, enforce bool) outcome {
	if p.exemptRuntimeClass(spec.RuntimeClassName) {
		p.metrics.exemption(a)
		return exempt("runtimeClass")
	}
	o := outcome{annotations: map[string]string{}}
	if len(nsErrs) > 0 {
		o.annotations[annotationError] = fmt.Sprintf("Failed to parse policy: %v", nsErrs.ToAggregate())
		p.metrics.error(false, a)
	}
	verdicts := map[policy.LevelVersion]policy.Verdict{}
	verdict := func(lv policy.LevelVersion) policy.Verdict {
		v, ok := verdicts[lv]
		if !ok {
			v = p.evaluator.Evaluate(lv, meta, spec)
			verdicts[lv] = v
		}
		return v
	}
	if enforce {
		o.annotations[annotationEnforcePolicy] = nsPolicy.Enforce.String()
		if v := verdict(nsPolicy.Enforce); !v.Allowed() {
			o.err = apierrors.NewForbidden(a.Resource.GroupResource(), objectName(a, meta),
				fmt.Errorf("violates PodSecurity %q: %s", nsPolicy.Enforce.String(), v.Detail()))
			p.metrics.evaluation(deny, nsPolicy.Enforce, modeEnforce, a)
		} else {
			p.metrics.evaluation(allow, nsPolicy.Enforce, modeEnforce, a)
		}
	}
	if v := verdict(nsPolicy.Audit); !v.Allowed() {
		o.annotations[annotationAuditViolations] = fmt.Sprintf("would violate PodSecurity %q: %s", nsPolicy.Audit.String(), v.Detail())
		p.metrics.evaluation(deny, nsPolicy.Audit, modeAudit, a)
	}
	if o.err == nil {
		if v := verdict(nsPolicy.Warn); !v.Allowed() {
			o.warnings = append(o.warnings, fmt.Sprintf("would violate PodSecurity %q: %s", nsPolicy.Warn.String(), v.Detail()))
			p.metrics.evaluation(deny, nsPolicy.Warn, modeWarn, a)
		}
	}
	return o
}

// significantUpdate says whether an update of a pod may change its
// verdict: a container's image changed, a container was added or
// removed, or an ephemeral container was added or changed its image.
// Other fields of a running pod's spec cannot change.
func significantUpdate(pod, old *corev1.Pod) bool {
	if len(pod.Spec.Containers) != len(old.Spec.Containers) || len(pod.Spec.InitContainers) != len(old.Spec.InitContainers) {
		return true
	}
	for i := range pod.Spec.Containers {
		if pod.Spec.Containers[i].Image != old.Spec.Containers[i].Image {
			return true
		}
	}
	for i := range pod.Spec.InitContainers {
		if pod.Spec.InitContainers[i].Image != old.Spec.InitContainers[i].Image {
			return true
		}
	}
	for _, c := range pod.Spec.EphemeralContainers {
		found := false
		for _, oc := range old.Spec.EphemeralContainers {
			if oc.Name == c.Name {
				if oc.Image != c.Image {
					return true
				}
				found = true
				break
			}
		}
		if !found {
			return true
		}
	}
	return false
}

// objectName names the object of a write in a refusal: by the time the
// validating plugins run, a generated name has been made.
func objectName(a *admission.Attributes, meta *metav1.ObjectMeta) string {
	if a.Name != "" {
		return a.Name
	}
	return meta.Name
}

package podsecurity

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/podsecurity/policy"
)

// kube-apiserver's bounds on the check of a namespace's existing pods
// against its new enforce level.
const (
	maxPodsToCheck  = 3000
	podCheckTimeout = time.Second
)

// validateNamespace refuses labels that cannot be read, and, when an
// update makes the enforce level stricter, warns of the existing pods
// that violate it. An exempt namespace is warned that its labels are
// ignored (kube-apiserver's attributes name a namespace's own namespace
// after it; kapi's leave it empty, as for every cluster-scoped resource).
func (p *Plugin) validateNamespace(ctx context.Context, a *admission.Attributes) outcome {
	if a.Subresource != "" {
		return outcome{}
	}
	ns, ok := a.Object.(*corev1.Namespace)
	if !ok {
		return decodeError("failed to decode namespace")
	}
	newPolicy, newErrs := policy.FromLabels(ns.Labels, p.defaults)
	if !a.DryRun {
		p.recent.Add(ns.Name, true, recentNamespaceTTL)
	}
	switch a.Operation {
	case admission.Create:
		if len(newErrs) > 0 {
			return outcome{err: apierrors.NewInvalid(a.Kind.GroupKind(), a.Name, newErrs)}
		}
		if p.exemptNamespace(ns.Name) {
			return p.exemptNamespaceWarning(ns, newPolicy)
		}
		return outcome{}
	case admission.Update:
		old, ok := a.OldObject.(*corev1.Namespace)
		if !ok {
			return decodeError("failed to decode  old namespace")
		}
		oldPolicy, oldErrs := policy.FromLabels(old.Labels, p.defaults)
		// Labels already wrong are let be, so that other changes of the
		// namespace are not refused for them.
		if len(newErrs) > 0 && (len(oldErrs) == 0 || !reflect.DeepEqual(newErrs, oldErrs)) {
			return outcome{err: apierrors.NewInvalid(a.Kind.GroupKind(), a.Name, newErrs)}
		}
		switch {
		case newPolicy.Enforce == oldPolicy.Enforce,
			newPolicy.Enforce.Level == policy.Privileged,
			newPolicy.Enforce.Version == oldPolicy.Enforce.Version && policy.CompareLevels(newPolicy.Enforce.Level, oldPolicy.Enforce.Level) < 1:
			return outcome{}
		}
		if p.exemptNamespace(ns.Name) {
			return p.exemptNamespaceWarning(ns, newPolicy)
		}
		return outcome{warnings: p.checkExistingPods(ctx, ns.Name, newPolicy.Enforce)}
	}
	return outcome{}
}

// exemptNamespaceWarning warns that an exempt namespace's labels will
// be ignored, naming the modes its labels set.
func (p *Plugin) exemptNamespaceWarning(ns *corev1.Namespace, pol policy.Policy) outcome {
	if pol.FullyPrivileged() || pol.Equivalent(p.defaults) {
		return outcome{}
	}
	var modes []string
	mode := func(name string, lv policy.LevelVersion, levelLabel, versionLabel string) {
		_, hasLevel := ns.Labels[levelLabel]
		_, hasVersion := ns.Labels[versionLabel]
		if lv.Level != policy.Privileged && (hasLevel || hasVersion) {
			modes = append(modes, name+"="+lv.String())
		}
	}
	mode("enforce", pol.Enforce, policy.EnforceLevelLabel, policy.EnforceVersionLabel)
	mode("audit", pol.Audit, policy.AuditLevelLabel, policy.AuditVersionLabel)
	mode("warn", pol.Warn, policy.WarnLevelLabel, policy.WarnVersionLabel)
	return outcome{warnings: []string{fmt.Sprintf("namespace %q is exempt from Pod Security, and the policy (%s) will be ignored",
		ns.Name, strings.Join(modes, ", "))}}
}

// checkExistingPods are the warnings about a namespace's pods that
// violate its new enforce level: one per distinct set of reasons, naming
// the first pod by name and how many others. At most maxPodsToCheck pods
// are checked, for at most a second (or half the request's remaining
// time), one pod of each controller first.
func (p *Plugin) checkExistingPods(ctx context.Context, namespace string, enforce policy.LevelVersion) []string {
	timeout := podCheckTimeout
	if deadline, ok := ctx.Deadline(); ok {
		if half := time.Until(deadline) / 2; half < timeout {
			timeout = half
		}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	pods, err := p.pods.ListPods(ctx, namespace)
	if err != nil {
		return []string{"failed to list pods while checking new PodSecurity enforce level"}
	}
	pods = p.prioritize(pods)
	total := len(pods)
	if len(pods) > p.maxPodsToCheck {
		pods = pods[:p.maxPodsToCheck]
	}
	checked := len(pods)
	type seen struct {
		first string
		count int
	}
	byReason := map[string]*seen{}
	var reasons []string
	for i, pod := range pods {
		v := p.evaluator.Evaluate(enforce, &pod.ObjectMeta, &pod.Spec)
		if !v.Allowed() {
			r := v.Reason()
			s, ok := byReason[r]
			if !ok {
				s = &seen{first: pod.Name}
				byReason[r] = s
				reasons = append(reasons, r)
			} else if pod.Name < s.first {
				s.first = pod.Name
			}
			s.count++
		}
		if ctx.Err() != nil {
			checked = i + 1
			break
		}
	}
	var warnings []string
	if checked < total {
		warnings = append(warnings, fmt.Sprintf("new PodSecurity enforce level only checked against the first %d of %d existing pods", checked, total))
	}
	if len(reasons) > 0 {
		warnings = append(warnings, fmt.Sprintf("existing pods in namespace %q violate the new PodSecurity enforce level %q", namespace, enforce.String()))
	}
	for i, r := range reasons {
		switch s := byReason[r]; s.count {
		case 1:
			reasons[i] = fmt.Sprintf("%s: %s", s.first, r)
		case 2:
			reasons[i] = fmt.Sprintf("%s (and 1 other pod): %s", s.first, r)
		default:
			reasons[i] = fmt.Sprintf("%s (and %d other pods): %s", s.first, s.count-1, r)
		}
	}
	sort.Strings(reasons)
	return append(warnings, reasons...)
}

// prioritize orders pods for the check: those not exempt by runtime
// class, one per controller first, then the other pods of controllers
// already seen.
func (p *Plugin) prioritize(pods []*corev1.Pod) []*corev1.Pod {
	var first, rest []*corev1.Pod
	controllers := map[types.UID]bool{}
	for _, pod := range pods {
		if p.exemptRuntimeClass(pod.Spec.RuntimeClassName) {
			continue
		}
		ref := metav1.GetControllerOfNoCopy(pod)
		switch {
		case ref == nil:
			first = append(first, pod)
		case controllers[ref.UID]:
			rest = append(rest, pod)
		default:
			controllers[ref.UID] = true
			first = append(first, pod)
		}
	}
	return append(first, rest...)
}

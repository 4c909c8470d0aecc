package policy

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Result is one check's verdict on a pod: allowed, or a reason ("host
// namespaces") and a detail ("hostNetwork=true").
type Result struct {
	Allowed bool
	Reason  string
	Detail  string
}

var allowed = Result{Allowed: true}

func forbid(reason, detail string) Result { return Result{Reason: reason, Detail: detail} }

// checkFn is one version of a check.
type checkFn func(meta *metav1.ObjectMeta, spec *corev1.PodSpec) Result

// checkVersion is a check as it is from a version on, until the check's
// next version.
type checkVersion struct {
	since int
	fn    checkFn
	// overrides are the baseline checks this restricted check replaces
	// at the restricted level from this version on.
	overrides []string
}

// check is one control of the standards, at one level.
type check struct {
	id       string
	level    Level
	versions []checkVersion
}

// Verdict is the checks' verdict on one pod at one level and version: the
// reasons and details of every check that forbids it, in the checks'
// order.
type Verdict struct {
	Reasons []string
	Details []string
}

// Allowed says whether no check forbade the pod.
func (v Verdict) Allowed() bool { return len(v.Reasons) == 0 }

// Reason is the reasons, comma-separated: what a namespace's new enforce
// level reports of its existing pods.
func (v Verdict) Reason() string { return strings.Join(v.Reasons, ", ") }

// Detail is each reason with its detail in parentheses, comma-separated:
// what a refusal or a warning says.
func (v Verdict) Detail() string {
	var b strings.Builder
	for i, r := range v.Reasons {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(r)
		if v.Details[i] != "" {
			b.WriteString(" (" + v.Details[i] + ")")
		}
	}
	return b.String()
}

// Evaluator evaluates pods against the standards. Its zero value is not
// usable; use NewEvaluator.
type Evaluator struct {
	// baseline and restricted are the checks of each level at each
	// version v1.0 ... v1.max, in evaluation order.
	baseline, restricted [][]checkFn
}

// MaxVersion is the newest policy version kube-apiserver 1.37 knows:
// newer versions, and latest, evaluate as this one.
const MaxVersion = 37

// NewEvaluator builds the checks of every level and version.
func NewEvaluator() *Evaluator {
	checks := allChecks()
	// Baseline checks come first, then restricted ones, each by id.
	slices.SortStableFunc(checks, func(a, b check) int {
		if a.level != b.level {
			if a.level == Baseline {
				return -1
			}
			return 1
		}
		return strings.Compare(a.id, b.id)
	})
	e := &Evaluator{
		baseline:   make([][]checkFn, MaxVersion+1),
		restricted: make([][]checkFn, MaxVersion+1),
	}
	for v := 0; v <= MaxVersion; v++ {
		overridden := map[string]bool{}
		for _, c := range checks {
			if cv, ok := c.at(v); ok && c.level == Restricted {
				for _, id := range cv.overrides {
					overridden[id] = true
				}
			}
		}
		for _, c := range checks {
			cv, ok := c.at(v)
			if !ok {
				continue
			}
			if c.level == Baseline {
				e.baseline[v] = append(e.baseline[v], cv.fn)
				if overridden[c.id] {
					continue
				}
			}
			e.restricted[v] = append(e.restricted[v], cv.fn)
		}
	}
	return e
}

// at is the version of c in force at policy version v1.v, if any.
func (c check) at(v int) (checkVersion, bool) {
	var found checkVersion
	ok := false
	for _, cv := range c.versions {
		if cv.since <= v {
			found, ok = cv, true
		}
	}
	return found, ok
}

// Evaluate runs the checks of lv on a pod's metadata and spec.
// Privileged allows everything.
func (e *Evaluator) Evaluate(lv LevelVersion, meta *metav1.ObjectMeta, spec *corev1.PodSpec) Verdict {
	var fns []checkFn
	v := MaxVersion
	if !lv.Version.Latest() && lv.Version.Minor() < MaxVersion {
		v = lv.Version.Minor()
	}
	switch lv.Level {
	case Baseline:
		fns = e.baseline[v]
	case Restricted:
		fns = e.restricted[v]
	default:
		return Verdict{}
	}
	if meta == nil {
		meta = &metav1.ObjectMeta{}
	}
	var out Verdict
	for _, fn := range fns {
		r := fn(meta, spec)
		if r.Allowed {
			continue
		}
		if r.Reason == "" {
			r.Reason = "unknown forbidden reason"
		}
		out.Reasons = append(out.Reasons, r.Reason)
		out.Details = append(out.Details, r.Detail)
	}
	return out
}

// containers visits every container of a pod: init containers, then
// containers, then ephemeral containers.
func containers(spec *corev1.PodSpec, visit func(c *corev1.Container)) {
	for i := range spec.InitContainers {
		visit(&spec.InitContainers[i])
	}
	for i := range spec.Containers {
		visit(&spec.Containers[i])
	}
	for i := range spec.EphemeralContainers {
		visit((*corev1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon))
	}
}

// userNamespaced says whether the pod runs in a user namespace of its
// own (hostUsers: false), which some checks relax from v1.35 on.
func userNamespaced(spec *corev1.PodSpec) bool {
	return spec.HostUsers != nil && !*spec.HostUsers
}

// windows says whether the pod declares the Windows OS, which some
// restricted checks exempt from v1.25 on.
func windows(spec *corev1.PodSpec) bool {
	return spec.OS != nil && spec.OS.Name == corev1.Windows
}

// setters is "pod and containers "a", "b"": who set a forbidden value.
func setters(pod bool, names []string) []string {
	var out []string
	if pod {
		out = append(out, "pod")
	}
	if len(names) > 0 {
		out = append(out, plural("container", "containers", len(names))+" "+joinQuote(names))
	}
	return out
}

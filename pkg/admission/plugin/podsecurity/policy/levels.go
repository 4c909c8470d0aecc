// Package policy is the Pod Security Standards: the checks of the
// baseline and restricted levels, each at every policy version from v1.0
// to the newest kube-apiserver 1.37 knows, and the namespace labels that
// choose a level and a version for each mode (enforce, audit, warn).
//
// It follows the kubernetes/pod-security-admission library that
// kube-apiserver's PodSecurity plugin is built on: the same checks at the
// same versions, evaluated in the same order, with the same messages,
// since those messages are what clients see in refusals and warnings.
package policy

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Level is a Pod Security Standards level.
type Level string

const (
	Privileged Level = "privileged"
	Baseline   Level = "baseline"
	Restricted Level = "restricted"
)

// ParseLevel reads a level; on an invalid one it answers restricted (the
// strictest, so that an enforce label that cannot be read fails closed).
func ParseLevel(s string) (Level, error) {
	switch l := Level(s); l {
	case Privileged, Baseline, Restricted:
		return l, nil
	}
	return Restricted, fmt.Errorf("must be one of privileged, baseline, restricted")
}

// compareLevels is <0, 0 or >0 as a is less strict than, as strict as or
// stricter than b.
func compareLevels(a, b Level) int {
	rank := func(l Level) int {
		switch l {
		case Privileged:
			return 0
		case Baseline:
			return 1
		}
		return 2
	}
	return rank(a) - rank(b)
}

// CompareLevels is <0, 0 or >0 as a is less strict than, as strict as or
// stricter than b.
func CompareLevels(a, b Level) int { return compareLevels(a, b) }

// Version is a policy version: v1.<minor>, or latest, newer than every
// numbered version.
type Version struct {
	minor  int
	latest bool
}

// Latest is the newest version, whatever the server's.
var Latest = Version{latest: true}

// V1 is version v1.minor.
func V1(minor int) Version { return Version{minor: minor} }

func (v Version) String() string {
	if v.latest {
		return "latest"
	}
	return "v1." + strconv.Itoa(v.minor)
}

// Latest says whether v is latest.
func (v Version) Latest() bool { return v.latest }

// Minor is the minor version of v1.x (0 for latest).
func (v Version) Minor() int { return v.minor }

// Older says whether v is older than o; latest is older than nothing.
func (v Version) Older(o Version) bool {
	if v.latest {
		return false
	}
	return o.latest || v.minor < o.minor
}

var versionPattern = regexp.MustCompile(`^v1\.(0|[1-9][0-9]*)$`)

// ParseVersion reads "latest" or "v1.x"; on an invalid one it answers
// latest.
func ParseVersion(s string) (Version, error) {
	if s == "latest" {
		return Latest, nil
	}
	m := versionPattern.FindStringSubmatch(s)
	if m == nil {
		return Latest, fmt.Errorf(`must be "latest" or "v1.x"`)
	}
	minor, err := strconv.Atoi(m[1])
	if err != nil {
		return Latest, fmt.Errorf(`must be "latest" or "v1.x"`)
	}
	return V1(minor), nil
}

// LevelVersion is a level at a version: what one mode of a namespace
// evaluates pods against.
type LevelVersion struct {
	Level   Level
	Version Version
}

func (lv LevelVersion) String() string { return string(lv.Level) + ":" + lv.Version.String() }

// equivalent says whether two level-versions allow the same pods: any
// two privileged ones do.
func (lv LevelVersion) equivalent(o LevelVersion) bool {
	return lv.Level == Privileged && o.Level == Privileged || lv == o
}

// Policy is what a namespace evaluates pods against in each mode.
type Policy struct {
	Enforce LevelVersion
	Audit   LevelVersion
	Warn    LevelVersion
}

// FullyPrivileged says whether no mode checks anything.
func (p Policy) FullyPrivileged() bool {
	return p.Enforce.Level == Privileged && p.Audit.Level == Privileged && p.Warn.Level == Privileged
}

// Equivalent says whether p and o allow the same pods in every mode.
func (p Policy) Equivalent(o Policy) bool {
	return p.Enforce.equivalent(o.Enforce) && p.Audit.equivalent(o.Audit) && p.Warn.equivalent(o.Warn)
}

// The namespace labels.
const (
	LabelPrefix         = "pod-security.kubernetes.io/"
	EnforceLevelLabel   = LabelPrefix + "enforce"
	EnforceVersionLabel = LabelPrefix + "enforce-version"
	AuditLevelLabel     = LabelPrefix + "audit"
	AuditVersionLabel   = LabelPrefix + "audit-version"
	WarnLevelLabel      = LabelPrefix + "warn"
	WarnVersionLabel    = LabelPrefix + "warn-version"
)

var labelsPath = field.NewPath("metadata", "labels")

// FromLabels is the policy of a namespace with labels, whose unset modes
// take defaults. A label that cannot be read is reported; its mode then
// fails closed for enforce (restricted, latest) and open for audit and
// warn (privileged). A namespace that sets only an enforce level warns
// at that level too, unless the default warn level is stricter.
func FromLabels(labels map[string]string, defaults Policy) (Policy, field.ErrorList) {
	p := defaults
	if len(labels) == 0 {
		return p, nil
	}
	var errs field.ErrorList
	invalid := func(label, value string, err error) {
		if err != nil {
			errs = append(errs, field.Invalid(labelsPath.Key(label), value, err.Error()))
		}
	}
	var err error
	hasEnforceLevel := false
	if v, ok := labels[EnforceLevelLabel]; ok {
		p.Enforce.Level, err = ParseLevel(v)
		hasEnforceLevel = err == nil
		invalid(EnforceLevelLabel, v, err)
	}
	if v, ok := labels[EnforceVersionLabel]; ok {
		p.Enforce.Version, err = ParseVersion(v)
		invalid(EnforceVersionLabel, v, err)
	}
	if v, ok := labels[AuditLevelLabel]; ok {
		p.Audit.Level, err = ParseLevel(v)
		invalid(AuditLevelLabel, v, err)
		if err != nil {
			p.Audit.Level = Privileged
		}
	}
	if v, ok := labels[AuditVersionLabel]; ok {
		p.Audit.Version, err = ParseVersion(v)
		invalid(AuditVersionLabel, v, err)
	}
	_, hasWarnLevel := labels[WarnLevelLabel]
	if v, ok := labels[WarnLevelLabel]; ok {
		p.Warn.Level, err = ParseLevel(v)
		invalid(WarnLevelLabel, v, err)
		if err != nil {
			p.Warn.Level = Privileged
		}
	}
	_, hasWarnVersion := labels[WarnVersionLabel]
	if hasWarnVersion {
		v := labels[WarnVersionLabel]
		p.Warn.Version, err = ParseVersion(v)
		invalid(WarnVersionLabel, v, err)
	}
	if !hasWarnLevel && hasEnforceLevel && compareLevels(p.Enforce.Level, p.Warn.Level) > 0 {
		p.Warn.Level = p.Enforce.Level
		if !hasWarnVersion {
			p.Warn.Version = p.Enforce.Version
		}
	}
	return p, errs
}

// joinQuote is "a", "b", "c".
func joinQuote(items []string) string {
	if len(items) == 0 {
		return ""
	}
	return `"` + strings.Join(items, `", "`) + `"`
}

// plural is one or many as count is 1 or not.
func plural(one, many string, count int) string {
	if count == 1 {
		return one
	}
	return many
}

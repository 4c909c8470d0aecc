package core

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// PodWarnings are the warnings kube-apiserver gives on the create of a
// pod: a name that is not a DNS label (it becomes the hostname), then the
// pod template warnings with the paths of a pod (spec.*, metadata.*).
// AppArmor annotations are not among them: ApplyAppArmorAnnotations warns
// of those. kube-apiserver gives no warnings on a pod's updates.
func PodWarnings(pod *v1.Pod) []string {
	var warnings []string
	if msgs := validation.IsDNS1123Label(pod.Name); len(msgs) != 0 {
		warnings = append(warnings, fmt.Sprintf("metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is recommended: %v", msgs))
	}
	return append(warnings, podSpecWarnings(nil, &pod.Spec, &pod.ObjectMeta, false)...)
}

// ApplyAppArmorAnnotations gives each container of a new pod that has a
// (deprecated) AppArmor annotation and no profile of its own the profile
// the annotation names, unless the pod's profile is already that one, as
// kube-apiserver does for old clients. It returns the warnings of the
// annotations so found: every one that set a profile or named none
// valid. Windows pods keep their annotations as they are.
func ApplyAppArmorAnnotations(pod *v1.Pod) []string {
	if pod.Spec.OS != nil && pod.Spec.OS.Name == v1.Windows {
		return nil
	}
	var podProfile *v1.AppArmorProfile
	if pod.Spec.SecurityContext != nil {
		podProfile = pod.Spec.SecurityContext.AppArmorProfile
	}
	var warnings []string
	visitContainers(&pod.Spec, nil, func(c *v1.Container, _ *field.Path) {
		key := appArmorAnnotationPrefix + c.Name
		value, ok := pod.Annotations[key]
		if !ok || (c.SecurityContext != nil && c.SecurityContext.AppArmorProfile != nil) {
			return
		}
		profile := appArmorProfileForAnnotation(value)
		if len(validateAppArmorProfile(profile, nil)) > 0 {
			profile = nil
		}
		warn := profile == nil
		if profile != nil && !apiequality.Semantic.DeepEqual(profile, podProfile) {
			if c.SecurityContext == nil {
				c.SecurityContext = &v1.SecurityContext{}
			}
			c.SecurityContext.AppArmorProfile = profile
			warn = true
		}
		if warn {
			warnings = append(warnings, fmt.Sprintf(`%s: deprecated since v1.30; use the "appArmorProfile" field instead`, field.NewPath("metadata", "annotations").Key(key)))
		}
	})
	return warnings
}

// appArmorProfileForAnnotation is the profile an AppArmor annotation's
// value names: runtime/default, unconfined or localhost/<profile>; nil
// for anything else.
func appArmorProfileForAnnotation(value string) *v1.AppArmorProfile {
	switch {
	case value == v1.DeprecatedAppArmorBetaProfileRuntimeDefault:
		return &v1.AppArmorProfile{Type: v1.AppArmorProfileTypeRuntimeDefault}
	case value == v1.DeprecatedAppArmorBetaProfileNameUnconfined:
		return &v1.AppArmorProfile{Type: v1.AppArmorProfileTypeUnconfined}
	case strings.HasPrefix(value, v1.DeprecatedAppArmorBetaProfileNamePrefix) && value != v1.DeprecatedAppArmorBetaProfileNamePrefix:
		name := strings.TrimPrefix(value, v1.DeprecatedAppArmorBetaProfileNamePrefix)
		return &v1.AppArmorProfile{Type: v1.AppArmorProfileTypeLocalhost, LocalhostProfile: &name}
	}
	return nil
}

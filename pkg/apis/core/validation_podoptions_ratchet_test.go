package core_test

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/apis/core"
)

const invalidLabelValue = `Invalid value: "bad value!": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`

// ratchetedRules are the rules of a pod spec that an update tolerates when
// the old object already broke them, each with kube-apiserver 1.37's
// errors for a pod that newly breaks it (recorded from a dry-run create),
// their paths relative to the pod.
var ratchetedRules = []struct {
	name   string
	break_ func(*v1.PodSpec)
	want   []string
}{
	{
		name: "huge pages that are not a whole number of pages",
		break_: func(s *v1.PodSpec) {
			list := v1.ResourceList{"hugepages-2Mi": resource.MustParse("3Mi"), v1.ResourceMemory: resource.MustParse("1Gi")}
			s.Containers[0].Resources = v1.ResourceRequirements{Limits: list, Requests: list.DeepCopy()}
		},
		want: []string{
			`spec.containers[0].resources.limits[hugepages-2Mi]: Invalid value: "3Mi": 3Mi is not positive integer multiple of hugepages-2Mi`,
			`spec.containers[0].resources.requests[hugepages-2Mi]: Invalid value: "3Mi": 3Mi is not positive integer multiple of hugepages-2Mi`,
		},
	},
	{
		name: "an invalid label value in a pod affinity selector's expressions",
		break_: func(s *v1.PodSpec) {
			s.Affinity = &v1.Affinity{PodAffinity: &v1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
				TopologyKey: "k",
				LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
					Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"bad value!"},
				}}},
			}}}}
		},
		want: []string{"spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0].values[0]: " + invalidLabelValue},
	},
	{
		name: "an invalid label value in required node affinity",
		break_: func(s *v1.PodSpec) {
			s.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
				NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "zone", Operator: v1.NodeSelectorOpIn, Values: []string{"bad value!"}}}}},
			}}}
		},
		want: []string{"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values[0]: " + invalidLabelValue},
	},
	{
		name: "an invalid topology spread selector",
		break_: func(s *v1.PodSpec) {
			s.TopologySpreadConstraints = []v1.TopologySpreadConstraint{{
				MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: v1.DoNotSchedule,
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "bad value!"}},
			}}
		},
		want: []string{"spec.topologySpreadConstraints[0].labelSelector.matchLabels: " + invalidLabelValue},
	},
	{
		name: "a projected token path that climbs out of the volume",
		break_: func(s *v1.PodSpec) {
			s.Volumes = []v1.Volume{{Name: "t", VolumeSource: v1.VolumeSource{Projected: &v1.ProjectedVolumeSource{
				Sources: []v1.VolumeProjection{{ServiceAccountToken: &v1.ServiceAccountTokenProjection{Path: "../token", ExpirationSeconds: ptr(int64(3600))}}},
			}}}}
			s.Containers[0].VolumeMounts = nil
		},
		want: []string{`spec.volumes[0].projected.path: Invalid value: "../token": must not contain '..'`},
	},
	{
		name: "a network sysctl with the host's network",
		break_: func(s *v1.PodSpec) {
			s.HostNetwork = true
			s.Containers[0].Ports[0].HostPort = s.Containers[0].Ports[0].ContainerPort
			s.SecurityContext.Sysctls = []v1.Sysctl{{Name: "net.ipv4.ip_forward", Value: "1"}}
		},
		want: []string{`spec.securityContext.sysctls[0].name: Invalid value: "net.ipv4.ip_forward": may not be specified when 'hostNetwork' is true`},
	},
	{
		name: "CAP_SYS_ADMIN without privilege escalation",
		break_: func(s *v1.PodSpec) {
			s.Containers[0].SecurityContext = &v1.SecurityContext{
				AllowPrivilegeEscalation: ptr(false),
				Capabilities:             &v1.Capabilities{Add: []v1.Capability{"CAP_SYS_ADMIN"}},
			}
		},
		want: []string{"spec.containers[0].securityContext: Invalid value: " + sysAdminValue + ": cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN"},
	},
}

// sysAdminValue is how kube-apiserver shows the security context: its
// internal type, which has no JSON tags.
const sysAdminValue = `{"Capabilities":{"Add":["CAP_SYS_ADMIN"],"Drop":null},"Privileged":null,"SELinuxOptions":null,"WindowsOptions":null,"RunAsUser":null,"RunAsGroup":null,"RunAsNonRoot":null,"ReadOnlyRootFilesystem":null,"AllowPrivilegeEscalation":false,"ProcMount":null,"SeccompProfile":null,"AppArmorProfile":null}`

// A pod that breaks a rule is refused on create; one stored when the rule
// did not hold yet stays updatable, its spec unchanged or not.
func TestPodUpdatesTolerateWhatTheOldPodBroke(t *testing.T) {
	for _, rule := range ratchetedRules {
		t.Run(rule.name, func(t *testing.T) {
			old := validPod()
			rule.break_(&old.Spec)
			assertErrors(t, core.ValidatePod(old), rule.want)

			relabelled := old.DeepCopy()
			relabelled.Labels = map[string]string{"tier": "front"}
			assertErrors(t, core.ValidatePodUpdate(relabelled, old), nil)

			newImage := old.DeepCopy()
			newImage.Spec.Containers[0].Image = "nginx:1.28"
			assertErrors(t, core.ValidatePodUpdate(newImage, old), nil)
		})
	}
}

// A workload's pod template is tolerated the same way: an update whose old
// template broke a rule passes, one that newly breaks it is refused.
func TestPodTemplateUpdatesTolerateWhatTheOldTemplateBroke(t *testing.T) {
	for _, rule := range ratchetedRules {
		t.Run(rule.name, func(t *testing.T) {
			valid := &v1.PodTemplate{ObjectMeta: meta("web"), Template: v1.PodTemplateSpec{Spec: *validPod().Spec.DeepCopy()}}
			broken := valid.DeepCopy()
			rule.break_(&broken.Template.Spec)

			var want []string
			for _, w := range rule.want {
				want = append(want, "template."+w)
			}
			assertErrors(t, core.ValidatePodTemplate(broken), want)
			assertErrors(t, core.ValidatePodTemplateUpdate(broken, valid), want)

			changed := broken.DeepCopy()
			changed.Template.Spec.Containers[0].Image = "nginx:1.28"
			assertErrors(t, core.ValidatePodTemplateUpdate(changed, broken), nil)
		})
	}
}

// Topology spread matchLabelKeys are merged into the selector of a new
// pod: a key may then be both a key and an expression of the selector,
// not a label and an expression.
func TestSpreadMatchLabelKeysAfterMerge(t *testing.T) {
	pod := validPod()
	pod.Spec.TopologySpreadConstraints = []v1.TopologySpreadConstraint{{
		MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: v1.DoNotSchedule,
		LabelSelector: &metav1.LabelSelector{
			MatchLabels:      map[string]string{"app": "web"},
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"fe"}}},
		},
		MatchLabelKeys: []string{"tier"},
	}}
	assertErrors(t, core.ValidatePod(pod), nil)

	pod.Spec.TopologySpreadConstraints[0].LabelSelector.MatchLabels["tier"] = "fe"
	errs := core.ValidatePod(pod)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), `Invalid value: "tier": exists in both matchLabelKeys and labelSelector`) {
		t.Errorf("a key both a label and an expression of the selector: got %v", errs)
	}
}

// A pod's image volume needs a reference (a template's may leave it to be
// filled in); a pod stored without one stays updatable.
func TestPodUpdatesTolerateAnEmptyImageReference(t *testing.T) {
	old := validPod()
	old.Spec.Volumes = append(old.Spec.Volumes, v1.Volume{Name: "img", VolumeSource: v1.VolumeSource{Image: &v1.ImageVolumeSource{PullPolicy: v1.PullIfNotPresent}}})
	assertErrors(t, core.ValidatePod(old), []string{"spec.volumes[1].image.reference: Required value"})

	relabelled := old.DeepCopy()
	relabelled.Labels = map[string]string{"tier": "front"}
	assertErrors(t, core.ValidatePodUpdate(relabelled, old), nil)
}

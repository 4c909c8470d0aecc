package core

import (
	"fmt"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// PodTemplateWarnings are the warnings kube-apiserver gives on a write of
// a workload whose pod template, at fldPath (spec.template for most,
// template for PodTemplates), sets what is deprecated, ignored or likely
// a mistake. Every workload gives the same ones.
func PodTemplateWarnings(fldPath *field.Path, template *v1.PodTemplateSpec) []string {
	if template == nil {
		return nil
	}
	return podSpecWarnings(fldPath, &template.Spec, &template.ObjectMeta, true)
}

// ClaimSpecWarnings are the warnings of a claim's spec at fldPath (a
// StatefulSet's volume claim template, an ephemeral volume's): byte counts
// with a fraction.
func ClaimSpecWarnings(fldPath *field.Path, spec *v1.PersistentVolumeClaimSpec) []string {
	resources := fldPath.Child("resources")
	warnings := fractionalStorageWarning(spec.Resources.Requests, resources.Child("requests"))
	return append(warnings, fractionalStorageWarning(spec.Resources.Limits, resources.Child("limits"))...)
}

// deprecatedPodAnnotations are the annotations of features that became
// fields, with what to use instead.
var deprecatedPodAnnotations = []struct{ key, message string }{
	{"scheduler.alpha.kubernetes.io/critical-pod", `non-functional in v1.16+; use the "priorityClassName" field instead`},
	{"security.alpha.kubernetes.io/sysctls", `non-functional in v1.11+; use the "sysctls" field instead`},
	{"security.alpha.kubernetes.io/unsafe-sysctls", `non-functional in v1.11+; use the "sysctls" field instead`},
}

// podSpecWarnings are the warnings of a pod's spec and metadata, their
// paths below fldPath (nil for a pod). In kube-apiserver's order.
func podSpecWarnings(fldPath *field.Path, spec *v1.PodSpec, meta *metav1.ObjectMeta, template bool) []string {
	var warnings []string
	specPath := fldPath.Child("spec")
	annotationsPath := fldPath.Child("metadata", "annotations")

	for k := range spec.NodeSelector {
		if msg, ok := deprecatedNodeLabels[k]; ok {
			warnings = append(warnings, fmt.Sprintf("%s: %s", specPath.Child("nodeSelector").Key(k), msg))
		}
	}
	if spec.Affinity != nil && spec.Affinity.NodeAffinity != nil {
		na := spec.Affinity.NodeAffinity
		naPath := specPath.Child("affinity", "nodeAffinity")
		if na.RequiredDuringSchedulingIgnoredDuringExecution != nil {
			for i, term := range na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
				warnings = append(warnings, nodeSelectorTermWarnings(&term, naPath.Child("requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms").Index(i))...)
			}
		}
		for i, term := range na.PreferredDuringSchedulingIgnoredDuringExecution {
			warnings = append(warnings, nodeSelectorTermWarnings(&term.Preference, naPath.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i).Child("preference"))...)
		}
	}
	for i, c := range spec.TopologySpreadConstraints {
		cPath := specPath.Child("topologySpreadConstraints").Index(i)
		if msg, ok := deprecatedNodeLabels[c.TopologyKey]; ok {
			warnings = append(warnings, fmt.Sprintf("%s: %s is %s", cPath.Child("topologyKey"), c.TopologyKey, msg))
		}
		if c.LabelSelector == nil {
			warnings = append(warnings, fmt.Sprintf("%s: a null labelSelector results in matching no pod", cPath.Child("labelSelector")))
		}
	}

	for _, d := range deprecatedPodAnnotations {
		if _, ok := meta.Annotations[d.key]; ok {
			warnings = append(warnings, fmt.Sprintf("%s: %s", annotationsPath.Key(d.key), d.message))
		}
	}

	for i := range spec.Volumes {
		v := &spec.Volumes[i]
		vPath := specPath.Child("volumes").Index(i)
		for _, plugin := range []struct {
			set           bool
			name, message string
		}{
			{v.PhotonPersistentDisk != nil, "photonPersistentDisk", "deprecated in v1.11, non-functional in v1.16+"},
			{v.GitRepo != nil, "gitRepo", "deprecated in v1.11, and disabled by default in v1.33+"},
			{v.ScaleIO != nil, "scaleIO", "deprecated in v1.16, non-functional in v1.22+"},
			{v.Flocker != nil, "flocker", "deprecated in v1.22, non-functional in v1.25+"},
			{v.StorageOS != nil, "storageOS", "deprecated in v1.22, non-functional in v1.25+"},
			{v.Quobyte != nil, "quobyte", "deprecated in v1.22, non-functional in v1.25+"},
			{v.Glusterfs != nil, "glusterfs", "deprecated in v1.25, non-functional in v1.26+"},
		} {
			if plugin.set {
				warnings = append(warnings, fmt.Sprintf("%s: %s", vPath.Child(plugin.name), plugin.message))
			}
		}
		if v.Ephemeral != nil && v.Ephemeral.VolumeClaimTemplate != nil {
			warnings = append(warnings, ClaimSpecWarnings(vPath.Child("ephemeral", "volumeClaimTemplate", "spec"), &v.Ephemeral.VolumeClaimTemplate.Spec)...)
		}
		if v.CephFS != nil {
			warnings = append(warnings, fmt.Sprintf("%s: deprecated in v1.28, non-functional in v1.31+", vPath.Child("cephfs")))
		}
		if v.RBD != nil {
			warnings = append(warnings, fmt.Sprintf("%s: deprecated in v1.28, non-functional in v1.31+", vPath.Child("rbd")))
		}
	}
	warnings = append(warnings, overlappingPathWarnings(spec.Volumes)...)

	if len(spec.HostAliases) > 1 {
		seen := map[string]bool{}
		for i, a := range spec.HostAliases {
			if seen[a.IP] {
				warnings = append(warnings, fmt.Sprintf("%s: duplicate ip %q", specPath.Child("hostAliases").Index(i).Child("ip"), a.IP))
			}
			seen[a.IP] = true
		}
	}
	if len(spec.ImagePullSecrets) > 1 {
		seen := map[string]bool{}
		for i, s := range spec.ImagePullSecrets {
			if seen[s.Name] {
				warnings = append(warnings, fmt.Sprintf("%s: duplicate name %q", specPath.Child("imagePullSecrets").Index(i).Child("name"), s.Name))
			}
			seen[s.Name] = true
		}
	}
	for i, s := range spec.ImagePullSecrets {
		if s.Name == "" {
			warnings = append(warnings, fmt.Sprintf("%s: invalid empty name %q", specPath.Child("imagePullSecrets").Index(i).Child("name"), s.Name))
		}
	}

	warnings = append(warnings, fractionalBytesWarnings(spec.Overhead, specPath.Child("overhead"), v1.ResourceMemory, v1.ResourceEphemeralStorage)...)

	if spec.SecurityContext == nil || spec.SecurityContext.SeccompProfile == nil {
		if _, ok := meta.Annotations[seccompPodAnnotation]; ok {
			warnings = append(warnings, fmt.Sprintf(`%s: non-functional in v1.27+; use the "seccompProfile" field instead`, annotationsPath.Key(seccompPodAnnotation)))
		}
	}
	podAppArmor := spec.SecurityContext != nil && spec.SecurityContext.AppArmorProfile != nil
	visitContainers(spec, specPath, func(c *v1.Container, cPath *field.Path) {
		if c.SecurityContext == nil || c.SecurityContext.SeccompProfile == nil {
			if key := seccompContainerAnnotationPrefix + c.Name; hasKey(meta.Annotations, key) {
				warnings = append(warnings, fmt.Sprintf(`%s: non-functional in v1.27+; use the "seccompProfile" field instead`, annotationsPath.Key(key)))
			}
		}
		// A pod's AppArmor annotations become fields when it is created;
		// a template's stay, and are warned of.
		if template && !podAppArmor && (c.SecurityContext == nil || c.SecurityContext.AppArmorProfile == nil) {
			if key := appArmorAnnotationPrefix + c.Name; hasKey(meta.Annotations, key) {
				warnings = append(warnings, fmt.Sprintf(`%s: deprecated since v1.30; use the "appArmorProfile" field instead`, annotationsPath.Key(key)))
			}
		}
		for _, name := range []v1.ResourceName{v1.ResourceMemory, v1.ResourceEphemeralStorage} {
			warnings = append(warnings, fractionalBytesWarnings(c.Resources.Limits, cPath.Child("resources", "limits"), name)...)
			warnings = append(warnings, fractionalBytesWarnings(c.Resources.Requests, cPath.Child("resources", "requests"), name)...)
		}
		warnings = append(warnings, envWarnings(c, cPath)...)
	})
	warnings = append(warnings, portWarnings(spec, specPath)...)

	if g := spec.TerminationGracePeriodSeconds; g != nil && *g < 0 {
		warnings = append(warnings, fmt.Sprintf("%s: must be >= 0; negative values are invalid and will be treated as 1", specPath.Child("terminationGracePeriodSeconds")))
	}
	if spec.Affinity != nil {
		if pa := spec.Affinity.PodAffinity; pa != nil {
			warnings = append(warnings, podAffinityWarnings(pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution, specPath.Child("affinity", "podAffinity"))...)
		}
		if pa := spec.Affinity.PodAntiAffinity; pa != nil {
			warnings = append(warnings, podAffinityWarnings(pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution, specPath.Child("affinity", "podAntiAffinity"))...)
		}
	}
	if spec.DNSConfig != nil {
		for i, ns := range spec.DNSConfig.Nameservers {
			warnings = append(warnings, LegacyIPWarnings(specPath.Child("dnsConfig", "nameservers").Index(i), ns)...)
		}
	}
	for i, alias := range spec.HostAliases {
		warnings = append(warnings, LegacyIPWarnings(specPath.Child("hostAliases").Index(i).Child("ip"), alias.IP)...)
	}
	return warnings
}

func hasKey(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}

// nodeSelectorTermWarnings warn of deprecated node labels in a term.
func nodeSelectorTermWarnings(term *v1.NodeSelectorTerm, fldPath *field.Path) []string {
	var warnings []string
	for i, r := range term.MatchExpressions {
		if msg, ok := deprecatedNodeLabels[r.Key]; ok {
			warnings = append(warnings, fmt.Sprintf("%s: %s is %s", fldPath.Child("matchExpressions").Index(i).Child("key"), r.Key, msg))
		}
	}
	for i, r := range term.MatchFields {
		if msg, ok := deprecatedNodeLabels[r.Key]; ok {
			warnings = append(warnings, fmt.Sprintf("%s: %s is %s", fldPath.Child("matchFields").Index(i).Child("key"), r.Key, msg))
		}
	}
	return warnings
}

// fractionalBytesWarnings warn of the named byte counts (memory,
// ephemeral storage) of list that have a fraction of a byte.
func fractionalBytesWarnings(list v1.ResourceList, fldPath *field.Path, names ...v1.ResourceName) []string {
	var warnings []string
	for _, name := range names {
		if q, ok := list[name]; ok && q.MilliValue()%1000 != 0 {
			warnings = append(warnings, fmt.Sprintf("%s: fractional byte value %q is invalid, must be an integer", fldPath.Key(string(name)), q.String()))
		}
	}
	return warnings
}

// envWarnings warn of an environment variable defined again in a way that
// hides the first definition.
func envWarnings(c *v1.Container, cPath *field.Path) []string {
	var warnings []string
	seen := map[string]bool{}
	for i, e := range c.Env {
		if !seen[e.Name] {
			seen[e.Name] = true
			continue
		}
		ref := "$(" + e.Name + ")"
		if e.ValueFrom != nil || e.Value == ref || !strings.Contains(e.Value, ref) {
			warnings = append(warnings, fmt.Sprintf("%s: hides previous definition of %q, which may be dropped when using apply", cPath.Child("env").Index(i), e.Name))
		}
	}
	return warnings
}

// portWarnings warn of container ports, across all containers, that
// duplicate or overlap another, or set a host IP without a host port.
func portWarnings(spec *v1.PodSpec, specPath *field.Path) []string {
	type seenPort struct {
		path *field.Path
		port v1.ContainerPort
	}
	var warnings []string
	byPort := map[string][]seenPort{}
	visitContainers(spec, specPath, func(c *v1.Container, cPath *field.Path) {
		for i, p := range c.Ports {
			pPath := cPath.Child("ports").Index(i)
			if p.HostIP != "" && p.HostPort == 0 {
				warnings = append(warnings, fmt.Sprintf("%s: hostIP set without hostPort: %s", pPath, internalPortString(p)))
			}
			key := fmt.Sprintf("%d/%s", p.ContainerPort, p.Protocol)
			for _, other := range byPort[key] {
				switch oneUnset := (p.HostIP == "") != (other.port.HostIP == ""); {
				case p.HostIP == other.port.HostIP && p.HostPort == other.port.HostPort:
					warnings = append(warnings, fmt.Sprintf("%s: duplicate port definition with %s", pPath, other.path))
				case p.HostPort == 0 || other.port.HostPort == 0:
					warnings = append(warnings, fmt.Sprintf("%s: overlapping port definition with %s", pPath, other.path))
				case p.HostPort == other.port.HostPort && oneUnset:
					warnings = append(warnings, fmt.Sprintf("%s: dangerously ambiguous port definition with %s", pPath, other.path))
				}
			}
			byPort[key] = append(byPort[key], seenPort{pPath, p})
		}
	})
	return warnings
}

// internalPortString prints a port as kube-apiserver's %+v of its
// internal type does.
func internalPortString(p v1.ContainerPort) string {
	return fmt.Sprintf("{Name:%s HostPort:%d ContainerPort:%d Protocol:%s HostIP:%s}", p.Name, p.HostPort, p.ContainerPort, p.Protocol, p.HostIP)
}

// podAffinityWarnings warn of pod affinity terms without a label
// selector, which match no pod.
func podAffinityWarnings(required []v1.PodAffinityTerm, preferred []v1.WeightedPodAffinityTerm, fldPath *field.Path) []string {
	var warnings []string
	for i, t := range required {
		if t.LabelSelector == nil {
			warnings = append(warnings, fmt.Sprintf("%s: a null labelSelector results in matching no pod", fldPath.Child("requiredDuringSchedulingIgnoredDuringExecution").Index(i).Child("labelSelector")))
		}
	}
	for i, t := range preferred {
		if t.PodAffinityTerm.LabelSelector == nil {
			warnings = append(warnings, fmt.Sprintf("%s: a null labelSelector results in matching no pod", fldPath.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i).Child("podAffinityTerm", "labelSelector")))
		}
	}
	return warnings
}

// sourcedPath is a file a volume projects, and where it comes from
// ("ConfigMap \"cm\"", "ServiceAccountToken"; empty in a volume of one
// source).
type sourcedPath struct{ path, source string }

func (p sourcedPath) String() string {
	if p.source == "" {
		return strconv.Quote(p.path)
	}
	return fmt.Sprintf("%q (%s)", p.path, p.source)
}

func keyPaths(items []v1.KeyToPath, source string) []sourcedPath {
	out := make([]sourcedPath, len(items))
	for i, item := range items {
		out[i] = sourcedPath{item.Path, source}
	}
	return out
}

func downwardAPIPaths(items []v1.DownwardAPIVolumeFile, source string) []sourcedPath {
	out := make([]sourcedPath, len(items))
	for i, item := range items {
		out[i] = sourcedPath{item.Path, source}
	}
	return out
}

// overlaps are the files, of those a volume projects before, that p
// would replace or that would be a directory of it.
func overlaps(before []sourcedPath, p sourcedPath) []sourcedPath {
	if p.path == "" {
		return nil
	}
	var out []sourcedPath
	for _, b := range before {
		if b.path != "" && (strings.HasPrefix(b.path+"/", p.path+"/") || strings.HasPrefix(p.path+"/", b.path+"/")) {
			out = append(out, b)
		}
	}
	return out
}

// overlapWarnings checks the paths of one volume, in order, against those
// before them.
func overlapWarnings(volume, kind string, paths []sourcedPath, before *[]sourcedPath) []string {
	var warnings []string
	for _, p := range paths {
		p.path = strings.TrimRight(p.path, "/")
		for _, o := range overlaps(*before, p) {
			warnings = append(warnings, fmt.Sprintf("volume %q (%s): overlapping paths: %s with %s", volume, kind, p, o))
		}
		*before = append(*before, p)
	}
	return warnings
}

// overlappingPathWarnings warn of volumes that project two files at the
// same path, or a file where another is a directory.
func overlappingPathWarnings(volumes []v1.Volume) []string {
	var warnings []string
	for _, v := range volumes {
		if v.ConfigMap != nil && v.ConfigMap.Items != nil {
			warnings = append(warnings, overlapWarnings(v.Name, fmt.Sprintf("ConfigMap %q", v.ConfigMap.Name), keyPaths(v.ConfigMap.Items, ""), &[]sourcedPath{})...)
		}
		if v.Secret != nil && v.Secret.Items != nil {
			warnings = append(warnings, overlapWarnings(v.Name, fmt.Sprintf("Secret %q", v.Secret.SecretName), keyPaths(v.Secret.Items, ""), &[]sourcedPath{})...)
		}
		if v.DownwardAPI != nil && v.DownwardAPI.Items != nil {
			warnings = append(warnings, overlapWarnings(v.Name, "DownwardAPI", downwardAPIPaths(v.DownwardAPI.Items, ""), &[]sourcedPath{})...)
		}
		if v.Projected == nil {
			continue
		}
		var before []sourcedPath
		for _, s := range v.Projected.Sources {
			var paths []sourcedPath
			switch {
			case s.ConfigMap != nil && s.ConfigMap.Items != nil:
				paths = keyPaths(s.ConfigMap.Items, fmt.Sprintf("ConfigMap %q", s.ConfigMap.Name))
			case s.Secret != nil && s.Secret.Items != nil:
				paths = keyPaths(s.Secret.Items, fmt.Sprintf("Secret %q", s.Secret.Name))
			case s.DownwardAPI != nil && s.DownwardAPI.Items != nil:
				paths = downwardAPIPaths(s.DownwardAPI.Items, "DownwardAPI")
			case s.ServiceAccountToken != nil:
				paths = []sourcedPath{{s.ServiceAccountToken.Path, "ServiceAccountToken"}}
			case s.ClusterTrustBundle != nil:
				name := ""
				if s.ClusterTrustBundle.Name != nil {
					name = *s.ClusterTrustBundle.Name
				} else if s.ClusterTrustBundle.SignerName != nil {
					name = *s.ClusterTrustBundle.SignerName
				}
				paths = []sourcedPath{{s.ClusterTrustBundle.Path, fmt.Sprintf("ClusterTrustBundle %q", name)}}
			case s.PodCertificate != nil:
				for _, f := range []struct{ path, what string }{
					{s.PodCertificate.CertificateChainPath, "PodCertificate chain"},
					{s.PodCertificate.KeyPath, "PodCertificate key"},
					{s.PodCertificate.CredentialBundlePath, "PodCertificate credential bundle"},
				} {
					if f.path != "" {
						paths = append(paths, sourcedPath{f.path, f.what})
					}
				}
			case s.ConfigMap == nil && s.Secret == nil && s.DownwardAPI == nil:
				warnings = append(warnings, fmt.Sprintf("volume %q (Projected) has no sources provided", v.Name))
				continue
			}
			warnings = append(warnings, overlapWarnings(v.Name, "Projected", paths, &before)...)
		}
	}
	return warnings
}

// PodTemplateUpdateWarnings are the warnings of an update of a workload:
// its pod template's, when the update changed its spec (its generation),
// none otherwise, as kube-apiserver gives them.
func PodTemplateUpdateWarnings(fldPath *field.Path, template *v1.PodTemplateSpec, generation, oldGeneration int64) []string {
	if generation == oldGeneration {
		return nil
	}
	return PodTemplateWarnings(fldPath, template)
}

package policy

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

// allChecks are the controls of the Pod Security Standards, each with
// the policy versions its behaviour changed at. The ids are upstream's:
// they fix the order in which reasons are reported.
func allChecks() []check {
	return []check{
		// Baseline.
		{id: "appArmorProfile", level: Baseline, versions: []checkVersion{{since: 0, fn: appArmorProfile}}},
		{id: "capabilities_baseline", level: Baseline, versions: []checkVersion{{since: 0, fn: capabilitiesBaseline}}},
		{id: "hostNamespaces", level: Baseline, versions: []checkVersion{{since: 0, fn: hostNamespaces}}},
		{id: "hostPathVolumes", level: Baseline, versions: []checkVersion{{since: 0, fn: hostPathVolumes}}},
		{id: "hostPorts", level: Baseline, versions: []checkVersion{{since: 0, fn: hostPorts}}},
		{id: "hostProbesAndHostLifecycle", level: Baseline, versions: []checkVersion{{since: 34, fn: hostProbesAndLifecycle}}},
		{id: "privileged", level: Baseline, versions: []checkVersion{{since: 0, fn: privileged}}},
		{id: "procMount", level: Baseline, versions: []checkVersion{
			{since: 0, fn: procMount},
			{since: 35, fn: unlessUserNamespaced(procMount)},
		}},
		{id: "seLinuxOptions", level: Baseline, versions: []checkVersion{
			{since: 0, fn: seLinuxOptions(sets.New("", "container_t", "container_init_t", "container_kvm_t"))},
			{since: 31, fn: seLinuxOptions(sets.New("", "container_t", "container_init_t", "container_kvm_t", "container_engine_t"))},
		}},
		{id: "seccompProfile_baseline", level: Baseline, versions: []checkVersion{
			{since: 0, fn: seccompAnnotations},
			{since: 19, fn: seccompBaseline},
		}},
		{id: "sysctls", level: Baseline, versions: []checkVersion{
			{since: 0, fn: sysctls(sysctls1_0)},
			{since: 27, fn: sysctls(sysctls1_27)},
			{since: 29, fn: sysctls(sysctls1_29)},
			{since: 32, fn: sysctls(sysctls1_32)},
			{since: 37, fn: sysctls(sysctls1_37)},
		}},
		{id: "windowsHostProcess", level: Baseline, versions: []checkVersion{{since: 0, fn: windowsHostProcess}}},

		// Restricted.
		{id: "allowPrivilegeEscalation", level: Restricted, versions: []checkVersion{
			{since: 8, fn: allowPrivilegeEscalation},
			{since: 25, fn: unlessWindows(allowPrivilegeEscalation)},
		}},
		{id: "capabilities_restricted", level: Restricted, versions: []checkVersion{
			{since: 22, fn: capabilitiesRestricted, overrides: []string{"capabilities_baseline"}},
			{since: 25, fn: unlessWindows(capabilitiesRestricted), overrides: []string{"capabilities_baseline"}},
		}},
		{id: "procMount_restricted", level: Restricted, versions: []checkVersion{
			{since: 35, fn: procMount, overrides: []string{"procMount"}},
		}},
		{id: "restrictedVolumes", level: Restricted, versions: []checkVersion{
			{since: 0, fn: restrictedVolumes, overrides: []string{"hostPathVolumes"}},
		}},
		{id: "runAsNonRoot", level: Restricted, versions: []checkVersion{
			{since: 0, fn: runAsNonRoot},
			{since: 35, fn: unlessUserNamespaced(runAsNonRoot)},
		}},
		{id: "runAsUser", level: Restricted, versions: []checkVersion{
			{since: 23, fn: runAsUser},
			{since: 35, fn: unlessUserNamespaced(runAsUser)},
		}},
		{id: "seccompProfile_restricted", level: Restricted, versions: []checkVersion{
			{since: 19, fn: seccompRestricted, overrides: []string{"seccompProfile_baseline"}},
			{since: 25, fn: unlessWindows(seccompRestricted), overrides: []string{"seccompProfile_baseline"}},
		}},
	}
}

func unlessWindows(fn checkFn) checkFn {
	return func(meta *metav1.ObjectMeta, spec *corev1.PodSpec) Result {
		if windows(spec) {
			return allowed
		}
		return fn(meta, spec)
	}
}

func unlessUserNamespaced(fn checkFn) checkFn {
	return func(meta *metav1.ObjectMeta, spec *corev1.PodSpec) Result {
		if userNamespaced(spec) {
			return allowed
		}
		return fn(meta, spec)
	}
}

// appArmorProfile: the AppArmor profile, in the security contexts or the
// beta annotations, may only be the runtime's default or a local one.
func appArmorProfile(meta *metav1.ObjectMeta, spec *corev1.PodSpec) Result {
	goodType := func(t corev1.AppArmorProfileType) bool {
		return t == corev1.AppArmorProfileTypeRuntimeDefault || t == corev1.AppArmorProfileTypeLocalhost
	}
	values := sets.New[string]()
	pod := false
	if sc := spec.SecurityContext; sc != nil && sc.AppArmorProfile != nil && !goodType(sc.AppArmorProfile.Type) {
		pod = true
		values.Insert(string(sc.AppArmorProfile.Type))
	}
	var bad []string
	containers(spec, func(c *corev1.Container) {
		if sc := c.SecurityContext; sc != nil && sc.AppArmorProfile != nil && !goodType(sc.AppArmorProfile.Type) {
			bad = append(bad, c.Name)
			values.Insert(string(sc.AppArmorProfile.Type))
		}
	})
	who := setters(pod, bad)
	var annotations []string
	for k, v := range meta.Annotations {
		if !strings.HasPrefix(k, corev1.DeprecatedAppArmorBetaContainerAnnotationKeyPrefix) {
			continue
		}
		if v == "" || v == corev1.DeprecatedAppArmorBetaProfileRuntimeDefault || strings.HasPrefix(v, corev1.DeprecatedAppArmorBetaProfileNamePrefix) {
			continue
		}
		annotations = append(annotations, fmt.Sprintf("%s=%q", k, v))
	}
	list := sets.List(values)
	if len(annotations) > 0 {
		slices.Sort(annotations)
		list = append(list, annotations...)
		who = append(who, plural("annotation", "annotations", len(annotations)))
	}
	if len(who) == 0 {
		return allowed
	}
	return forbid(plural("forbidden AppArmor profile", "forbidden AppArmor profiles", len(list)),
		fmt.Sprintf("%s must not set AppArmor profile type to %s", strings.Join(who, " and "), joinQuote(list)))
}

// defaultCapabilities are those a container runtime grants by default,
// which baseline lets containers add.
var defaultCapabilities = sets.New("AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD",
	"NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT")

// capabilitiesBaseline: containers add no capability beyond the default
// set.
func capabilitiesBaseline(_ *metav1.ObjectMeta, spec *corev1.PodSpec) Result {
	var bad []string
	caps := sets.New[string]()
	containers(spec, func(c *corev1.Container) {
		if c.SecurityContext == nil || c.SecurityContext.Capabilities == nil {
			return
		}
		ok := true
		for _, cp := range c.SecurityContext.Capabilities.Add {
			if !defaultCapabilities.Has(string(cp)) {
				ok = false
				caps.Insert(string(cp))
			}
		}
		if !ok {
			bad = append(bad, c.Name)
		}
	})
	if len(bad) == 0 {
		return allowed
	}
	return forbid("non-default capabilities", fmt.Sprintf("%s %s must not include %s in securityContext.capabilities.add",
		plural("container", "containers", len(bad)), joinQuote(bad), joinQuote(sets.List(caps))))
}

// capabilitiesRestricted: containers drop ALL and add at most
// NET_BIND_SERVICE.
func capabilitiesRestricted(_ *metav1.ObjectMeta, spec *corev1.PodSpec) Result {
	var noDrop, adding []string
	caps := sets.New[string]()
	containers(spec, func(c *corev1.Container) {
		if c.SecurityContext == nil || c.SecurityContext.Capabilities == nil {
			noDrop = append(noDrop, c.Name)
			return
		}
		if !slices.Contains(c.SecurityContext.Capabilities.Drop, "ALL") {
			noDrop = append(noDrop, c.Name)
		}
		add := false
		for _, cp := range c.SecurityContext.Capabilities.Add {
			if cp != "NET_BIND_SERVICE" {
				add = true
				caps.Insert(string(cp))
			}
		}
		if add {
			adding = append(adding, c.Name)
		}
	})
	var details []string
	if len(noDrop) > 0 {
		details = append(details, fmt.Sprintf(`%s %s must set securityContext.capabilities.drop=["ALL"]`,
			plural("container", "containers", len(noDrop)), joinQuote(noDrop)))
	}
	if len(adding) > 0 {
		details = append(details, fmt.Sprintf("%s %s must not include %s in securityContext.capabilities.add",
			plural("container", "containers", len(adding)), joinQuote(adding), joinQuote(sets.List(caps))))
	}
	if len(details) == 0 {
		return allowed
	}
	return forbid("unrestricted capabilities", strings.Join(details, "; "))
}

// hostNamespaces: no host network, PID or IPC namespace.
func hostNamespaces(_ *metav1.ObjectMeta, spec *corev1.PodSpec) Result {
	var set []string
	if spec.HostNetwork {
		set = append(set, "hostNetwork=true")
	}
	if spec.HostPID {
		set = append(set, "hostPID=true")
	}
	if spec.HostIPC {
		set = append(set, "hostIPC=true")
	}
	if len(set) == 0 {
		return allowed
	}
	return forbid("host namespaces", strings.Join(set, ", "))
}

// hostPathVolumes: no hostPath volume.
func hostPathVolumes(_ *metav1.ObjectMeta, spec *corev1.PodSpec) Result {
	var bad []string
	for _, v := range spec.Volumes {
		if v.HostPath != nil {
			bad = append(bad, v.Name)
		}
	}
	if len(bad) == 0 {
		return allowed
	}
	return forbid("hostPath volumes", plural("volume", "volumes", len(bad))+" "+joinQuote(bad))
}

// hostPorts: no container port on the host.
func hostPorts(_ *metav1.ObjectMeta, spec *corev1.PodSpec) Result {
	var bad []string
	ports := sets.New[string]()
	containers(spec, func(c *corev1.Container) {
		ok := true
		for _, p := range c.Ports {
			if p.HostPort != 0 {
				ok = false
				ports.Insert(strconv.Itoa(int(p.HostPort)))
			}
		}
		if !ok {
			bad = append(bad, c.Name)
		}
	})
	if len(bad) == 0 {
		return allowed
	}
	return forbid("hostPort", fmt.Sprintf("%s %s %s %s %s",
		plural("container", "containers", len(bad)), joinQuote(bad), plural("uses", "use", len(bad)),
		plural("hostPort", "hostPorts", ports.Len()), strings.Join(sets.List(ports), ", ")))
}

// hostProbesAndLifecycle: probes and lifecycle handlers name no host.
func hostProbesAndLifecycle(_ *metav1.ObjectMeta, spec *corev1.PodSpec) Result {
	bad := sets.New[string]()
	hosts := sets.New[string]()
	note := func(c *corev1.Container, http *corev1.HTTPGetAction, tcp *corev1.TCPSocketAction) {
		if http != nil && http.Host != "" {
			bad.Insert(c.Name)
			hosts.Insert(http.Host)
		}
		if tcp != nil && tcp.Host != "" {
			bad.Insert(c.Name)
			hosts.Insert(tcp.Host)
		}
	}
	containers(spec, func(c *corev1.Container) {
		for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
			if p != nil {
				note(c, p.HTTPGet, p.TCPSocket)
			}
		}
		if c.Lifecycle != nil {
			for _, h := range []*corev1.LifecycleHandler{c.Lifecycle.PostStart, c.Lifecycle.PreStop} {
				if h != nil {
					note(c, h.HTTPGet, h.TCPSocket)
				}
			}
		}
	})
	if bad.Len() == 0 {
		return allowed
	}
	return forbid("probe or lifecycle host", fmt.Sprintf("%s %s %s %s %s",
		plural("container", "containers", bad.Len()), joinQuote(sets.List(bad)), plural("uses", "use", bad.Len()),
		plural("probe or lifecycle host", "probe or lifecycle hosts", hosts.Len()), joinQuote(sets.List(hosts))))
}

// privileged: no privileged container.
func privileged(_ *metav1.ObjectMeta, spec *corev1.PodSpec) Result {
	var bad []string
	containers(spec, func(c *corev1.Container) {
		if c.SecurityContext != nil && c.SecurityContext.Privileged != nil && *c.SecurityContext.Privileged {
			bad = append(bad, c.Name)
		}
	})
	if len(bad) == 0 {
		return allowed
	}
	return forbid("privileged", fmt.Sprintf("%s %s must not set securityContext.privileged=true",
		plural("container", "containers", len(bad)), joinQuote(bad)))
}

// procMount: containers keep the default /proc mount.
func procMount(_ *metav1.ObjectMeta, spec *corev1.PodSpec) Result {
	var bad []string
	types := sets.New[string]()
	containers(spec, func(c *corev1.Container) {
		if c.SecurityContext == nil || c.SecurityContext.ProcMount == nil || *c.SecurityContext.ProcMount == corev1.DefaultProcMount {
			return
		}
		bad = append(bad, c.Name)
		types.Insert(string(*c.SecurityContext.ProcMount))
	})
	if len(bad) == 0 {
		return allowed
	}
	return forbid("procMount", fmt.Sprintf("%s %s must not set securityContext.procMount to %s",
		plural("container", "containers", len(bad)), joinQuote(bad), joinQuote(sets.List(types))))
}

// seLinuxOptions: SELinux options set no user or role, and a type among
// those allowed.
func seLinuxOptions(allowedTypes sets.Set[string]) checkFn {
	return func(_ *metav1.ObjectMeta, spec *corev1.PodSpec) Result {
		types := sets.New[string]()
		user, role := false, false
		good := func(o *corev1.SELinuxOptions) bool {
			ok := true
			if !allowedTypes.Has(o.Type) {
				ok = false
				types.Insert(o.Type)
			}
			if o.User != "" {
				ok, user = false, true
			}
			if o.Role != "" {
				ok, role = false, true
			}
			return ok
		}
		pod := spec.SecurityContext != nil && spec.SecurityContext.SELinuxOptions != nil && !good(spec.SecurityContext.SELinuxOptions)
		var bad []string
		containers(spec, func(c *corev1.Container) {
			if c.SecurityContext != nil && c.SecurityContext.SELinuxOptions != nil && !good(c.SecurityContext.SELinuxOptions) {
				bad = append(bad, c.Name)
			}
		})
		who := setters(pod, bad)
		if len(who) == 0 {
			return allowed
		}
		var what []string
		if types.Len() > 0 {
			what = append(what, plural("type", "types", types.Len())+" "+joinQuote(sets.List(types)))
		}
		if user {
			what = append(what, "user may not be set")
		}
		if role {
			what = append(what, "role may not be set")
		}
		return forbid("seLinuxOptions", fmt.Sprintf("%s set forbidden securityContext.seLinuxOptions: %s",
			strings.Join(who, " and "), strings.Join(what, "; ")))
	}
}

const (
	seccompPodAnnotation             = "seccomp.security.alpha.kubernetes.io/pod"
	seccompContainerAnnotationPrefix = "container.seccomp.security.alpha.kubernetes.io/"
)

// seccompAnnotations (v1.0 to v1.18): the seccomp annotations name only
// the runtime's default profile or a local one.
func seccompAnnotations(meta *metav1.ObjectMeta, spec *corev1.PodSpec) Result {
	good := func(v string) bool {
		return v == corev1.SeccompProfileRuntimeDefault || v == corev1.DeprecatedSeccompProfileDockerDefault ||
			strings.HasPrefix(v, corev1.SeccompLocalhostProfileNamePrefix)
	}
	bad := sets.New[string]()
	if v, ok := meta.Annotations[seccompPodAnnotation]; ok && !good(v) {
		bad.Insert(fmt.Sprintf("%s=%q", seccompPodAnnotation, v))
	}
	containers(spec, func(c *corev1.Container) {
		key := seccompContainerAnnotationPrefix + c.Name
		if v, ok := meta.Annotations[key]; ok && !good(v) {
			bad.Insert(fmt.Sprintf("%s=%q", key, v))
		}
	})
	if bad.Len() == 0 {
		return allowed
	}
	return forbid("seccompProfile", fmt.Sprintf("forbidden %s %s",
		plural("annotation", "annotations", bad.Len()), strings.Join(sets.List(bad), ", ")))
}

func goodSeccomp(t corev1.SeccompProfileType) bool {
	return t == corev1.SeccompProfileTypeRuntimeDefault || t == corev1.SeccompProfileTypeLocalhost
}

// seccompBaseline (v1.19 on): a seccomp profile, where set, is the
// runtime's default or a local one.
func seccompBaseline(_ *metav1.ObjectMeta, spec *corev1.PodSpec) Result {
	values := sets.New[string]()
	pod := false
	if sc := spec.SecurityContext; sc != nil && sc.SeccompProfile != nil && !goodSeccomp(sc.SeccompProfile.Type) {
		pod = true
		values.Insert(string(sc.SeccompProfile.Type))
	}
	var bad []string
	containers(spec, func(c *corev1.Container) {
		if sc := c.SecurityContext; sc != nil && sc.SeccompProfile != nil && !goodSeccomp(sc.SeccompProfile.Type) {
			bad = append(bad, c.Name)
			values.Insert(string(sc.SeccompProfile.Type))
		}
	})
	who := setters(pod, bad)
	if len(who) == 0 {
		return allowed
	}
	return forbid("seccompProfile", fmt.Sprintf("%s must not set securityContext.seccompProfile.type to %s",
		strings.Join(who, " and "), joinQuote(sets.List(values))))
}

// seccompRestricted: every container has a seccomp profile, its own or
// the pod's, and it is the runtime's default or a local one.
func seccompRestricted(_ *metav1.ObjectMeta, spec *corev1.PodSpec) Result {
	values := sets.New[string]()
	pod, podSet := false, false
	if sc := spec.SecurityContext; sc != nil && sc.SeccompProfile != nil {
		if goodSeccomp(sc.SeccompProfile.Type) {
			podSet = true
		} else {
			pod = true
			values.Insert(string(sc.SeccompProfile.Type))
		}
	}
	var bad, unset []string
	containers(spec, func(c *corev1.Container) {
		switch sc := c.SecurityContext; {
		case sc != nil && sc.SeccompProfile != nil:
			if !goodSeccomp(sc.SeccompProfile.Type) {
				bad = append(bad, c.Name)
				values.Insert(string(sc.SeccompProfile.Type))
			}
		case !podSet:
			unset = append(unset, c.Name)
		}
	})
	if who := setters(pod, bad); len(who) > 0 {
		return forbid("seccompProfile", fmt.Sprintf("%s must not set securityContext.seccompProfile.type to %s",
			strings.Join(who, " and "), joinQuote(sets.List(values))))
	}
	if len(unset) > 0 {
		return forbid("seccompProfile", fmt.Sprintf(`pod or %s %s must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`,
			plural("container", "containers", len(unset)), joinQuote(unset)))
	}
	return allowed
}

// The safe sysctls, by the version that allowed them.
var (
	sysctls1_0  = sets.New("kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range", "net.ipv4.ip_unprivileged_port_start")
	sysctls1_27 = sysctls1_0.Union(sets.New("net.ipv4.ip_local_reserved_ports"))
	sysctls1_29 = sysctls1_27.Union(sets.New("net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout", "net.ipv4.tcp_keepalive_intvl", "net.ipv4.tcp_keepalive_probes"))
	sysctls1_32 = sysctls1_29.Union(sets.New("net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"))
	sysctls1_37 = sysctls1_32.Union(sets.New("net.ipv4.tcp_slow_start_after_idle", "net.ipv4.tcp_notsent_lowat"))
)

// sysctls: the pod sets only safe sysctls.
func sysctls(safe sets.Set[string]) checkFn {
	return func(_ *metav1.ObjectMeta, spec *corev1.PodSpec) Result {
		if spec.SecurityContext == nil {
			return allowed
		}
		var bad []string
		for _, s := range spec.SecurityContext.Sysctls {
			if !safe.Has(s.Name) {
				bad = append(bad, s.Name)
			}
		}
		if len(bad) == 0 {
			return allowed
		}
		return forbid("forbidden sysctls", strings.Join(bad, ", "))
	}
}

// windowsHostProcess: no Windows host process, pod or container.
func windowsHostProcess(_ *metav1.ObjectMeta, spec *corev1.PodSpec) Result {
	hostProcess := func(sc *corev1.WindowsSecurityContextOptions) bool {
		return sc != nil && sc.HostProcess != nil && *sc.HostProcess
	}
	var bad []string
	containers(spec, func(c *corev1.Container) {
		if c.SecurityContext != nil && hostProcess(c.SecurityContext.WindowsOptions) {
			bad = append(bad, c.Name)
		}
	})
	pod := spec.SecurityContext != nil && hostProcess(spec.SecurityContext.WindowsOptions)
	who := setters(pod, bad)
	if len(who) == 0 {
		return allowed
	}
	return forbid("hostProcess", strings.Join(who, " and ")+" must not set securityContext.windowsOptions.hostProcess=true")
}

// allowPrivilegeEscalation: every container sets
// allowPrivilegeEscalation=false.
func allowPrivilegeEscalation(_ *metav1.ObjectMeta, spec *corev1.PodSpec) Result {
	var bad []string
	containers(spec, func(c *corev1.Container) {
		if c.SecurityContext == nil || c.SecurityContext.AllowPrivilegeEscalation == nil || *c.SecurityContext.AllowPrivilegeEscalation {
			bad = append(bad, c.Name)
		}
	})
	if len(bad) == 0 {
		return allowed
	}
	return forbid("allowPrivilegeEscalation != false", fmt.Sprintf("%s %s must set securityContext.allowPrivilegeEscalation=false",
		plural("container", "containers", len(bad)), joinQuote(bad)))
}

// restrictedVolumes: volumes are only of the kinds that expose nothing
// of the node.
func restrictedVolumes(_ *metav1.ObjectMeta, spec *corev1.PodSpec) Result {
	var bad []string
	kinds := sets.New[string]()
	for _, v := range spec.Volumes {
		s := v.VolumeSource
		if s.ConfigMap != nil || s.CSI != nil || s.DownwardAPI != nil || s.EmptyDir != nil || s.Ephemeral != nil ||
			s.Image != nil || s.PersistentVolumeClaim != nil || s.Projected != nil || s.Secret != nil {
			continue
		}
		bad = append(bad, v.Name)
		kinds.Insert(volumeKind(s))
	}
	if len(bad) == 0 {
		return allowed
	}
	return forbid("restricted volume types", fmt.Sprintf("%s %s %s %s %s",
		plural("volume", "volumes", len(bad)), joinQuote(bad), plural("uses", "use", len(bad)),
		plural("restricted volume type", "restricted volume types", kinds.Len()), joinQuote(sets.List(kinds))))
}

// volumeKind names a volume source restricted pods may not use.
func volumeKind(s corev1.VolumeSource) string {
	switch {
	case s.HostPath != nil:
		return "hostPath"
	case s.GCEPersistentDisk != nil:
		return "gcePersistentDisk"
	case s.AWSElasticBlockStore != nil:
		return "awsElasticBlockStore"
	case s.GitRepo != nil:
		return "gitRepo"
	case s.NFS != nil:
		return "nfs"
	case s.ISCSI != nil:
		return "iscsi"
	case s.Glusterfs != nil:
		return "glusterfs"
	case s.RBD != nil:
		return "rbd"
	case s.FlexVolume != nil:
		return "flexVolume"
	case s.Cinder != nil:
		return "cinder"
	case s.CephFS != nil:
		return "cephfs"
	case s.Flocker != nil:
		return "flocker"
	case s.FC != nil:
		return "fc"
	case s.AzureFile != nil:
		return "azureFile"
	case s.VsphereVolume != nil:
		return "vsphereVolume"
	case s.Quobyte != nil:
		return "quobyte"
	case s.AzureDisk != nil:
		return "azureDisk"
	case s.PhotonPersistentDisk != nil:
		return "photonPersistentDisk"
	case s.PortworxVolume != nil:
		return "portworxVolume"
	case s.ScaleIO != nil:
		return "scaleIO"
	case s.StorageOS != nil:
		return "storageos"
	}
	return "unknown"
}

// runAsNonRoot: every container runs as non-root, by its own setting or
// the pod's, and nothing sets runAsNonRoot=false.
func runAsNonRoot(_ *metav1.ObjectMeta, spec *corev1.PodSpec) Result {
	pod, podSet := false, false
	if sc := spec.SecurityContext; sc != nil && sc.RunAsNonRoot != nil {
		if *sc.RunAsNonRoot {
			podSet = true
		} else {
			pod = true
		}
	}
	var bad, unset []string
	containers(spec, func(c *corev1.Container) {
		switch sc := c.SecurityContext; {
		case sc != nil && sc.RunAsNonRoot != nil:
			if !*sc.RunAsNonRoot {
				bad = append(bad, c.Name)
			}
		case !podSet:
			unset = append(unset, c.Name)
		}
	})
	if who := setters(pod, bad); len(who) > 0 {
		return forbid("runAsNonRoot != true", strings.Join(who, " and ")+" must not set securityContext.runAsNonRoot=false")
	}
	if len(unset) > 0 {
		return forbid("runAsNonRoot != true", fmt.Sprintf("pod or %s %s must set securityContext.runAsNonRoot=true",
			plural("container", "containers", len(unset)), joinQuote(unset)))
	}
	return allowed
}

// runAsUser: nothing sets runAsUser=0.
func runAsUser(_ *metav1.ObjectMeta, spec *corev1.PodSpec) Result {
	root := func(u *int64) bool { return u != nil && *u == 0 }
	pod := spec.SecurityContext != nil && root(spec.SecurityContext.RunAsUser)
	var bad []string
	containers(spec, func(c *corev1.Container) {
		if c.SecurityContext != nil && root(c.SecurityContext.RunAsUser) {
			bad = append(bad, c.Name)
		}
	})
	who := setters(pod, bad)
	if len(who) == 0 {
		return allowed
	}
	return forbid("runAsUser=0", strings.Join(who, " and ")+" must not set runAsUser=0")
}

package core

import (
	"reflect"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// SetDefaultsNamespace labels a named namespace with its own name (so that
// namespace selectors can pick it by name) and starts its status as Active.
// A namespace that only has a generateName is not labelled: its name is not
// known yet.
func SetDefaultsNamespace(ns *v1.Namespace) {
	if ns.Name != "" {
		if ns.Labels == nil {
			ns.Labels = map[string]string{}
		}
		ns.Labels[v1.LabelMetadataName] = ns.Name
	}
	if ns.Status.Phase == "" {
		ns.Status.Phase = v1.NamespaceActive
	}
}

// SetDefaultsConfigMap gives a ConfigMap an empty, non-nil data map.
func SetDefaultsConfigMap(cm *v1.ConfigMap) {
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
}

// SetDefaultsSecret folds stringData into data (stringData wins on
// conflicts, it is write-only and never stored or returned) and defaults the
// type to Opaque.
func SetDefaultsSecret(s *v1.Secret) {
	if len(s.StringData) > 0 {
		if s.Data == nil {
			s.Data = make(map[string][]byte, len(s.StringData))
		}
		for k, v := range s.StringData {
			s.Data[k] = []byte(v)
		}
	}
	s.StringData = nil
	if s.Type == "" {
		s.Type = v1.SecretTypeOpaque
	}
}

// SetDefaultsEndpoints defaults the protocol of every endpoint port to TCP.
func SetDefaultsEndpoints(ep *v1.Endpoints) {
	for i := range ep.Subsets {
		for j := range ep.Subsets[i].Ports {
			if ep.Subsets[i].Ports[j].Protocol == "" {
				ep.Subsets[i].Ports[j].Protocol = v1.ProtocolTCP
			}
		}
	}
}

// SetDefaultsNode keeps spec.podCIDR and spec.podCIDRs in step (podCIDR is
// authoritative when both are set and disagree, for old clients), rounds
// resource quantities and, when only capacity is reported, makes it the
// allocatable amount too.
func SetDefaultsNode(node *v1.Node) {
	spec := &node.Spec
	switch {
	case spec.PodCIDR != "" && (len(spec.PodCIDRs) == 0 || spec.PodCIDRs[0] != spec.PodCIDR):
		spec.PodCIDRs = []string{spec.PodCIDR}
	case spec.PodCIDR == "" && len(spec.PodCIDRs) > 0:
		spec.PodCIDR = spec.PodCIDRs[0]
	}

	status := &node.Status
	roundUpResourceList(status.Capacity)
	roundUpResourceList(status.Allocatable)
	if status.Allocatable == nil && status.Capacity != nil {
		status.Allocatable = status.Capacity.DeepCopy()
	}
}

// SetDefaultsService applies the defaults of a Service's spec. IP family
// fields and cluster IPs are not defaulted here: they depend on the
// cluster's service CIDRs and are filled in by the allocator (see
// DefaultServiceIPFamilies).
func SetDefaultsService(svc *v1.Service) {
	spec := &svc.Spec
	if spec.SessionAffinity == "" {
		spec.SessionAffinity = v1.ServiceAffinityNone
	}
	switch spec.SessionAffinity {
	case v1.ServiceAffinityNone:
		spec.SessionAffinityConfig = nil
	case v1.ServiceAffinityClientIP:
		if spec.SessionAffinityConfig == nil || spec.SessionAffinityConfig.ClientIP == nil || spec.SessionAffinityConfig.ClientIP.TimeoutSeconds == nil {
			timeout := v1.DefaultClientIPServiceAffinitySeconds
			spec.SessionAffinityConfig = &v1.SessionAffinityConfig{ClientIP: &v1.ClientIPConfig{TimeoutSeconds: &timeout}}
		}
	}
	if spec.Type == "" {
		spec.Type = v1.ServiceTypeClusterIP
	}
	for i := range spec.Ports {
		port := &spec.Ports[i]
		if port.Protocol == "" {
			port.Protocol = v1.ProtocolTCP
		}
		// An unset target port (0 or "") means "the same as port".
		if port.TargetPort == intstr.FromInt32(0) || port.TargetPort == intstr.FromString("") {
			port.TargetPort = intstr.FromInt32(port.Port)
		}
	}
	if externallyAccessible(svc) && spec.ExternalTrafficPolicy == "" {
		spec.ExternalTrafficPolicy = v1.ServiceExternalTrafficPolicyCluster
	}
	if spec.InternalTrafficPolicy == nil && hasClusterIP(spec.Type) {
		policy := v1.ServiceInternalTrafficPolicyCluster
		spec.InternalTrafficPolicy = &policy
	}
	if spec.Type == v1.ServiceTypeLoadBalancer {
		if spec.AllocateLoadBalancerNodePorts == nil {
			allocate := true
			spec.AllocateLoadBalancerNodePorts = &allocate
		}
		for i := range svc.Status.LoadBalancer.Ingress {
			ingress := &svc.Status.LoadBalancer.Ingress[i]
			if ingress.IP != "" && ingress.IPMode == nil {
				mode := v1.LoadBalancerIPModeVIP
				ingress.IPMode = &mode
			}
		}
	}
}

// hasClusterIP reports whether services of type t get a cluster IP (and
// therefore an internal traffic policy).
func hasClusterIP(t v1.ServiceType) bool {
	return t == v1.ServiceTypeClusterIP || t == v1.ServiceTypeNodePort || t == v1.ServiceTypeLoadBalancer
}

// externallyAccessible reports whether the service can be reached from
// outside the cluster, which is when an external traffic policy applies.
func externallyAccessible(svc *v1.Service) bool {
	return svc.Spec.Type == v1.ServiceTypeLoadBalancer ||
		svc.Spec.Type == v1.ServiceTypeNodePort ||
		(svc.Spec.Type == v1.ServiceTypeClusterIP && len(svc.Spec.ExternalIPs) > 0)
}

// SetDefaultsPod applies the defaults of a Pod: those of its spec (see
// SetDefaultsPodSpec), plus the ones that only materialise on pods and not
// on pod templates: requests default to limits, service links are enabled,
// and host-network pods expose every container port on the host.
func SetDefaultsPod(pod *v1.Pod) {
	spec := &pod.Spec
	// A pod (not a template) with a negative grace period gets 1.
	if g := spec.TerminationGracePeriodSeconds; g != nil && *g < 0 {
		one := int64(1)
		spec.TerminationGracePeriodSeconds = &one
	}
	for i := range spec.Containers {
		defaultRequestsFromLimits(&spec.Containers[i].Resources)
	}
	for i := range spec.InitContainers {
		defaultRequestsFromLimits(&spec.InitContainers[i].Resources)
	}
	if spec.EnableServiceLinks == nil {
		enable := v1.DefaultEnableServiceLinks
		spec.EnableServiceLinks = &enable
	}
	if spec.HostNetwork {
		defaultHostPorts(spec.Containers)
		defaultHostPorts(spec.InitContainers)
	}
	SetDefaultsPodSpec(spec)
	normalizePodStatusIPs(&pod.Status)
	for _, statuses := range [][]v1.ContainerStatus{pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses, pod.Status.EphemeralContainerStatuses} {
		for i := range statuses {
			roundUpResourceList(statuses[i].AllocatedResources)
			if r := statuses[i].Resources; r != nil {
				roundUpResourceList(r.Limits)
				roundUpResourceList(r.Requests)
			}
		}
	}
}

// defaultRequestsFromLimits copies each limit without a request into the
// requests, so that a container that only states limits is guaranteed them.
func defaultRequestsFromLimits(r *v1.ResourceRequirements) {
	if r.Limits == nil {
		return
	}
	if r.Requests == nil {
		r.Requests = make(v1.ResourceList, len(r.Limits))
	}
	for name, limit := range r.Limits {
		if _, ok := r.Requests[name]; !ok {
			r.Requests[name] = limit.DeepCopy()
		}
	}
}

// defaultHostPorts makes every container port of a host-network pod a host
// port: that is what the port is, whether the user says so or not.
func defaultHostPorts(containers []v1.Container) {
	for i := range containers {
		for j := range containers[i].Ports {
			port := &containers[i].Ports[j]
			if port.HostPort == 0 {
				port.HostPort = port.ContainerPort
			}
		}
	}
}

// normalizePodStatusIPs keeps the singular and plural IP fields in step:
// the singular one is authoritative when they disagree (old kubelets only
// set it), and it always mirrors the first plural entry.
func normalizePodStatusIPs(status *v1.PodStatus) {
	if status.PodIP != "" && (len(status.PodIPs) == 0 || status.PodIPs[0].IP != status.PodIP) {
		status.PodIPs = []v1.PodIP{{IP: status.PodIP}}
	}
	if len(status.PodIPs) > 0 {
		status.PodIP = status.PodIPs[0].IP
	}
	if status.HostIP != "" && (len(status.HostIPs) == 0 || status.HostIPs[0].IP != status.HostIP) {
		status.HostIPs = []v1.HostIP{{IP: status.HostIP}}
	}
	if len(status.HostIPs) > 0 {
		status.HostIP = status.HostIPs[0].IP
	}
}

// SetDefaultsPodTemplateSpec applies the defaults of the pod spec of a
// template (Deployments, ReplicaSets, ...). Pod-only defaults are left to
// the pods created from the template.
func SetDefaultsPodTemplateSpec(template *v1.PodTemplateSpec) {
	SetDefaultsPodSpec(&template.Spec)
}

// SetDefaultsPodSpec applies the defaults of a pod spec and of everything
// nested in it: containers, probes, volumes and their sources.
func SetDefaultsPodSpec(spec *v1.PodSpec) {
	if spec.DNSPolicy == "" {
		spec.DNSPolicy = v1.DNSClusterFirst
	}
	if spec.RestartPolicy == "" {
		spec.RestartPolicy = v1.RestartPolicyAlways
	}
	if spec.SecurityContext == nil {
		spec.SecurityContext = &v1.PodSecurityContext{}
	}
	if spec.TerminationGracePeriodSeconds == nil {
		grace := int64(v1.DefaultTerminationGracePeriodSeconds)
		spec.TerminationGracePeriodSeconds = &grace
	}
	if spec.SchedulerName == "" {
		spec.SchedulerName = v1.DefaultSchedulerName
	}
	// serviceAccount is a deprecated alias of serviceAccountName: the new
	// field wins, and the old one always mirrors it.
	if spec.ServiceAccountName == "" {
		spec.ServiceAccountName = spec.DeprecatedServiceAccount
	}
	spec.DeprecatedServiceAccount = spec.ServiceAccountName

	for i := range spec.Volumes {
		setDefaultsVolume(&spec.Volumes[i])
	}
	for i := range spec.InitContainers {
		setDefaultsContainer(&spec.InitContainers[i])
	}
	for i := range spec.Containers {
		setDefaultsContainer(&spec.Containers[i])
	}
	for i := range spec.EphemeralContainers {
		setDefaultsContainer((*v1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon))
	}
	roundUpResourceList(spec.Overhead)
	if spec.Resources != nil {
		roundUpResourceList(spec.Resources.Limits)
		roundUpResourceList(spec.Resources.Requests)
	}
}

func setDefaultsContainer(c *v1.Container) {
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = pullPolicyForImage(c.Image)
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = v1.TerminationMessagePathDefault
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = v1.TerminationMessageReadFile
	}
	for i := range c.Ports {
		if c.Ports[i].Protocol == "" {
			c.Ports[i].Protocol = v1.ProtocolTCP
		}
	}
	for i := range c.Env {
		setDefaultsEnvVarSource(c.Env[i].ValueFrom)
	}
	roundUpResourceList(c.Resources.Limits)
	roundUpResourceList(c.Resources.Requests)
	for _, probe := range []*v1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
		setDefaultsProbe(probe)
	}
	if c.Lifecycle != nil {
		for _, handler := range []*v1.LifecycleHandler{c.Lifecycle.PostStart, c.Lifecycle.PreStop} {
			if handler != nil {
				setDefaultsHTTPGetAction(handler.HTTPGet)
			}
		}
	}
}

func setDefaultsEnvVarSource(src *v1.EnvVarSource) {
	if src == nil {
		return
	}
	setDefaultsObjectFieldSelector(src.FieldRef)
	if src.FileKeyRef != nil && src.FileKeyRef.Optional == nil {
		optional := false
		src.FileKeyRef.Optional = &optional
	}
}

func setDefaultsObjectFieldSelector(sel *v1.ObjectFieldSelector) {
	if sel != nil && sel.APIVersion == "" {
		sel.APIVersion = "v1"
	}
}

func setDefaultsProbe(p *v1.Probe) {
	if p == nil {
		return
	}
	if p.TimeoutSeconds == 0 {
		p.TimeoutSeconds = 1
	}
	if p.PeriodSeconds == 0 {
		p.PeriodSeconds = 10
	}
	if p.SuccessThreshold == 0 {
		p.SuccessThreshold = 1
	}
	if p.FailureThreshold == 0 {
		p.FailureThreshold = 3
	}
	setDefaultsHTTPGetAction(p.HTTPGet)
	if p.GRPC != nil && p.GRPC.Service == nil {
		service := ""
		p.GRPC.Service = &service
	}
}

func setDefaultsHTTPGetAction(a *v1.HTTPGetAction) {
	if a == nil {
		return
	}
	if a.Path == "" {
		a.Path = "/"
	}
	if a.Scheme == "" {
		a.Scheme = v1.URISchemeHTTP
	}
}

// setDefaultsVolume turns a volume without a source into an emptyDir and
// defaults the source that is set.
func setDefaultsVolume(vol *v1.Volume) {
	src := &vol.VolumeSource
	if allPointerFieldsNil(src) {
		src.EmptyDir = &v1.EmptyDirVolumeSource{}
	}
	if src.HostPath != nil && src.HostPath.Type == nil {
		unset := v1.HostPathUnset
		src.HostPath.Type = &unset
	}
	if src.Secret != nil {
		defaultFileMode(&src.Secret.DefaultMode, v1.SecretVolumeSourceDefaultMode)
	}
	if src.ConfigMap != nil {
		defaultFileMode(&src.ConfigMap.DefaultMode, v1.ConfigMapVolumeSourceDefaultMode)
	}
	if src.DownwardAPI != nil {
		defaultFileMode(&src.DownwardAPI.DefaultMode, v1.DownwardAPIVolumeSourceDefaultMode)
		for i := range src.DownwardAPI.Items {
			setDefaultsObjectFieldSelector(src.DownwardAPI.Items[i].FieldRef)
		}
	}
	if src.Projected != nil {
		setDefaultsProjectedVolumeSource(src.Projected)
	}
	if src.ISCSI != nil && src.ISCSI.ISCSIInterface == "" {
		src.ISCSI.ISCSIInterface = "default"
	}
	if src.RBD != nil {
		defaultString(&src.RBD.RBDPool, "rbd")
		defaultString(&src.RBD.RadosUser, "admin")
		defaultString(&src.RBD.Keyring, "/etc/ceph/keyring")
	}
	if src.AzureDisk != nil {
		setDefaultsAzureDisk(src.AzureDisk)
	}
	if src.ScaleIO != nil {
		defaultString(&src.ScaleIO.StorageMode, "ThinProvisioned")
		defaultString(&src.ScaleIO.FSType, "xfs")
	}
	if src.Ephemeral != nil && src.Ephemeral.VolumeClaimTemplate != nil {
		claim := &src.Ephemeral.VolumeClaimTemplate.Spec
		if claim.VolumeMode == nil {
			mode := v1.PersistentVolumeFilesystem
			claim.VolumeMode = &mode
		}
		roundUpResourceList(claim.Resources.Limits)
		roundUpResourceList(claim.Resources.Requests)
	}
	if src.Image != nil && src.Image.PullPolicy == "" {
		src.Image.PullPolicy = pullPolicyForImage(src.Image.Reference)
	}
}

func setDefaultsProjectedVolumeSource(p *v1.ProjectedVolumeSource) {
	defaultFileMode(&p.DefaultMode, v1.ProjectedVolumeSourceDefaultMode)
	for i := range p.Sources {
		source := &p.Sources[i]
		if source.DownwardAPI != nil {
			for j := range source.DownwardAPI.Items {
				setDefaultsObjectFieldSelector(source.DownwardAPI.Items[j].FieldRef)
			}
		}
		if token := source.ServiceAccountToken; token != nil && token.ExpirationSeconds == nil {
			hour := int64(time.Hour / time.Second)
			token.ExpirationSeconds = &hour
		}
	}
}

func setDefaultsAzureDisk(d *v1.AzureDiskVolumeSource) {
	if d.CachingMode == nil {
		mode := v1.AzureDataDiskCachingReadWrite
		d.CachingMode = &mode
	}
	if d.Kind == nil {
		kind := v1.AzureSharedBlobDisk
		d.Kind = &kind
	}
	if d.FSType == nil {
		fsType := "ext4"
		d.FSType = &fsType
	}
	if d.ReadOnly == nil {
		readOnly := false
		d.ReadOnly = &readOnly
	}
}

func defaultFileMode(mode **int32, value int32) {
	if *mode == nil {
		*mode = &value
	}
}

func defaultString(s *string, value string) {
	if *s == "" {
		*s = value
	}
}

// roundUpResourceList rounds every quantity up to milli precision, the
// finest the API stores. Values that need rounding should arguably be
// rejected; kube-apiserver rounds them for compatibility, and so do we.
func roundUpResourceList(list v1.ResourceList) {
	for name, q := range list {
		q.RoundUp(-3)
		list[name] = q
	}
}

// allPointerFieldsNil reports whether every field of the struct pointed to
// by ptr is a nil pointer. It is used on VolumeSource, whose fields are all
// pointers, so that new volume types need no change here.
func allPointerFieldsNil(ptr any) bool {
	v := reflect.ValueOf(ptr).Elem()
	for i := 0; i < v.NumField(); i++ {
		if f := v.Field(i); f.Kind() == reflect.Pointer && !f.IsNil() {
			return false
		}
	}
	return true
}

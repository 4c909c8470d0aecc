package core

import (
	"fmt"
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/internal/gofields"
)

// containerContext is what validating a container needs to know about its
// pod.
type containerContext struct {
	volumes       map[string]v1.VolumeSource // the pod's valid volumes, by name
	podClaims     sets.Set[string]           // the pod's resource claim names
	gracePeriod   *int64                     // the pod's termination grace period
	restartPolicy v1.RestartPolicy           // the pod's restart policy
	hostUsers     bool                       // whether the pod shares the host's user namespace
	// allowIndivisibleHugePages: an update of a pod that had them.
	allowIndivisibleHugePages bool
	// allowSysAdminWithoutEscalation: an update of a pod that had it.
	allowSysAdminWithoutEscalation bool
}

// validateContainers validates a pod's regular containers.
func validateContainers(containers []v1.Container, cc containerContext, fldPath *field.Path) field.ErrorList {
	if len(containers) == 0 {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	var allErrs field.ErrorList
	names := sets.New[string]()
	for i := range containers {
		c := &containers[i]
		path := fldPath.Index(i)
		allErrs = append(allErrs, validateContainerCommon(c, cc, path)...)
		// Clashes with init and ephemeral containers are reported on those.
		if names.Has(c.Name) {
			allErrs = append(allErrs, field.Duplicate(path.Child("name"), c.Name))
		}
		names.Insert(c.Name)
		allErrs = append(allErrs, validateContainerHooks(c, cc.gracePeriod, path)...)
		if c.RestartPolicy != nil {
			allErrs = append(allErrs, field.Forbidden(path.Child("restartPolicy"), "may not be set for non-init containers"))
		}
	}
	// Regular containers run together, so their host ports must not clash.
	return append(allErrs, validateHostPortConflicts(containers, fldPath)...)
}

// validateInitContainers validates a pod's init containers. Those with
// restartPolicy Always are sidecars: they keep running, so they may have
// probes and lifecycle hooks like regular containers.
func validateInitContainers(initContainers, containers []v1.Container, cc containerContext, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	names := sets.New[string]()
	for _, c := range containers {
		names.Insert(c.Name)
	}
	for i := range initContainers {
		c := &initContainers[i]
		path := fldPath.Index(i)
		allErrs = append(allErrs, validateContainerCommon(c, cc, path)...)
		sidecar := false
		if c.RestartPolicy != nil {
			if *c.RestartPolicy != v1.ContainerRestartPolicyAlways {
				allErrs = append(allErrs, field.NotSupported(path.Child("restartPolicy"), *c.RestartPolicy, []v1.ContainerRestartPolicy{v1.ContainerRestartPolicyAlways}))
			}
			sidecar = *c.RestartPolicy == v1.ContainerRestartPolicyAlways
		}
		if names.Has(c.Name) {
			allErrs = append(allErrs, field.Duplicate(path.Child("name"), c.Name))
		} else if c.Name != "" {
			names.Insert(c.Name)
		}
		// Init containers run one by one: each only clashes with itself.
		// kube-apiserver reports such clashes at index 0 whatever the
		// container; so do we.
		allErrs = append(allErrs, validateHostPortConflicts(initContainers[i:i+1], fldPath)...)
		if sidecar {
			allErrs = append(allErrs, validateContainerHooks(c, cc.gracePeriod, path)...)
			continue
		}
		const detail = "may not be set for init containers without restartPolicy=Always"
		for _, hook := range []struct {
			name string
			set  bool
		}{
			{"lifecycle", c.Lifecycle != nil},
			{"livenessProbe", c.LivenessProbe != nil},
			{"readinessProbe", c.ReadinessProbe != nil},
			{"startupProbe", c.StartupProbe != nil},
		} {
			if hook.set {
				allErrs = append(allErrs, field.Forbidden(path.Child(hook.name), detail))
			}
		}
	}
	return allErrs
}

// ephemeralContainerFields are the fields an ephemeral container may set:
// it is a debugging aid, not part of the workload, so ports, resources,
// probes and hooks make no sense for it.
var ephemeralContainerFields = sets.New(
	"Name", "Image", "Command", "Args", "WorkingDir", "EnvFrom", "Env",
	"VolumeMounts", "VolumeDevices", "TerminationMessagePath", "TerminationMessagePolicy",
	"ImagePullPolicy", "SecurityContext", "Stdin", "StdinOnce", "TTY",
)

// validateEphemeralContainers validates a pod's ephemeral containers.
func validateEphemeralContainers(ephemeral []v1.EphemeralContainer, containers, initContainers []v1.Container, cc containerContext, fldPath *field.Path) field.ErrorList {
	if len(ephemeral) == 0 {
		return nil
	}
	var allErrs field.ErrorList
	others, all := sets.New[string](), sets.New[string]()
	for _, c := range append(append([]v1.Container{}, containers...), initContainers...) {
		others.Insert(c.Name)
		all.Insert(c.Name)
	}
	for i := range ephemeral {
		ec := &ephemeral[i]
		path := fldPath.Index(i)
		c := (*v1.Container)(&ec.EphemeralContainerCommon)
		allErrs = append(allErrs, validateContainerCommon(c, cc, path)...)
		allErrs = append(allErrs, validateImageNotPadded(c.Image, path.Child("image"))...)
		if all.Has(ec.Name) {
			allErrs = append(allErrs, field.Duplicate(path.Child("name"), ec.Name))
		}
		all.Insert(ec.Name)
		if ec.TargetContainerName != "" && !others.Has(ec.TargetContainerName) {
			allErrs = append(allErrs, field.NotFound(path.Child("targetContainerName"), ec.TargetContainerName))
		}
		allErrs = append(allErrs, validateOnlyFieldsSet(ec.EphemeralContainerCommon, ephemeralContainerFields, "cannot be set for an Ephemeral Container", path)...)
		// Sub-path mounts are bind mounts that outlive the container.
		for j, mount := range ec.VolumeMounts {
			mountPath := path.Child("volumeMounts").Index(j)
			if mount.SubPath != "" {
				allErrs = append(allErrs, field.Forbidden(mountPath.Child("subPath"), "cannot be set for an Ephemeral Container"))
			}
			if mount.SubPathExpr != "" {
				allErrs = append(allErrs, field.Forbidden(mountPath.Child("subPathExpr"), "cannot be set for an Ephemeral Container"))
			}
		}
	}
	return allErrs
}

// validateOnlyFieldsSet reports every field of the struct value that is
// set although not allowed. Listing what is allowed, rather than what is
// not, makes a new field forbidden until someone decides otherwise.
func validateOnlyFieldsSet(value any, allowed sets.Set[string], detail string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	t, v := reflect.TypeOf(value), reflect.ValueOf(value)
	for i := 0; i < t.NumField(); i++ {
		name := t.Field(i).Name
		if allowed.Has(name) || v.Field(i).IsZero() {
			continue
		}
		r, size := utf8.DecodeRuneInString(name)
		allErrs = append(allErrs, field.Forbidden(fldPath.Child(string(unicode.ToLower(r))+name[size:]), detail))
	}
	return allErrs
}

// validateContainerCommon holds the checks every kind of container passes.
func validateContainerCommon(c *v1.Container, cc containerContext, path *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if c.Name == "" {
		allErrs = append(allErrs, field.Required(path.Child("name"), ""))
	} else {
		allErrs = append(allErrs, validateDNS1123Label(c.Name, path.Child("name"))...)
	}
	// Only emptiness is checked here: templates may hold a blank
	// placeholder image; pods are checked for padding separately.
	if c.Image == "" {
		allErrs = append(allErrs, field.Required(path.Child("image"), ""))
	}
	allErrs = append(allErrs, validateTerminationMessagePolicy(c.TerminationMessagePolicy, path.Child("terminationMessagePolicy"))...)
	allErrs = append(allErrs, validateContainerPorts(c.Ports, path.Child("ports"))...)
	allErrs = append(allErrs, validateEnv(c.Env, path.Child("env"))...)
	allErrs = append(allErrs, validateEnvFrom(c.EnvFrom, path.Child("envFrom"))...)
	allErrs = append(allErrs, validateVolumeMounts(c, cc.volumes, path.Child("volumeMounts"))...)
	allErrs = append(allErrs, validateVolumeDevices(c, cc.volumes, path.Child("volumeDevices"))...)
	allErrs = append(allErrs, validatePullPolicy(c.ImagePullPolicy, path.Child("imagePullPolicy"))...)
	allErrs = append(allErrs, validateResourceRequirements(&c.Resources, cc.podClaims, cc.allowIndivisibleHugePages, path.Child("resources"))...)
	allErrs = append(allErrs, validateResizePolicy(c.ResizePolicy, cc.restartPolicy, path.Child("resizePolicy"))...)
	return append(allErrs, validateSecurityContext(c.SecurityContext, cc.hostUsers, cc.allowSysAdminWithoutEscalation, path.Child("securityContext"))...)
}

func validateTerminationMessagePolicy(policy v1.TerminationMessagePolicy, fldPath *field.Path) field.ErrorList {
	switch policy {
	case v1.TerminationMessageReadFile, v1.TerminationMessageFallbackToLogsOnError:
		return nil
	case "":
		return field.ErrorList{field.Required(fldPath, "")}
	}
	return field.ErrorList{field.NotSupported(fldPath, policy, []v1.TerminationMessagePolicy{v1.TerminationMessageReadFile, v1.TerminationMessageFallbackToLogsOnError})}
}

func validatePullPolicy(policy v1.PullPolicy, fldPath *field.Path) field.ErrorList {
	switch policy {
	case v1.PullAlways, v1.PullIfNotPresent, v1.PullNever:
		return nil
	case "":
		return field.ErrorList{field.Required(fldPath, "")}
	}
	return field.ErrorList{field.NotSupported(fldPath, policy, []v1.PullPolicy{v1.PullAlways, v1.PullIfNotPresent, v1.PullNever})}
}

// supportedProtocols are the protocols of container and service ports, in
// the order kube-apiserver lists them.
var supportedProtocols = []v1.Protocol{v1.ProtocolSCTP, v1.ProtocolTCP, v1.ProtocolUDP}

func validateProtocol(protocol v1.Protocol, fldPath *field.Path) field.ErrorList {
	switch protocol {
	case v1.ProtocolTCP, v1.ProtocolUDP, v1.ProtocolSCTP:
		return nil
	case "":
		return field.ErrorList{field.Required(fldPath, "")}
	}
	return field.ErrorList{field.NotSupported(fldPath, protocol, supportedProtocols)}
}

func validateContainerPorts(ports []v1.ContainerPort, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	names := sets.New[string]()
	for i, port := range ports {
		idxPath := fldPath.Index(i)
		if port.Name != "" {
			if msgs := validation.IsValidPortName(port.Name); len(msgs) > 0 {
				allErrs = append(allErrs, messagesToErrors(msgs, port.Name, idxPath.Child("name"))...)
			} else if names.Has(port.Name) {
				allErrs = append(allErrs, field.Duplicate(idxPath.Child("name"), port.Name))
			} else {
				names.Insert(port.Name)
			}
		}
		if port.ContainerPort == 0 {
			allErrs = append(allErrs, field.Required(idxPath.Child("containerPort"), ""))
		} else {
			allErrs = append(allErrs, messagesToErrors(validation.IsValidPortNum(int(port.ContainerPort)), port.ContainerPort, idxPath.Child("containerPort"))...)
		}
		if port.HostPort != 0 {
			allErrs = append(allErrs, messagesToErrors(validation.IsValidPortNum(int(port.HostPort)), port.HostPort, idxPath.Child("hostPort"))...)
		}
		allErrs = append(allErrs, validateProtocol(port.Protocol, idxPath.Child("protocol"))...)
	}
	return allErrs
}

// validateHostPortConflicts reports host ports used twice (for the same
// protocol and host IP) by containers that run at the same time.
func validateHostPortConflicts(containers []v1.Container, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	used := sets.New[string]()
	for i, c := range containers {
		for j, port := range c.Ports {
			if port.HostPort == 0 {
				continue
			}
			key := fmt.Sprintf("%s/%s/%d", port.Protocol, port.HostIP, port.HostPort)
			if used.Has(key) {
				allErrs = append(allErrs, field.Duplicate(fldPath.Index(i).Child("ports").Index(j).Child("hostPort"), key))
			}
			used.Insert(key)
		}
	}
	return allErrs
}

// validateEnv validates environment variables. Names may be any printable
// ASCII without '=' (the relaxed rule, the default since Kubernetes 1.34).
func validateEnv(vars []v1.EnvVar, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, ev := range vars {
		idxPath := fldPath.Index(i)
		if ev.Name == "" {
			allErrs = append(allErrs, field.Required(idxPath.Child("name"), ""))
		} else {
			allErrs = append(allErrs, messagesToErrors(validation.IsRelaxedEnvVarName(ev.Name), ev.Name, idxPath.Child("name"))...)
		}
		allErrs = append(allErrs, validateEnvVarSource(ev, idxPath.Child("valueFrom"))...)
	}
	return allErrs
}

// The downward API fields an environment variable can expose.
var envFieldPaths = sets.New(
	"metadata.name", "metadata.namespace", "metadata.uid",
	"spec.nodeName", "spec.serviceAccountName",
	"status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs",
)

// The container resources the downward API can expose; huge pages are
// matched by prefix.
var (
	resourceFieldPaths = sets.New(
		"limits.cpu", "limits.memory", "limits.ephemeral-storage",
		"requests.cpu", "requests.memory", "requests.ephemeral-storage",
	)
	hugePageFieldPrefixes = []string{"limits.hugepages-", "requests.hugepages-"}
)

func validateEnvVarSource(ev v1.EnvVar, fldPath *field.Path) field.ErrorList {
	src := ev.ValueFrom
	if src == nil {
		return nil
	}
	var allErrs field.ErrorList
	sources := 0
	if src.FieldRef != nil {
		sources++
		allErrs = append(allErrs, validateObjectFieldSelector(src.FieldRef, envFieldPaths, fldPath.Child("fieldRef"))...)
	}
	if src.ResourceFieldRef != nil {
		sources++
		allErrs = append(allErrs, validateResourceFieldSelector(src.ResourceFieldRef, false, fldPath.Child("resourceFieldRef"))...)
	}
	if src.ConfigMapKeyRef != nil {
		sources++
		allErrs = append(allErrs, validateKeySelector(src.ConfigMapKeyRef.Name, src.ConfigMapKeyRef.Key, fldPath.Child("configMapKeyRef"))...)
	}
	if src.SecretKeyRef != nil {
		sources++
		allErrs = append(allErrs, validateKeySelector(src.SecretKeyRef.Name, src.SecretKeyRef.Key, fldPath.Child("secretKeyRef"))...)
	}
	switch {
	case sources == 0:
		allErrs = append(allErrs, field.Invalid(fldPath, "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"))
	case ev.Value != "":
		allErrs = append(allErrs, field.Invalid(fldPath, "", "may not be specified when `value` is not empty"))
	case sources > 1:
		allErrs = append(allErrs, field.Invalid(fldPath, "", "may not have more than one field specified at a time"))
	}
	return allErrs
}

// validateObjectFieldSelector validates a downward API reference to a field
// of the pod. Labels and annotations are referenced one key at a time, as
// metadata.labels['key'].
func validateObjectFieldSelector(sel *v1.ObjectFieldSelector, allowed sets.Set[string], fldPath *field.Path) field.ErrorList {
	if sel.APIVersion == "" {
		return field.ErrorList{field.Required(fldPath.Child("apiVersion"), "")}
	}
	if sel.FieldPath == "" {
		return field.ErrorList{field.Required(fldPath.Child("fieldPath"), "")}
	}
	fieldPath, err := podFieldLabel(sel.APIVersion, sel.FieldPath)
	if err != nil {
		return field.ErrorList{field.Invalid(fldPath.Child("fieldPath"), sel.FieldPath, fmt.Sprintf("error converting fieldPath: %v", err))}
	}
	if path, key, ok := splitSubscript(fieldPath); ok {
		switch path {
		case "metadata.annotations":
			return validateQualifiedName(strings.ToLower(key), fldPath)
		case "metadata.labels":
			return validateQualifiedName(key, fldPath)
		}
		return field.ErrorList{field.Invalid(fldPath, path, "does not support subscript")}
	}
	if !allowed.Has(fieldPath) {
		return field.ErrorList{field.NotSupported(fldPath.Child("fieldPath"), fieldPath, sets.List(allowed))}
	}
	return nil
}

// podFieldLabel resolves a field path of a v1 Pod as the downward API
// understands it.
func podFieldLabel(apiVersion, label string) (string, error) {
	if apiVersion != "v1" {
		return "", fmt.Errorf("unsupported pod version: %s", apiVersion)
	}
	if path, _, ok := splitSubscript(label); ok {
		if path == "metadata.annotations" || path == "metadata.labels" {
			return label, nil
		}
		return "", fmt.Errorf("field label does not support subscript: %s", label)
	}
	switch label {
	case "metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid",
		"spec.nodeName", "spec.restartPolicy", "spec.serviceAccountName", "spec.schedulerName",
		"status.phase", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs":
		return label, nil
	case "spec.host": // the name of spec.nodeName in very old clients
		return "spec.nodeName", nil
	}
	return "", fmt.Errorf("field label not supported: %s", label)
}

// splitSubscript splits "path['key']" into path and key.
func splitSubscript(fieldPath string) (path, key string, ok bool) {
	trimmed, found := strings.CutSuffix(fieldPath, "']")
	if !found {
		return fieldPath, "", false
	}
	path, key, found = strings.Cut(trimmed, "['")
	if !found || path == "" {
		return fieldPath, "", false
	}
	return path, key, true
}

// validateResourceFieldSelector validates a downward API reference to a
// container's resources. In a volume the container must be named, since
// the volume belongs to the whole pod.
func validateResourceFieldSelector(sel *v1.ResourceFieldSelector, inVolume bool, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	switch {
	case inVolume && sel.ContainerName == "":
		allErrs = append(allErrs, field.Required(fldPath.Child("containerName"), ""))
	case sel.Resource == "":
		allErrs = append(allErrs, field.Required(fldPath.Child("resource"), ""))
	case !resourceFieldPaths.Has(sel.Resource) && !hasAnyPrefix(sel.Resource, hugePageFieldPrefixes):
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("resource"), sel.Resource, sets.List(resourceFieldPaths)))
	}
	return append(allErrs, validateResourceDivisor(sel.Resource, sel.Divisor, fldPath)...)
}

// Divisors allowed for each kind of exposed resource.
var (
	cpuDivisors      = sets.New("1m", "1")
	quantityDivisors = sets.New("1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei")
)

const quantityDivisorList = "1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei"

func validateResourceDivisor(res string, divisor resource.Quantity, fldPath *field.Path) field.ErrorList {
	if divisor.IsZero() {
		return nil
	}
	var allErrs field.ErrorList
	d := divisor.String()
	divisorPath := fldPath.Child("divisor")
	switch res {
	case "limits.cpu", "requests.cpu":
		if !cpuDivisors.Has(d) {
			allErrs = append(allErrs, field.Invalid(divisorPath, res, "only divisor's values 1m and 1 are supported with the cpu resource"))
		}
	case "limits.memory", "requests.memory":
		if !quantityDivisors.Has(d) {
			allErrs = append(allErrs, field.Invalid(divisorPath, res, "only divisor's values "+quantityDivisorList+" are supported with the memory resource"))
		}
	case "limits.ephemeral-storage", "requests.ephemeral-storage":
		if !quantityDivisors.Has(d) {
			allErrs = append(allErrs, field.Invalid(divisorPath, res, "only divisor's values "+quantityDivisorList+" are supported with the local ephemeral storage resource"))
		}
	}
	if hasAnyPrefix(res, hugePageFieldPrefixes) && !quantityDivisors.Has(d) {
		allErrs = append(allErrs, field.Invalid(divisorPath, res, "only divisor's values "+quantityDivisorList+" are supported with the hugepages resource"))
	}
	return allErrs
}

// validateKeySelector validates a reference to a key of a ConfigMap or
// Secret.
func validateKeySelector(name, key string, fldPath *field.Path) field.ErrorList {
	allErrs := validateName(apivalidation.NameIsDNSSubdomain, name, fldPath.Child("name"))
	if key == "" {
		return append(allErrs, field.Required(fldPath.Child("key"), ""))
	}
	return append(allErrs, validateDataKey(key, fldPath.Child("key"))...)
}

// validateEnvFrom validates sources of environment variables. Errors about
// the choice of source are reported at the list's path.
func validateEnvFrom(sources []v1.EnvFromSource, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, src := range sources {
		idxPath := fldPath.Index(i)
		if src.Prefix != "" {
			allErrs = append(allErrs, messagesToErrors(validation.IsRelaxedEnvVarName(src.Prefix), src.Prefix, idxPath.Child("prefix"))...)
		}
		count := 0
		if src.ConfigMapRef != nil {
			count++
			allErrs = append(allErrs, validateEnvSourceName(src.ConfigMapRef.Name, idxPath.Child("configMapRef"))...)
		}
		if src.SecretRef != nil {
			count++
			allErrs = append(allErrs, validateEnvSourceName(src.SecretRef.Name, idxPath.Child("secretRef"))...)
		}
		switch {
		case count == 0:
			allErrs = append(allErrs, field.Invalid(fldPath, "", "must specify one of: `configMapRef` or `secretRef`"))
		case count > 1:
			allErrs = append(allErrs, field.Invalid(fldPath, "", "may not have more than one field specified at a time"))
		}
	}
	return allErrs
}

func validateEnvSourceName(name string, fldPath *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(fldPath.Child("name"), "")}
	}
	// kube-apiserver validates these names as prefixes, which tolerates a
	// trailing dash; so do we.
	return messagesToErrors(apivalidation.NameIsDNSSubdomain(name, true), name, fldPath.Child("name"))
}

// validateVolumeMounts checks that each mount refers to a volume of the
// pod, at a unique path, and that its sub-path and propagation settings
// make sense. Some errors are reported at the list's path rather than the
// mount's, as kube-apiserver does.
func validateVolumeMounts(c *v1.Container, volumes map[string]v1.VolumeSource, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	devices := make(map[string]string, len(c.VolumeDevices))
	for _, d := range c.VolumeDevices {
		devices[d.Name] = d.DevicePath
	}
	mountPaths := sets.New[string]()
	for i, m := range c.VolumeMounts {
		idxPath := fldPath.Index(i)
		if m.Name == "" {
			allErrs = append(allErrs, field.Required(idxPath.Child("name"), ""))
		}
		source, found := volumes[m.Name]
		if !found {
			allErrs = append(allErrs, field.NotFound(idxPath.Child("name"), m.Name))
		}
		if m.MountPath == "" {
			allErrs = append(allErrs, field.Required(idxPath.Child("mountPath"), ""))
		}
		if mountPaths.Has(m.MountPath) {
			allErrs = append(allErrs, field.Invalid(idxPath.Child("mountPath"), m.MountPath, "must be unique"))
		}
		mountPaths.Insert(m.MountPath)
		if _, ok := devices[m.Name]; ok {
			allErrs = append(allErrs, field.Invalid(idxPath.Child("name"), m.Name, "must not already exist in volumeDevices"))
		}
		if containsValue(devices, m.MountPath) {
			allErrs = append(allErrs, field.Invalid(idxPath.Child("mountPath"), m.MountPath, "must not already exist as a path in volumeDevices"))
		}
		if found && source.Image != nil {
			if m.SubPath != "" {
				allErrs = append(allErrs, field.Invalid(idxPath.Child("subPath"), m.SubPath, "not allowed in image volume sources"))
			}
			if m.SubPathExpr != "" {
				allErrs = append(allErrs, field.Invalid(idxPath.Child("subPathExpr"), m.SubPathExpr, "not allowed in image volume sources"))
			}
		}
		if m.SubPath != "" {
			allErrs = append(allErrs, validateLocalDescendingPath(m.SubPath, fldPath.Child("subPath"))...)
		}
		if m.SubPathExpr != "" {
			if m.SubPath != "" {
				allErrs = append(allErrs, field.Invalid(idxPath.Child("subPathExpr"), m.SubPathExpr, "subPathExpr and subPath are mutually exclusive"))
			}
			allErrs = append(allErrs, validateLocalDescendingPath(m.SubPathExpr, fldPath.Child("subPathExpr"))...)
		}
		if m.MountPropagation != nil {
			allErrs = append(allErrs, validateMountPropagation(*m.MountPropagation, c, fldPath.Child("mountPropagation"))...)
		}
		allErrs = append(allErrs, validateRecursiveReadOnly(m, fldPath.Child("recursiveReadOnly"))...)
	}
	return allErrs
}

func containsValue(m map[string]string, value string) bool {
	for _, v := range m {
		if v == value {
			return true
		}
	}
	return false
}

var mountPropagationModes = []v1.MountPropagationMode{v1.MountPropagationBidirectional, v1.MountPropagationHostToContainer, v1.MountPropagationNone}

func validateMountPropagation(mode v1.MountPropagationMode, c *v1.Container, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	switch mode {
	case v1.MountPropagationBidirectional, v1.MountPropagationHostToContainer, v1.MountPropagationNone:
	default:
		allErrs = append(allErrs, field.NotSupported(fldPath, mode, mountPropagationModes))
	}
	// Bidirectional propagation lets the container mount on the host.
	privileged := c.SecurityContext != nil && isTrue(c.SecurityContext.Privileged)
	if mode == v1.MountPropagationBidirectional && !privileged {
		allErrs = append(allErrs, field.Forbidden(fldPath, "Bidirectional mount propagation is available only to privileged containers"))
	}
	return allErrs
}

func validateRecursiveReadOnly(m v1.VolumeMount, fldPath *field.Path) field.ErrorList {
	if m.RecursiveReadOnly == nil {
		return nil
	}
	var allErrs field.ErrorList
	switch *m.RecursiveReadOnly {
	case v1.RecursiveReadOnlyDisabled:
	case v1.RecursiveReadOnlyEnabled, v1.RecursiveReadOnlyIfPossible:
		if !m.ReadOnly {
			allErrs = append(allErrs, field.Forbidden(fldPath, "may only be specified when readOnly is true"))
		}
		if m.MountPropagation != nil && *m.MountPropagation != v1.MountPropagationNone {
			allErrs = append(allErrs, field.Forbidden(fldPath, "may only be specified when mountPropagation is None or not specified"))
		}
	default:
		allErrs = append(allErrs, field.NotSupported(fldPath, *m.RecursiveReadOnly, []v1.RecursiveReadOnlyMode{v1.RecursiveReadOnlyDisabled, v1.RecursiveReadOnlyEnabled, v1.RecursiveReadOnlyIfPossible}))
	}
	return allErrs
}

// validateVolumeDevices checks raw block devices: each refers to a claim
// volume of the pod, at a unique path that no mount uses.
func validateVolumeDevices(c *v1.Container, volumes map[string]v1.VolumeSource, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	mounts := make(map[string]string, len(c.VolumeMounts))
	for _, m := range c.VolumeMounts {
		mounts[m.Name] = m.MountPath
	}
	names, paths := sets.New[string](), sets.New[string]()
	for i, d := range c.VolumeDevices {
		idxPath := fldPath.Index(i)
		source, found := volumes[d.Name]
		if d.Name == "" {
			allErrs = append(allErrs, field.Required(idxPath.Child("name"), ""))
		}
		if names.Has(d.Name) {
			allErrs = append(allErrs, field.Invalid(idxPath.Child("name"), d.Name, "must be unique"))
		}
		if found && source.PersistentVolumeClaim == nil && source.Ephemeral == nil {
			allErrs = append(allErrs, field.Invalid(idxPath.Child("name"), d.Name, "can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode"))
		}
		if !found {
			allErrs = append(allErrs, field.NotFound(idxPath.Child("name"), d.Name))
		}
		if d.DevicePath == "" {
			allErrs = append(allErrs, field.Required(idxPath.Child("devicePath"), ""))
		}
		if paths.Has(d.DevicePath) {
			allErrs = append(allErrs, field.Invalid(idxPath.Child("devicePath"), d.DevicePath, "must be unique"))
		}
		if d.DevicePath != "" && hasBacksteps(d.DevicePath) {
			allErrs = append(allErrs, field.Invalid(idxPath.Child("devicePath"), d.DevicePath, "can not contain backsteps ('..')"))
		} else {
			paths.Insert(d.DevicePath)
		}
		if _, ok := mounts[d.Name]; ok {
			allErrs = append(allErrs, field.Invalid(idxPath.Child("name"), d.Name, "must not already exist in volumeMounts"))
		}
		if containsValue(mounts, d.DevicePath) {
			allErrs = append(allErrs, field.Invalid(idxPath.Child("devicePath"), d.DevicePath, "must not already exist as a path in volumeMounts"))
		}
		if d.Name != "" {
			names.Insert(d.Name)
		}
	}
	return allErrs
}

var (
	resizeResources = []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory}
	resizePolicies  = []v1.ResourceResizeRestartPolicy{v1.NotRequired, v1.RestartContainer}
)

// validateResizePolicy validates how a container reacts to a resize of its
// cpu or memory. Pods that never restart cannot restart a container for it.
func validateResizePolicy(policies []v1.ContainerResizePolicy, podRestartPolicy v1.RestartPolicy, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	seen := sets.New[v1.ResourceName]()
	for i, p := range policies {
		if seen.Has(p.ResourceName) {
			allErrs = append(allErrs, field.Duplicate(fldPath.Index(i), p.ResourceName))
		}
		seen.Insert(p.ResourceName)
		switch p.ResourceName {
		case v1.ResourceCPU, v1.ResourceMemory:
		case "":
			allErrs = append(allErrs, field.Required(fldPath, ""))
		default:
			allErrs = append(allErrs, field.NotSupported(fldPath, p.ResourceName, resizeResources))
		}
		switch p.RestartPolicy {
		case v1.NotRequired, v1.RestartContainer:
		case "":
			allErrs = append(allErrs, field.Required(fldPath, ""))
		default:
			allErrs = append(allErrs, field.NotSupported(fldPath, p.RestartPolicy, resizePolicies))
		}
		if podRestartPolicy == v1.RestartPolicyNever && p.RestartPolicy != v1.NotRequired {
			allErrs = append(allErrs, field.Invalid(fldPath, p.RestartPolicy, "must be 'NotRequired' when `restartPolicy` is 'Never'"))
		}
	}
	return allErrs
}

// validateContainerHooks validates the probes and lifecycle hooks of a
// container that keeps running (a regular container or a sidecar).
func validateContainerHooks(c *v1.Container, gracePeriod *int64, path *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if c.Lifecycle != nil {
		for _, hook := range []struct {
			name    string
			handler *v1.LifecycleHandler
		}{{"postStart", c.Lifecycle.PostStart}, {"preStop", c.Lifecycle.PreStop}} {
			if hook.handler != nil {
				h := hook.handler
				allErrs = append(allErrs, validateHandler(handler{exec: h.Exec, httpGet: h.HTTPGet, tcpSocket: h.TCPSocket, sleep: h.Sleep}, gracePeriod, path.Child("lifecycle", hook.name))...)
			}
		}
	}
	if p := c.LivenessProbe; p != nil {
		allErrs = append(allErrs, validateProbe(p, gracePeriod, path.Child("livenessProbe"))...)
		if p.SuccessThreshold != 1 {
			allErrs = append(allErrs, field.Invalid(path.Child("livenessProbe", "successThreshold"), p.SuccessThreshold, "must be 1"))
		}
	}
	if p := c.ReadinessProbe; p != nil {
		allErrs = append(allErrs, validateProbe(p, gracePeriod, path.Child("readinessProbe"))...)
		if p.TerminationGracePeriodSeconds != nil {
			allErrs = append(allErrs, field.Invalid(path.Child("readinessProbe", "terminationGracePeriodSeconds"), p.TerminationGracePeriodSeconds, "must not be set for readinessProbes"))
		}
	}
	if p := c.StartupProbe; p != nil {
		allErrs = append(allErrs, validateProbe(p, gracePeriod, path.Child("startupProbe"))...)
		if p.SuccessThreshold != 1 {
			allErrs = append(allErrs, field.Invalid(path.Child("startupProbe", "successThreshold"), p.SuccessThreshold, "must be 1"))
		}
	}
	return allErrs
}

func validateProbe(p *v1.Probe, gracePeriod *int64, fldPath *field.Path) field.ErrorList {
	h := p.ProbeHandler
	allErrs := validateHandler(handler{exec: h.Exec, httpGet: h.HTTPGet, tcpSocket: h.TCPSocket, grpc: h.GRPC}, gracePeriod, fldPath)
	for _, f := range []struct {
		name  string
		value int32
	}{
		{"initialDelaySeconds", p.InitialDelaySeconds},
		{"timeoutSeconds", p.TimeoutSeconds},
		{"periodSeconds", p.PeriodSeconds},
		{"successThreshold", p.SuccessThreshold},
		{"failureThreshold", p.FailureThreshold},
	} {
		allErrs = append(allErrs, apivalidation.ValidateNonnegativeField(int64(f.value), fldPath.Child(f.name))...)
	}
	if p.TerminationGracePeriodSeconds != nil && *p.TerminationGracePeriodSeconds <= 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("terminationGracePeriodSeconds"), *p.TerminationGracePeriodSeconds, "must be greater than 0"))
	}
	return allErrs
}

// handler is the union of probe and lifecycle handlers.
type handler struct {
	exec      *v1.ExecAction
	httpGet   *v1.HTTPGetAction
	tcpSocket *v1.TCPSocketAction
	grpc      *v1.GRPCAction
	sleep     *v1.SleepAction
}

// validateHandler requires exactly one action, and validates it.
func validateHandler(h handler, gracePeriod *int64, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	count := 0
	check := func(set bool, name string, validate func(*field.Path) field.ErrorList) {
		if !set {
			return
		}
		if count > 0 {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child(name), "may not specify more than 1 handler type"))
			return
		}
		count++
		allErrs = append(allErrs, validate(fldPath.Child(name))...)
	}
	check(h.exec != nil, "exec", func(p *field.Path) field.ErrorList {
		if len(h.exec.Command) == 0 {
			return field.ErrorList{field.Required(p.Child("command"), "")}
		}
		return nil
	})
	check(h.httpGet != nil, "httpGet", func(p *field.Path) field.ErrorList { return validateHTTPGetAction(h.httpGet, p) })
	check(h.tcpSocket != nil, "tcpSocket", func(p *field.Path) field.ErrorList { return validatePortNumOrName(h.tcpSocket.Port, p.Child("port")) })
	check(h.grpc != nil, "grpc", func(p *field.Path) field.ErrorList {
		return validatePortNumOrName(intstr.FromInt32(h.grpc.Port), p.Child("port"))
	})
	check(h.sleep != nil, "sleep", func(p *field.Path) field.ErrorList {
		// Without a valid grace period there is nothing to compare with;
		// the grace period itself is reported elsewhere.
		if gracePeriod != nil && (h.sleep.Seconds < 0 || h.sleep.Seconds > *gracePeriod) {
			return field.ErrorList{field.Invalid(p, h.sleep.Seconds, fmt.Sprintf("must be non-negative and less than terminationGracePeriodSeconds (%d)", *gracePeriod))}
		}
		return nil
	})
	if count == 0 {
		allErrs = append(allErrs, field.Required(fldPath, "must specify a handler type"))
	}
	return allErrs
}

var uriSchemes = []v1.URIScheme{v1.URISchemeHTTP, v1.URISchemeHTTPS}

func validateHTTPGetAction(a *v1.HTTPGetAction, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if a.Path == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("path"), ""))
	}
	allErrs = append(allErrs, validatePortNumOrName(a.Port, fldPath.Child("port"))...)
	if a.Scheme != v1.URISchemeHTTP && a.Scheme != v1.URISchemeHTTPS {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("scheme"), a.Scheme, uriSchemes))
	}
	for _, header := range a.HTTPHeaders {
		allErrs = append(allErrs, messagesToErrors(validation.IsHTTPHeaderName(header.Name), header.Name, fldPath.Child("httpHeaders"))...)
	}
	return allErrs
}

// validatePortNumOrName validates a port given by number or by name.
func validatePortNumOrName(port intstr.IntOrString, fldPath *field.Path) field.ErrorList {
	switch port.Type {
	case intstr.Int:
		return messagesToErrors(validation.IsValidPortNum(port.IntValue()), port.IntValue(), fldPath)
	case intstr.String:
		return messagesToErrors(validation.IsValidPortName(port.StrVal), port.StrVal, fldPath)
	}
	return field.ErrorList{field.InternalError(fldPath, fmt.Errorf("unknown type: %v", port.Type))}
}

// validateSecurityContext validates a container's security context.
// Privileged containers are allowed: kapi, like kube-apiserver started with
// --allow-privileged=true, leaves that decision to admission.
func validateSecurityContext(sc *v1.SecurityContext, hostUsers, allowSysAdminWithoutEscalation bool, fldPath *field.Path) field.ErrorList {
	if sc == nil {
		return nil
	}
	var allErrs field.ErrorList
	if sc.RunAsUser != nil {
		allErrs = append(allErrs, messagesToErrors(validation.IsValidUserID(*sc.RunAsUser), *sc.RunAsUser, fldPath.Child("runAsUser"))...)
	}
	if sc.RunAsGroup != nil {
		allErrs = append(allErrs, messagesToErrors(validation.IsValidGroupID(*sc.RunAsGroup), *sc.RunAsGroup, fldPath.Child("runAsGroup"))...)
	}
	if sc.ProcMount != nil {
		switch *sc.ProcMount {
		case v1.DefaultProcMount, v1.UnmaskedProcMount:
		default:
			allErrs = append(allErrs, field.NotSupported(fldPath.Child("procMount"), *sc.ProcMount, []v1.ProcMountType{v1.DefaultProcMount, v1.UnmaskedProcMount}))
		}
		// An unmasked /proc is only safe inside a user namespace.
		if hostUsers && *sc.ProcMount == v1.UnmaskedProcMount {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("procMount"), sc.ProcMount, "`hostUsers` must be false to use `Unmasked`"))
		}
	}
	allErrs = append(allErrs, validateSeccompProfile(sc.SeccompProfile, fldPath.Child("seccompProfile"))...)
	if sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation {
		if isTrue(sc.Privileged) {
			allErrs = append(allErrs, field.Invalid(fldPath, gofields.Value(sc), "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"))
		}
		if sc.Capabilities != nil && !allowSysAdminWithoutEscalation {
			for _, capability := range sc.Capabilities.Add {
				if capability == "CAP_SYS_ADMIN" {
					allErrs = append(allErrs, field.Invalid(fldPath, gofields.Value(sc), "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN"))
				}
			}
		}
	}
	return append(allErrs, validateAppArmorProfile(sc.AppArmorProfile, fldPath.Child("appArmorProfile"))...)
}

func validateSeccompProfile(p *v1.SeccompProfile, fldPath *field.Path) field.ErrorList {
	if p == nil {
		return nil
	}
	var allErrs field.ErrorList
	switch p.Type {
	case v1.SeccompProfileTypeLocalhost, v1.SeccompProfileTypeRuntimeDefault, v1.SeccompProfileTypeUnconfined:
	case "":
		allErrs = append(allErrs, field.Required(fldPath.Child("type"), "type is required when seccompProfile is set"))
	default:
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("type"), p.Type, []v1.SeccompProfileType{v1.SeccompProfileTypeLocalhost, v1.SeccompProfileTypeRuntimeDefault, v1.SeccompProfileTypeUnconfined}))
	}
	switch {
	case p.Type == v1.SeccompProfileTypeLocalhost && p.LocalhostProfile == nil:
		allErrs = append(allErrs, field.Required(fldPath.Child("localhostProfile"), "must be set when seccomp type is Localhost"))
	case p.Type == v1.SeccompProfileTypeLocalhost:
		allErrs = append(allErrs, validateLocalDescendingPath(*p.LocalhostProfile, fldPath.Child("localhostProfile"))...)
	case p.LocalhostProfile != nil:
		allErrs = append(allErrs, field.Invalid(fldPath.Child("localhostProfile"), p, "can only be set when seccomp type is Localhost"))
	}
	return allErrs
}

func validateAppArmorProfile(p *v1.AppArmorProfile, fldPath *field.Path) field.ErrorList {
	if p == nil {
		return nil
	}
	var allErrs field.ErrorList
	localhostPath := fldPath.Child("localhostProfile")
	switch p.Type {
	case v1.AppArmorProfileTypeLocalhost:
		switch {
		case p.LocalhostProfile == nil:
			allErrs = append(allErrs, field.Required(localhostPath, "must be set when AppArmor type is Localhost"))
		case strings.TrimSpace(*p.LocalhostProfile) != *p.LocalhostProfile:
			allErrs = append(allErrs, field.Invalid(localhostPath, *p.LocalhostProfile, "must not be padded with whitespace"))
		case *p.LocalhostProfile == "":
			allErrs = append(allErrs, field.Required(localhostPath, "must be set when AppArmor type is Localhost"))
		}
		const maxProfileLength = 4095 // PATH_MAX - 1
		if p.LocalhostProfile != nil && len(*p.LocalhostProfile) > maxProfileLength {
			allErrs = append(allErrs, field.TooLong(localhostPath, "", maxProfileLength))
		}
	case v1.AppArmorProfileTypeRuntimeDefault, v1.AppArmorProfileTypeUnconfined:
		if p.LocalhostProfile != nil {
			allErrs = append(allErrs, field.Invalid(localhostPath, p.LocalhostProfile, "can only be set when AppArmor type is Localhost"))
		}
	case "":
		allErrs = append(allErrs, field.Required(fldPath.Child("type"), "type is required when appArmorProfile is set"))
	default:
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("type"), p.Type, []v1.AppArmorProfileType{v1.AppArmorProfileTypeLocalhost, v1.AppArmorProfileTypeRuntimeDefault, v1.AppArmorProfileTypeUnconfined}))
	}
	return allErrs
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, prefix := range prefixes {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

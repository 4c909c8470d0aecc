package printers

import (
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// The printers of the core group (v1) but pods and events.

var namespaceColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("Status", "string", "The status of the namespace"),
	ageColumn,
}

func printNamespace(ns *corev1.Namespace, now time.Time) []any {
	return []any{ns.Name, string(ns.Status.Phase), since(ns.CreationTimestamp, now)}
}

var configMapColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("Data", "string", corev1.ConfigMap{}.SwaggerDoc()["data"]),
	ageColumn,
}

func printConfigMap(cm *corev1.ConfigMap, now time.Time) []any {
	return []any{cm.Name, int64(len(cm.Data) + len(cm.BinaryData)), since(cm.CreationTimestamp, now)}
}

var secretColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("Type", "string", corev1.Secret{}.SwaggerDoc()["type"]),
	column("Data", "string", corev1.Secret{}.SwaggerDoc()["data"]),
	ageColumn,
}

// printSecret counts the keys of data: stringData is write-only and
// merged into data before a secret is stored.
func printSecret(s *corev1.Secret, now time.Time) []any {
	return []any{s.Name, string(s.Type), int64(len(s.Data)), since(s.CreationTimestamp, now)}
}

// serviceAccountColumns are 1.37's: the Secrets column went with the
// token secrets that no longer are made for service accounts.
var serviceAccountColumns = []metav1.TableColumnDefinition{nameColumn, ageColumn}

func printServiceAccount(sa *corev1.ServiceAccount, now time.Time) []any {
	return []any{sa.Name, since(sa.CreationTimestamp, now)}
}

var serviceSpecDoc = corev1.ServiceSpec{}.SwaggerDoc()

var serviceColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("Type", "string", serviceSpecDoc["type"]),
	column("Cluster-IP", "string", serviceSpecDoc["clusterIP"]),
	column("External-IP", "string", serviceSpecDoc["externalIPs"]),
	column("Port(s)", "string", serviceSpecDoc["ports"]),
	ageColumn,
	wide(column("Selector", "string", serviceSpecDoc["selector"])),
}

func printService(svc *corev1.Service, now time.Time) []any {
	// clusterIPs[0] is clusterIP once defaulted; clusterIP covers a service
	// stored before clusterIPs existed.
	clusterIP := svc.Spec.ClusterIP
	if len(svc.Spec.ClusterIPs) > 0 {
		clusterIP = svc.Spec.ClusterIPs[0]
	}
	return []any{
		svc.Name,
		string(svc.Spec.Type),
		orNone(clusterIP),
		serviceExternalIP(svc),
		orNone(servicePorts(svc.Spec.Ports)),
		since(svc.CreationTimestamp, now),
		labels.FormatLabels(svc.Spec.Selector),
	}
}

// serviceExternalIP is what a client outside the cluster connects to: the
// external IPs, the load balancer's addresses (or "<pending>" until it has
// some), or the external name.
func serviceExternalIP(svc *corev1.Service) string {
	switch svc.Spec.Type {
	case corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort:
		return orNone(strings.Join(svc.Spec.ExternalIPs, ","))
	case corev1.ServiceTypeLoadBalancer:
		ips := loadBalancerAddresses(svc.Status.LoadBalancer.Ingress)
		if len(svc.Spec.ExternalIPs) > 0 {
			return strings.Join(append(ips, svc.Spec.ExternalIPs...), ",")
		}
		if len(ips) == 0 {
			return "<pending>"
		}
		return strings.Join(ips, ",")
	case corev1.ServiceTypeExternalName:
		return svc.Spec.ExternalName
	}
	return "<unknown>"
}

// loadBalancerAddresses lists the distinct IPs (or, lacking one, host
// names) of a load balancer's ingress points, sorted. The server renders
// the wide form, so the list is not shortened.
func loadBalancerAddresses(ingress []corev1.LoadBalancerIngress) []string {
	var addrs []string
	for _, in := range ingress {
		switch {
		case in.IP != "":
			addrs = append(addrs, in.IP)
		case in.Hostname != "":
			addrs = append(addrs, in.Hostname)
		}
	}
	slices.Sort(addrs)
	return slices.Compact(addrs)
}

// servicePorts is "80/TCP", or "80:30080/TCP" with a node port, for each
// port.
func servicePorts(ports []corev1.ServicePort) string {
	var b strings.Builder
	for i, p := range ports {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(int(p.Port)))
		if p.NodePort > 0 {
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(int(p.NodePort)))
		}
		b.WriteByte('/')
		b.WriteString(string(p.Protocol))
	}
	return b.String()
}

var endpointsColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("Endpoints", "string", corev1.Endpoints{}.SwaggerDoc()["subsets"]),
	ageColumn,
}

func printEndpoints(ep *corev1.Endpoints, now time.Time) []any {
	return []any{ep.Name, formatEndpoints(ep), since(ep.CreationTimestamp, now)}
}

// maxListed is how many items a cell lists before "+ N more...".
const maxListed = 3

// formatEndpoints lists the first addresses of the endpoints, as ip:port
// for each port of their subset (or a bare ip for a subset without ports,
// as headless services may have).
func formatEndpoints(ep *corev1.Endpoints) string {
	if len(ep.Subsets) == 0 {
		return "<none>"
	}
	var listed []string
	total := 0
	add := func(s string) {
		total++
		if len(listed) < maxListed {
			listed = append(listed, s)
		}
	}
	for _, ss := range ep.Subsets {
		if len(ss.Ports) == 0 {
			for _, addr := range ss.Addresses {
				add(addr.IP)
			}
			continue
		}
		for _, port := range ss.Ports {
			for _, addr := range ss.Addresses {
				add(net.JoinHostPort(addr.IP, strconv.Itoa(int(port.Port))))
			}
		}
	}
	return listWithMore(listed, total)
}

// listWithMore joins listed, followed by " + N more..." when total counts
// more items than were listed.
func listWithMore(listed []string, total int) string {
	s := strings.Join(listed, ",")
	if total > len(listed) {
		return s + " + " + strconv.Itoa(total-len(listed)) + " more..."
	}
	return s
}

var (
	nodeSystemInfoDoc = corev1.NodeSystemInfo{}.SwaggerDoc()
	nodeStatusDoc     = corev1.NodeStatus{}.SwaggerDoc()
)

var nodeColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("Status", "string", "The status of the node"),
	column("Roles", "string", "The roles of the node"),
	ageColumn,
	column("Version", "string", nodeSystemInfoDoc["kubeletVersion"]),
	wide(column("Internal-IP", "string", nodeStatusDoc["addresses"])),
	wide(column("External-IP", "string", nodeStatusDoc["addresses"])),
	wide(column("OS-Image", "string", nodeSystemInfoDoc["osImage"])),
	wide(column("Kernel-Version", "string", nodeSystemInfoDoc["kernelVersion"])),
	wide(column("Container-Runtime", "string", nodeSystemInfoDoc["containerRuntimeVersion"])),
}

func printNode(node *corev1.Node, now time.Time) []any {
	info := &node.Status.NodeInfo
	return []any{
		node.Name,
		nodeStatus(node),
		orNone(strings.Join(nodeRoles(node), ",")),
		since(node.CreationTimestamp, now),
		info.KubeletVersion,
		orNone(nodeAddress(node, corev1.NodeInternalIP)),
		orNone(nodeAddress(node, corev1.NodeExternalIP)),
		orUnknown(info.OSImage),
		orUnknown(info.KernelVersion),
		orUnknown(info.ContainerRuntimeVersion),
	}
}

// nodeStatus is Ready, NotReady or Unknown (no Ready condition yet), and
// SchedulingDisabled when the node is cordoned.
func nodeStatus(node *corev1.Node) string {
	status := "Unknown"
	// The last Ready condition wins, should there be several.
	for _, c := range node.Status.Conditions {
		if c.Type != corev1.NodeReady {
			continue
		}
		if c.Status == corev1.ConditionTrue {
			status = string(corev1.NodeReady)
		} else {
			status = "Not" + string(corev1.NodeReady)
		}
	}
	if node.Spec.Unschedulable {
		status += ",SchedulingDisabled"
	}
	return status
}

const (
	// nodeRoleLabelPrefix labels give a node the role that follows the
	// prefix: node-role.kubernetes.io/control-plane="".
	nodeRoleLabelPrefix = "node-role.kubernetes.io/"
	// nodeRoleLabel gives a node the role that is its value.
	nodeRoleLabel = "kubernetes.io/role"
)

// nodeRoles lists the roles the labels of a node give it, sorted.
func nodeRoles(node *corev1.Node) []string {
	var roles []string
	for k, v := range node.Labels {
		switch {
		case strings.HasPrefix(k, nodeRoleLabelPrefix):
			if role := strings.TrimPrefix(k, nodeRoleLabelPrefix); role != "" {
				roles = append(roles, role)
			}
		case k == nodeRoleLabel && v != "":
			roles = append(roles, v)
		}
	}
	slices.Sort(roles)
	return slices.Compact(roles)
}

// nodeAddress is the first address of type t of a node.
func nodeAddress(node *corev1.Node, t corev1.NodeAddressType) string {
	for _, a := range node.Status.Addresses {
		if a.Type == t {
			return a.Address
		}
	}
	return ""
}

// orUnknown returns s, or "<unknown>" when s is empty.
func orUnknown(s string) string {
	if s == "" {
		return "<unknown>"
	}
	return s
}

var replicationControllerColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("Desired", "integer", corev1.ReplicationControllerSpec{}.SwaggerDoc()["replicas"]),
	column("Current", "integer", corev1.ReplicationControllerStatus{}.SwaggerDoc()["replicas"]),
	column("Ready", "integer", corev1.ReplicationControllerStatus{}.SwaggerDoc()["readyReplicas"]),
	ageColumn,
	containersColumn,
	imagesColumn,
	wide(column("Selector", "string", corev1.ReplicationControllerSpec{}.SwaggerDoc()["selector"])),
}

func printReplicationController(rc *corev1.ReplicationController, now time.Time) []any {
	var containers []corev1.Container
	if rc.Spec.Template != nil {
		containers = rc.Spec.Template.Spec.Containers
	}
	names, images := containerCells(containers)
	return []any{
		rc.Name,
		int64(int32Value(rc.Spec.Replicas)),
		int64(rc.Status.Replicas),
		int64(rc.Status.ReadyReplicas),
		since(rc.CreationTimestamp, now),
		names,
		images,
		labels.FormatLabels(rc.Spec.Selector),
	}
}

var podTemplateColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("Containers", "string", "Names of each container in the template."),
	column("Images", "string", "Images referenced by each container in the template."),
	column("Pod Labels", "string", "The labels for the pod template."),
}

func printPodTemplate(pt *corev1.PodTemplate, _ time.Time) []any {
	names, images := containerCells(pt.Template.Spec.Containers)
	return []any{pt.Name, names, images, labels.FormatLabels(pt.Template.Labels)}
}

var componentStatusColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("Status", "string", "Status of the component conditions"),
	column("Message", "string", "Message of the component conditions"),
	column("Error", "string", "Error of the component conditions"),
}

// printComponentStatus shows the component's Healthy condition, Unknown
// when it has none.
func printComponentStatus(cs *corev1.ComponentStatus, _ time.Time) []any {
	status, message, errText := "Unknown", "", ""
	for _, c := range cs.Conditions {
		if c.Type == corev1.ComponentHealthy {
			status = "Unhealthy"
			if c.Status == corev1.ConditionTrue {
				status = "Healthy"
			}
			message, errText = c.Message, c.Error
			break
		}
	}
	return []any{cs.Name, status, message, errText}
}

// Package noderestriction is the NodeRestriction admission plugin: a
// kubelet (user system:node:<name> in group system:nodes) may write only
// what belongs to its own node. The node authorizer lets kubelets write
// pods, nodes, leases and the rest at all; this plugin narrows each write
// to the kubelet's node:
//
//   - pods: create only mirror pods bound to itself, owned by its Node
//     object and referencing no other API object; delete only its pods;
//     update the status of its pods (not their labels, nor what the
//     scheduler and DRA set); evict only its pods;
//   - its own Node object, without setting taints, owner references, a
//     config source or labels outside the kubelet's own namespaces
//     (kubernetes.io and k8s.io labels are refused unless they are
//     kubelet labels; node-restriction.kubernetes.io labels always);
//   - persistent volume claims: only their status' capacity and
//     conditions;
//   - service account tokens: only bound to a pod on the node, for an
//     audience the pod uses (ServiceAccountNodeAudienceRestriction);
//   - its lease in kube-node-lease, its CSINode, ResourceSlices of its
//     node, CSRs for its own name, PodCertificateRequests of its pods.
//
// The plugin reads pods, nodes and the rest from informers' caches, as
// kube-apiserver's does.
package noderestriction

import (
	"context"
	"fmt"
	"slices"
	"strings"

	certificatesv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourcev1 "k8s.io/api/resource/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/diff"
	"k8s.io/apimachinery/pkg/util/sets"
	corelisters "k8s.io/client-go/listers/core/v1"
	storagelisters "k8s.io/client-go/listers/storage/v1"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "NodeRestriction"

// Features are the feature gates the plugin follows.
type Features struct {
	RecoverVolumeExpansionFailure                  bool
	AllowInsecureKubeletCertificateSigningRequests bool
	ServiceAccountNodeAudienceRestriction          bool
	PodCertificateRequest                          bool
	CSIVolumeHealth                                bool
}

// Config is what the plugin needs.
type Config struct {
	// The informers' caches.
	Pods            corelisters.PodLister
	Nodes           corelisters.NodeLister
	ServiceAccounts corelisters.ServiceAccountLister
	PVCs            corelisters.PersistentVolumeClaimLister
	PVs             corelisters.PersistentVolumeLister
	CSIDrivers      storagelisters.CSIDriverLister
	// Authorizer answers whether a node may ask for a token audience or
	// a pod certificate signer its pod does not use.
	Authorizer authorizer.Authorizer
	Features   Features
}

// Plugin is the admission plugin; it mutates nothing, but runs in the
// mutating phase, as kube-apiserver's does.
type Plugin struct {
	admission.Handler
	cfg Config
}

// New returns the plugin.
func New(cfg Config) *Plugin {
	return &Plugin{Handler: admission.NewHandler(admission.Create, admission.Update, admission.Delete), cfg: cfg}
}

// NodeIdentity is the node a user is the kubelet of: users named
// system:node:<name> in the group system:nodes. isNode is false for
// anyone else; name may be empty for a node user with no name.
func NodeIdentity(u user.Info) (name string, isNode bool) {
	if u == nil {
		return "", false
	}
	name, ok := strings.CutPrefix(u.GetName(), "system:node:")
	if !ok || !slices.Contains(u.GetGroups(), "system:nodes") {
		return "", false
	}
	return name, true
}

func forbid(a *admission.Attributes, format string, args ...any) error {
	return admission.NewForbidden(a, fmt.Errorf(format, args...))
}

// Admit limits a kubelet's writes to its own node's objects.
func (p *Plugin) Admit(ctx context.Context, a *admission.Attributes) error {
	nodeName, isNode := NodeIdentity(a.User)
	if !isNode {
		return nil
	}
	if nodeName == "" {
		return forbid(a, "could not determine node from user %q", a.User.GetName())
	}
	switch gr := a.Resource.GroupResource(); gr {
	case corev1.Resource("pods"):
		switch a.Subresource {
		case "":
			return p.admitPod(nodeName, a)
		case "status":
			return p.admitPodStatus(nodeName, a)
		case "eviction":
			return p.admitPodEviction(nodeName, a)
		default:
			return forbid(a, "unexpected pod subresource %q, only 'status' and 'eviction' are allowed", a.Subresource)
		}
	case corev1.Resource("nodes"):
		return p.admitNode(nodeName, a)
	case corev1.Resource("persistentvolumeclaims"):
		if a.Subresource != "status" {
			return forbid(a, "may only update PVC status")
		}
		return p.admitPVCStatus(nodeName, a)
	case corev1.Resource("serviceaccounts"):
		return p.admitServiceAccount(ctx, nodeName, a)
	case certificatesv1.Resource("podcertificaterequests"):
		return p.admitPodCertificateRequest(ctx, nodeName, a)
	case coordinationv1.Resource("leases"):
		return p.admitLease(nodeName, a)
	case storagev1.Resource("csinodes"):
		return p.admitCSINode(nodeName, a)
	case resourcev1.Resource("resourceslices"):
		return p.admitResourceSlice(nodeName, a)
	case certificatesv1.Resource("certificatesigningrequests"):
		if p.cfg.Features.AllowInsecureKubeletCertificateSigningRequests {
			return nil
		}
		return p.admitCSR(nodeName, a)
	}
	return nil
}

func (p *Plugin) admitPod(nodeName string, a *admission.Attributes) error {
	switch a.Operation {
	case admission.Create:
		return p.admitMirrorPod(nodeName, a)
	case admission.Delete:
		pod, err := p.cfg.Pods.Pods(a.Namespace).Get(a.Name)
		if apierrors.IsNotFound(err) {
			return err
		}
		if err != nil {
			return admission.NewForbidden(a, err)
		}
		if pod.Spec.NodeName != nodeName {
			return forbid(a, "node %q can only delete pods with spec.nodeName set to itself", nodeName)
		}
		return nil
	default:
		return forbid(a, "unexpected operation %q, node %q can only create and delete mirror pods", a.Operation, nodeName)
	}
}

func (p *Plugin) admitMirrorPod(nodeName string, a *admission.Attributes) error {
	pod, ok := a.Object.(*corev1.Pod)
	if !ok {
		return forbid(a, "unexpected type %T", a.Object)
	}
	if _, mirror := pod.Annotations[corev1.MirrorPodAnnotationKey]; !mirror {
		return forbid(a, "pod does not have %q annotation, node %q can only create mirror pods", corev1.MirrorPodAnnotationKey, nodeName)
	}
	if pod.Spec.NodeName != nodeName {
		return forbid(a, "node %q can only create pods with spec.nodeName set to itself", nodeName)
	}
	switch len(pod.OwnerReferences) {
	case 0:
		return forbid(a, "node %q can only create pods with an owner reference set to itself", nodeName)
	case 1:
	default:
		return forbid(a, "node %q can only create pods with a single owner reference set to itself", nodeName)
	}
	owner := pod.OwnerReferences[0]
	if owner.APIVersion != "v1" || owner.Kind != "Node" || owner.Name != nodeName {
		return forbid(a, "node %q can only create pods with an owner reference set to itself", nodeName)
	}
	if owner.Controller == nil || !*owner.Controller {
		return forbid(a, "node %q can only create pods with a controller owner reference set to itself", nodeName)
	}
	if owner.BlockOwnerDeletion != nil && *owner.BlockOwnerDeletion {
		return forbid(a, "node %q must not set blockOwnerDeletion on an owner reference", nodeName)
	}
	node, err := p.cfg.Nodes.Get(nodeName)
	if apierrors.IsNotFound(err) {
		return err
	}
	if err != nil {
		return forbid(a, "error looking up node %s to verify uid: %v", nodeName, err)
	}
	if owner.UID != node.UID {
		return forbid(a, "node %s UID mismatch: expected %s got %s", nodeName, owner.UID, node.UID)
	}
	resource, err := apiObjectReference(pod)
	if err != nil {
		return forbid(a, "error checking mirror pod for API references: %w", err)
	}
	if resource != "" {
		return forbid(a, "node %q can not create pods that reference %s", nodeName, resource)
	}
	return nil
}

func (p *Plugin) admitPodStatus(nodeName string, a *admission.Attributes) error {
	if a.Operation != admission.Update {
		return forbid(a, "unexpected operation %q", a.Operation)
	}
	old, ok := a.OldObject.(*corev1.Pod)
	if !ok {
		return forbid(a, "unexpected type %T", a.OldObject)
	}
	if old.Spec.NodeName != nodeName {
		return forbid(a, "node %q can only update pod status for pods with spec.nodeName set to itself", nodeName)
	}
	pod, ok := a.Object.(*corev1.Pod)
	if !ok {
		return forbid(a, "unexpected type %T", a.Object)
	}
	if !labels.Equals(old.Labels, pod.Labels) {
		return forbid(a, "node %q cannot update labels through pod status", nodeName)
	}
	if !claimStatusesEqual(old.Status.ResourceClaimStatuses, pod.Status.ResourceClaimStatuses) {
		return forbid(a, "node %q cannot update resource claim statues", nodeName)
	}
	if !extendedClaimStatusEqual(old.Status.ExtendedResourceClaimStatus, pod.Status.ExtendedResourceClaimStatus) {
		return forbid(a, "node %q cannot update extended resource claim status", nodeName)
	}
	if !slices.EqualFunc(old.Status.NodeAllocatableResourceClaimStatuses, pod.Status.NodeAllocatableResourceClaimStatuses, allocatableClaimStatusEqual) {
		return forbid(a, "node %q cannot update node allocatable resource claim statuses", nodeName)
	}
	return nil
}

// claimStatusesEqual compares the claims' names, in order; the scheduler
// and the resource claim controller set them, not the kubelet.
func claimStatusesEqual(x, y []corev1.PodResourceClaimStatus) bool {
	return slices.EqualFunc(x, y, func(a, b corev1.PodResourceClaimStatus) bool {
		if a.Name != b.Name || (a.ResourceClaimName == nil) != (b.ResourceClaimName == nil) {
			return false
		}
		return a.ResourceClaimName == nil || *a.ResourceClaimName == *b.ResourceClaimName
	})
}

func allocatableClaimStatusEqual(x, y corev1.NodeAllocatableResourceClaimStatus) bool {
	return x.ResourceClaimName == y.ResourceClaimName && slices.Equal(x.Containers, y.Containers) &&
		slices.EqualFunc(x.Mapping, y.Mapping, func(a, b corev1.NodeAllocatableMappedResources) bool {
			return a.Name == b.Name && quantityPtrEqual(a.Quantity, b.Quantity)
		}) &&
		slices.EqualFunc(x.Overhead, y.Overhead, func(a, b corev1.NodeAllocatableOverheadResources) bool {
			return a.Name == b.Name && quantityPtrEqual(a.PerPod, b.PerPod) && quantityPtrEqual(a.PerContainer, b.PerContainer)
		})
}

func quantityPtrEqual(x, y *resource.Quantity) bool {
	if x == nil || y == nil {
		return x == y
	}
	return x.Cmp(*y) == 0
}

func extendedClaimStatusEqual(x, y *corev1.PodExtendedResourceClaimStatus) bool {
	if x == nil || y == nil {
		return x == y
	}
	return x.ResourceClaimName == y.ResourceClaimName && slices.Equal(x.RequestMappings, y.RequestMappings)
}

func (p *Plugin) admitPodEviction(nodeName string, a *admission.Attributes) error {
	if a.Operation != admission.Create {
		return forbid(a, "unexpected operation %s", a.Operation)
	}
	eviction, ok := a.Object.(*policyv1.Eviction)
	if !ok {
		return forbid(a, "unexpected type %T", a.Object)
	}
	podName := a.Name
	if podName == "" {
		if eviction.Name == "" {
			return forbid(a, "could not determine pod from request data")
		}
		podName = eviction.Name
	}
	pod, err := p.cfg.Pods.Pods(a.Namespace).Get(podName)
	if apierrors.IsNotFound(err) {
		return err
	}
	if err != nil {
		return admission.NewForbidden(a, err)
	}
	if pod.Spec.NodeName != nodeName {
		return forbid(a, "node %s can only evict pods with spec.nodeName set to itself", nodeName)
	}
	return nil
}

func (p *Plugin) admitPVCStatus(nodeName string, a *admission.Attributes) error {
	if a.Operation != admission.Update {
		return forbid(a, "unexpected operation %q", a.Operation)
	}
	old, ok := a.OldObject.(*corev1.PersistentVolumeClaim)
	if !ok {
		return forbid(a, "unexpected type %T", a.OldObject)
	}
	pvc, ok := a.Object.(*corev1.PersistentVolumeClaim)
	if !ok {
		return forbid(a, "unexpected type %T", a.Object)
	}
	// What a kubelet may change: the capacity and the conditions, and
	// with RecoverVolumeExpansionFailure the allocated resources.
	old, pvc = old.DeepCopy(), pvc.DeepCopy()
	for _, c := range []*corev1.PersistentVolumeClaim{old, pvc} {
		c.ResourceVersion = ""
		c.ManagedFields = nil
		c.Status.Capacity = nil
		c.Status.Conditions = nil
		if p.cfg.Features.RecoverVolumeExpansionFailure {
			c.Status.AllocatedResourceStatuses = nil
			c.Status.AllocatedResources = nil
		}
	}
	if !equality.Semantic.DeepEqual(old, pvc) {
		return forbid(a, "node %q is not allowed to update fields other than status.quantity and status.conditions: %v", nodeName, diff.Diff(old, pvc))
	}
	return nil
}

func (p *Plugin) admitNode(nodeName string, a *admission.Attributes) error {
	if a.Name != nodeName {
		return forbid(a, "node %q is not allowed to modify node %q", nodeName, a.Name)
	}
	switch a.Operation {
	case admission.Create:
		node, ok := a.Object.(*corev1.Node)
		if !ok {
			return forbid(a, "unexpected type %T", a.Object)
		}
		if node.Spec.ConfigSource != nil {
			return forbid(a, "node %q is not allowed to create pods with a non-nil configSource", nodeName)
		}
		if bad := forbiddenLabels(modifiedLabels(node.Labels, nil)); len(bad) > 0 {
			return forbid(a, "node %q is not allowed to set the following labels: %s", nodeName, strings.Join(bad, ", "))
		}
	case admission.Update:
		node, ok := a.Object.(*corev1.Node)
		if !ok {
			return forbid(a, "unexpected type %T", a.Object)
		}
		old, ok := a.OldObject.(*corev1.Node)
		if !ok {
			return forbid(a, "unexpected type %T", a.Object)
		}
		if node.Spec.ConfigSource != nil && !equality.Semantic.DeepEqual(node.Spec.ConfigSource, old.Spec.ConfigSource) {
			return forbid(a, "node %q is not allowed to update configSource to a new non-nil configSource", nodeName)
		}
		if !equality.Semantic.DeepEqual(node.Spec.Taints, old.Spec.Taints) {
			return forbid(a, "node %q is not allowed to modify taints", nodeName)
		}
		if !equality.Semantic.DeepEqual(node.OwnerReferences, old.OwnerReferences) {
			return forbid(a, "node %q is not allowed to modify ownerReferences", nodeName)
		}
		if bad := forbiddenLabels(modifiedLabels(node.Labels, old.Labels)); len(bad) > 0 {
			return forbid(a, "is not allowed to modify labels: %s", strings.Join(bad, ", "))
		}
	}
	return nil
}

// modifiedLabels are the keys added, removed or changed between two
// label sets.
func modifiedLabels(x, y map[string]string) sets.Set[string] {
	out := sets.New[string]()
	for k, v := range x {
		if w, ok := y[k]; !ok || v != w {
			out.Insert(k)
		}
	}
	for k, v := range y {
		if w, ok := x[k]; !ok || v != w {
			out.Insert(k)
		}
	}
	return out
}

// kubeletLabels are the kubernetes.io labels a kubelet sets on its Node;
// kubeletLabelNamespaces are the label namespaces it owns (and their
// subdomains).
var (
	kubeletLabels = sets.New(
		corev1.LabelHostname, corev1.LabelTopologyZone, corev1.LabelTopologyRegion,
		corev1.LabelFailureDomainBetaZone, corev1.LabelFailureDomainBetaRegion,
		corev1.LabelInstanceType, corev1.LabelInstanceTypeStable,
		corev1.LabelOSStable, corev1.LabelArchStable,
		"beta.kubernetes.io/os", "beta.kubernetes.io/arch",
	)
	kubeletLabelNamespaces = []string{corev1.LabelNamespaceSuffixKubelet, corev1.LabelNamespaceSuffixNode}
)

func labelNamespace(key string) string {
	if prefix, _, ok := strings.Cut(key, "/"); ok {
		return prefix
	}
	return ""
}

// inDomain says whether a label namespace is domain or a subdomain of it.
func inDomain(ns, domain string) bool {
	return ns == domain || strings.HasSuffix(ns, "."+domain)
}

func isKubeletLabel(key string) bool {
	if kubeletLabels.Has(key) {
		return true
	}
	ns := labelNamespace(key)
	return slices.ContainsFunc(kubeletLabelNamespaces, func(d string) bool { return inDomain(ns, d) })
}

// forbiddenLabels are, sorted, the modified labels a kubelet may not set:
// those of node-restriction.kubernetes.io, and those of kubernetes.io and
// k8s.io that are not the kubelet's own.
func forbiddenLabels(modified sets.Set[string]) []string {
	var out []string
	for key := range modified {
		ns := labelNamespace(key)
		kube := inDomain(ns, "kubernetes.io") || inDomain(ns, "k8s.io")
		if inDomain(ns, corev1.LabelNamespaceNodeRestriction) || kube && !isKubeletLabel(key) {
			out = append(out, key)
		}
	}
	slices.Sort(out)
	return out
}

func (p *Plugin) admitLease(nodeName string, a *admission.Attributes) error {
	if a.Namespace != corev1.NamespaceNodeLease {
		return forbid(a, "can only access leases in the %q system namespace", corev1.NamespaceNodeLease)
	}
	name := a.Name
	if a.Operation == admission.Create {
		lease, ok := a.Object.(*coordinationv1.Lease)
		if !ok {
			return forbid(a, "unexpected type %T", a.Object)
		}
		name = lease.Name
	}
	if name != nodeName {
		return forbid(a, "can only access node lease with the same name as the requesting node")
	}
	return nil
}

func (p *Plugin) admitCSINode(nodeName string, a *admission.Attributes) error {
	name := a.Name
	if a.Operation == admission.Create {
		obj, err := meta.Accessor(a.Object)
		if err != nil {
			return forbid(a, "unable to access the object name")
		}
		name = obj.GetName()
	}
	if name != nodeName {
		return forbid(a, "can only access CSINode with the same name as the requesting node")
	}
	if a.Subresource != "status" {
		return nil
	}
	if !p.cfg.Features.CSIVolumeHealth {
		return forbid(a, "CSIVolumeHealth feature gate is disabled")
	}
	if a.Operation != admission.Update {
		return forbid(a, "unexpected operation %q", a.Operation)
	}
	old, ok := a.OldObject.(*storagev1.CSINode)
	if !ok {
		return forbid(a, "unexpected type %T", a.OldObject)
	}
	csiNode, ok := a.Object.(*storagev1.CSINode)
	if !ok {
		return forbid(a, "unexpected type %T", a.Object)
	}
	if !equality.Semantic.DeepEqual(old.Spec, csiNode.Spec) {
		return forbid(a, "node %q is not allowed to modify CSINode spec via status", nodeName)
	}
	return nil
}

func (p *Plugin) admitResourceSlice(nodeName string, a *admission.Attributes) error {
	var obj any
	var verb string
	switch a.Operation {
	case admission.Create:
		obj, verb = a.Object, "create"
	case admission.Delete:
		obj, verb = a.OldObject, "delete"
	default:
		return nil
	}
	slice, ok := obj.(*resourcev1.ResourceSlice)
	if !ok {
		return forbid(a, "unexpected type %T", obj)
	}
	if slice.Spec.NodeName == nil || *slice.Spec.NodeName != nodeName {
		return admission.NewForbidden(a, fmt.Errorf("can only %s ResourceSlice with the same NodeName as the requesting node", verb))
	}
	return nil
}

func (p *Plugin) admitCSR(nodeName string, a *admission.Attributes) error {
	if a.Operation != admission.Create {
		return nil
	}
	csr, ok := a.Object.(*certificatesv1.CertificateSigningRequest)
	if !ok {
		return forbid(a, "unexpected type %T", a.Object)
	}
	if csr.Spec.SignerName != certificatesv1.KubeletServingSignerName && csr.Spec.SignerName != certificatesv1.KubeAPIServerClientKubeletSignerName {
		return nil
	}
	req, err := parseCSR(csr.Spec.Request)
	if err != nil {
		return forbid(a, "unable to parse csr: %w", err)
	}
	if req.Subject.CommonName != "system:node:"+nodeName {
		return forbid(a, "can only create a node CSR with CN=system:node:%s", nodeName)
	}
	return nil
}

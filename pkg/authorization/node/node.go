// Package node is kube-apiserver's Node authorizer (--authorization-mode
// Node): it lets a kubelet, authenticated as system:node:<name> in group
// system:nodes, read what the pods bound to its node need and write what a
// kubelet writes, and nothing of other nodes.
//
// Which objects a node may read follows from a Graph of the API's
// objects, kept up to date by informers (AddPodHandlers and friends). The
// rest of a kubelet's permissions are the static rules of the bootstrap
// system:node ClusterRole (NodeRules), which the authorizer applies itself:
// since Kubernetes 1.8 nothing binds that role, the Node authorizer is how
// nodes get it.
//
// Everything the authorizer does not allow is NoOpinion, never Deny, so
// that a later mode (RBAC) may still allow it; the reason says why it did
// not, in kube-apiserver's words.
package node

import (
	"context"
	"errors"
	"fmt"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

const (
	// NodesGroup is the group of every kubelet.
	NodesGroup = "system:nodes"
	// NodeUserPrefix starts the user name of a kubelet: system:node:<name>.
	NodeUserPrefix = "system:node:"
	// nodeLeaseNamespace holds the leases kubelets heartbeat with.
	nodeLeaseNamespace = "kube-node-lease"
)

// Features are the feature gates of kube-apiserver that change the
// authorizer's answers, with 1.37's defaults in DefaultFeatures.
type Features struct {
	// KubeletServiceAccountTokenForCredentialProviders or
	// PodCertificateRequest let a node get the service accounts of its
	// pods.
	KubeletServiceAccountTokenForCredentialProviders bool
	// PodCertificateRequest lets a node create, get and list the pod
	// certificate requests of its pods.
	PodCertificateRequest bool
	// CSIVolumeHealth lets a node read and write its CSINode's status.
	CSIVolumeHealth bool
}

// DefaultFeatures are kube-apiserver 1.37's defaults (as the oracle
// answers).
func DefaultFeatures() Features {
	return Features{
		KubeletServiceAccountTokenForCredentialProviders: true,
		PodCertificateRequest:                            true,
		CSIVolumeHealth:                                  false,
	}
}

// Authorizer is the Node authorizer.
type Authorizer struct {
	graph    *Graph
	rules    []Rule
	features Features
}

// New returns the Node authorizer reading graph, applying rules to what
// the graph does not decide (NodeRules() in kapi).
func New(graph *Graph, rules []Rule, features Features) *Authorizer {
	return &Authorizer{graph: graph, rules: rules, features: features}
}

// fieldSelectorAttributes are attributes that carry the request's field
// selector, as kube-apiserver passes it to authorizers. A node may list
// and watch the pods (and resource slices, pod certificate requests) of
// its own node by selecting them with spec.nodeName.
type fieldSelectorAttributes interface {
	GetFieldSelector() (fields.Requirements, error)
}

// NodeName returns the node u is the kubelet of, and whether u is a node
// at all: a user named system:node:<name> in group system:nodes. A node
// user with an empty name is a node, of no node.
func NodeName(u user.Info) (string, bool) {
	if u == nil {
		return "", false
	}
	name, ok := strings.CutPrefix(u.GetName(), NodeUserPrefix)
	if !ok {
		return "", false
	}
	for _, g := range u.GetGroups() {
		if g == NodesGroup {
			return name, true
		}
	}
	return "", false
}

type decision struct {
	authorizer.Decision
	reason string
}

var (
	allow = decision{Decision: authorizer.DecisionAllow}
	pass  = decision{Decision: authorizer.DecisionNoOpinion}
)

func noOpinion(format string, args ...any) decision {
	return decision{authorizer.DecisionNoOpinion, fmt.Sprintf(format, args...)}
}

// Authorize implements authorizer.Authorizer.
func (a *Authorizer) Authorize(_ context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	d := a.decide(attrs)
	return d.Decision, d.reason, nil
}

func (a *Authorizer) decide(attrs authorizer.Attributes) decision {
	node, isNode := NodeName(attrs.GetUser())
	if !isNode {
		return pass
	}
	if node == "" {
		return noOpinion("unknown node for user %q", attrs.GetUser().GetName())
	}
	if attrs.IsResourceRequest() {
		switch attrs.GetAPIGroup() + "/" + attrs.GetResource() {
		case "/secrets":
			return a.readNamespaced(node, kindSecret, attrs)
		case "/configmaps":
			return a.readNamespaced(node, kindConfigMap, attrs)
		case "/persistentvolumeclaims":
			if attrs.GetSubresource() == "status" {
				return a.updateStatus(node, kindPVC, attrs)
			}
			return a.get(node, kindPVC, attrs)
		case "/persistentvolumes":
			return a.get(node, kindPV, attrs)
		case "resource.k8s.io/resourceclaims":
			return a.get(node, kindResourceClaim, attrs)
		case "storage.k8s.io/volumeattachments":
			return a.get(node, kindVolumeAttachment, attrs)
		case "/serviceaccounts":
			return a.serviceAccount(node, attrs)
		case "coordination.k8s.io/leases":
			return lease(node, attrs)
		case "storage.k8s.io/csinodes":
			return a.csiNode(node, attrs)
		case "resource.k8s.io/resourceslices":
			return a.resourceSlice(node, attrs)
		case "/nodes":
			return nodeObject(node, attrs)
		case "/pods":
			return a.pod(node, attrs)
		case "certificates.k8s.io/podcertificaterequests":
			if !a.features.PodCertificateRequest {
				return pass
			}
			return a.podCertificateRequest(node, attrs)
		}
	}
	if rulesAllow(a.rules, attrs) {
		return allow
	}
	return pass
}

// related allows attrs if the graph relates the named object to node.
func (a *Authorizer) related(node string, k kind, attrs authorizer.Attributes) decision {
	if attrs.GetName() == "" {
		return noOpinion("No Object name found")
	}
	if !a.graph.reaches(node, ref{k, attrs.GetNamespace(), attrs.GetName()}) {
		return noOpinion("no relationship found between node '%s' and this object", node)
	}
	return allow
}

// get allows only a get of a whole object related to node.
func (a *Authorizer) get(node string, k kind, attrs authorizer.Attributes) decision {
	if attrs.GetVerb() != "get" {
		return noOpinion("can only get individual resources of this type")
	}
	if attrs.GetSubresource() != "" {
		return noOpinion("cannot get subresource")
	}
	return a.related(node, k, attrs)
}

// readNamespaced allows get, list and watch of one namespaced object
// related to node.
func (a *Authorizer) readNamespaced(node string, k kind, attrs authorizer.Attributes) decision {
	switch attrs.GetVerb() {
	case "get", "list", "watch":
	default:
		return noOpinion("can only read resources of this type")
	}
	if attrs.GetSubresource() != "" {
		return noOpinion("cannot read subresource")
	}
	if attrs.GetNamespace() == "" {
		return noOpinion("can only read namespaced object of this type")
	}
	return a.related(node, k, attrs)
}

// updateStatus allows update and patch of the status of an object
// related to node.
func (a *Authorizer) updateStatus(node string, k kind, attrs authorizer.Attributes) decision {
	switch attrs.GetVerb() {
	case "update", "patch":
	default:
		return noOpinion("can only get/update/patch this type")
	}
	return a.related(node, k, attrs)
}

// serviceAccount allows a token for the service account of a pod of
// node, and (with the features) a get of that service account.
func (a *Authorizer) serviceAccount(node string, attrs authorizer.Attributes) decision {
	if attrs.GetVerb() == "get" && attrs.GetSubresource() == "" {
		if !a.features.KubeletServiceAccountTokenForCredentialProviders && !a.features.PodCertificateRequest {
			return noOpinion("not allowed to get service accounts")
		}
		return a.readNamespaced(node, kindServiceAccount, attrs)
	}
	if attrs.GetVerb() != "create" || attrs.GetName() == "" {
		return noOpinion("can only create tokens for individual service accounts")
	}
	if attrs.GetSubresource() != "token" {
		return noOpinion("can only create token subresource of serviceaccount")
	}
	return a.related(node, kindServiceAccount, attrs)
}

// lease allows a node its own heartbeat lease.
func lease(node string, attrs authorizer.Attributes) decision {
	verb := attrs.GetVerb()
	switch verb {
	case "get", "create", "update", "patch", "delete":
	default:
		return noOpinion("can only get, create, update, patch, or delete a node lease")
	}
	if attrs.GetNamespace() != nodeLeaseNamespace {
		return noOpinion("can only access leases in the %q system namespace", nodeLeaseNamespace)
	}
	// A create has no name yet: NodeRestriction admission checks it.
	if verb != "create" && attrs.GetName() != node {
		return noOpinion("can only access node lease with the same name as the requesting node")
	}
	return allow
}

// csiNode allows a node its own CSINode.
func (a *Authorizer) csiNode(node string, attrs authorizer.Attributes) decision {
	verb := attrs.GetVerb()
	switch attrs.GetSubresource() {
	case "":
		switch verb {
		case "get", "create", "update", "patch", "delete":
		default:
			return noOpinion("can only get, create, update, patch, or delete a CSINode")
		}
	case "status":
		if !a.features.CSIVolumeHealth {
			return noOpinion("CSINode status access requires CSIVolumeHealth feature")
		}
		switch verb {
		case "get", "update", "patch":
		default:
			return noOpinion("can only get, update, or patch CSINode status")
		}
	default:
		return noOpinion("cannot authorize CSINode subresources")
	}
	if verb != "create" && attrs.GetName() != node {
		return noOpinion("can only access CSINode with the same name as the requesting node")
	}
	return allow
}

// resourceSlice allows a node the resource slices of its node.
func (a *Authorizer) resourceSlice(node string, attrs authorizer.Attributes) decision {
	if attrs.GetSubresource() != "" {
		return noOpinion("cannot authorize ResourceSlice subresources")
	}
	switch attrs.GetVerb() {
	case "create":
		// NodeRestriction admission checks spec.nodeName.
		return allow
	case "get", "update", "patch", "delete":
		return a.related(node, kindResourceSlice, attrs)
	case "watch", "list", "deletecollection":
		if selectsNode(attrs, "spec.nodeName", node) {
			return allow
		}
		return noOpinion("can only list/watch/deletecollection resourceslices with nodeName field selector")
	default:
		return noOpinion("only the following verbs are allowed for a ResourceSlice: get, watch, list, create, update, patch, delete, deletecollection")
	}
}

// podCertificateRequest allows a node the certificate requests of its
// pods.
func (a *Authorizer) podCertificateRequest(node string, attrs authorizer.Attributes) decision {
	if attrs.GetSubresource() != "" {
		return noOpinion("nodes may not access the status subresource of PodCertificateRequests")
	}
	switch attrs.GetVerb() {
	case "create":
		return allow
	case "get":
		return a.related(node, kindPodCertificateRequest, attrs)
	case "list", "watch":
		if selectsNode(attrs, "spec.nodeName", node) {
			return allow
		}
		return noOpinion("can only list/watch podcertificaterequests with nodeName field selector")
	}
	return noOpinion("nodes may not %s podcertificaterequests", attrs.GetVerb())
}

// nodeObject allows a node to read its own Node, and to create and update
// Nodes (NodeRestriction admission keeps it to its own).
func nodeObject(node string, attrs authorizer.Attributes) decision {
	switch attrs.GetSubresource() {
	case "":
		switch attrs.GetVerb() {
		case "create", "update", "patch":
			return allow
		case "get", "list", "watch":
			// By name, not through the graph, so that a kubelet can
			// read its Node before creating it.
			switch attrs.GetName() {
			case node:
				return allow
			case "":
				return noOpinion("node '%s' cannot read all nodes, only its own Node object", node)
			default:
				return noOpinion("node '%s' cannot read '%s', only its own Node object", node, attrs.GetName())
			}
		}
	case "status":
		switch attrs.GetVerb() {
		case "update", "patch":
			return allow
		}
	}
	return pass
}

// pod allows a node to read its pods, create and delete mirror pods,
// write pod status and evict (NodeRestriction admission keeps the writes
// to its own pods).
func (a *Authorizer) pod(node string, attrs authorizer.Attributes) decision {
	switch attrs.GetSubresource() {
	case "":
		switch attrs.GetVerb() {
		case "get":
			return a.get(node, kindPod, attrs)
		case "list", "watch":
			if selectsNode(attrs, "spec.nodeName", node) {
				return allow
			}
			if attrs.GetName() != "" {
				return a.related(node, kindPod, attrs)
			}
			return noOpinion("can only list/watch pods with spec.nodeName field selector")
		case "create", "delete":
			return allow
		}
	case "status":
		switch attrs.GetVerb() {
		case "update", "patch":
			return allow
		}
	case "eviction":
		if attrs.GetVerb() == "create" {
			return allow
		}
	}
	return pass
}

// selectsNode reports whether the request's field selector requires
// field=node.
func selectsNode(attrs authorizer.Attributes, field, node string) bool {
	fa, ok := attrs.(fieldSelectorAttributes)
	if !ok {
		return false
	}
	reqs, _ := fa.GetFieldSelector()
	for _, r := range reqs {
		if r.Field == field && r.Operator == selection.Equals && r.Value == node {
			return true
		}
	}
	return false
}

// RulesFor implements authorizer.RuleResolver. A node's permissions
// depend on the graph and cannot be listed: for a node the answer is
// incomplete, with kube-apiserver's error; other users get nothing from
// this authorizer.
func (a *Authorizer) RulesFor(_ context.Context, u user.Info, _ string) ([]authorizationv1.ResourceRule, []authorizationv1.NonResourceRule, bool, error) {
	if _, isNode := NodeName(u); isNode {
		return nil, nil, true, errors.New("node authorizer does not support user rule resolution")
	}
	return nil, nil, false, nil
}

var (
	_ authorizer.Authorizer   = (*Authorizer)(nil)
	_ authorizer.RuleResolver = (*Authorizer)(nil)
)

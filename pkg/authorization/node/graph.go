package node

import (
	"sync"

	corev1 "k8s.io/api/core/v1"
)

// kind is the kind of object the graph relates to nodes.
type kind uint8

const (
	kindPod kind = iota
	kindSecret
	kindConfigMap
	kindServiceAccount
	kindPVC
	kindPV
	kindResourceClaim
	kindVolumeAttachment
	kindResourceSlice
	kindPodCertificateRequest
)

// ref names one object; cluster-scoped objects have no namespace.
type ref struct {
	kind      kind
	namespace string
	name      string
}

// podEdges is what one pod bound to a node relates to it.
type podEdges struct {
	node string
	refs []ref // secrets, configmaps, service account, PVCs, resource claims
}

// pvEdges is what one persistent volume relates to its claim: the PV
// is reachable from a node through its claim, and so are the secrets
// the kubelet uses to mount it.
type pvEdges struct {
	claim   ref
	secrets []ref
}

// Graph knows which objects a node may reach, as kube-apiserver's node
// authorizer does:
//
//	node <- pod                      (spec.nodeName)
//	node <- pod <- secret, configmap, serviceaccount, pvc, resourceclaim
//	node <- pod <- pvc <- pv <- secret   (secrets the kubelet mounts the PV with)
//	node <- volumeattachment, resourceslice, podcertificaterequest   (spec.nodeName)
//
// It does not hold the objects, only these edges, kept by counting: for
// each object a pod refers to, how many pods of each node refer to it.
// The Add and Delete methods are called by informer handlers (see
// AddPodHandlers and friends); they replace what was known of the object.
// Graph is safe for concurrent use.
type Graph struct {
	mu sync.RWMutex
	// pods are the pods bound to a node.
	pods map[ref]podEdges
	// podRefs[obj][node] is how many pods of node refer to obj.
	podRefs map[ref]map[string]int
	// pvs are the PVs bound to a claim.
	pvs map[string]pvEdges
	// pvsBySecret[secret] are the PVs mounted with secret.
	pvsBySecret map[ref]map[string]bool
	// direct maps volume attachments, resource slices and pod
	// certificate requests to their node.
	direct map[ref]string
}

// NewGraph returns an empty graph.
func NewGraph() *Graph {
	return &Graph{
		pods:        map[ref]podEdges{},
		podRefs:     map[ref]map[string]int{},
		pvs:         map[string]pvEdges{},
		pvsBySecret: map[ref]map[string]bool{},
		direct:      map[ref]string{},
	}
}

// AddPod records pod and what it refers to, replacing what was known of
// it. A pod not bound to a node relates nothing to anything; a mirror
// pod (a static pod's reflection) relates only itself to its node.
func (g *Graph) AddPod(pod *corev1.Pod) {
	key := ref{kindPod, pod.Namespace, pod.Name}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.deletePodLocked(key)
	if pod.Spec.NodeName == "" {
		return
	}
	edges := podEdges{node: pod.Spec.NodeName}
	if _, mirror := pod.Annotations[corev1.MirrorPodAnnotationKey]; !mirror {
		edges.refs = podReferences(pod)
	}
	g.pods[key] = edges
	for _, r := range edges.refs {
		byNode := g.podRefs[r]
		if byNode == nil {
			byNode = map[string]int{}
			g.podRefs[r] = byNode
		}
		byNode[edges.node]++
	}
}

// DeletePod forgets the pod namespace/name.
func (g *Graph) DeletePod(namespace, name string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.deletePodLocked(ref{kindPod, namespace, name})
}

func (g *Graph) deletePodLocked(key ref) {
	old, ok := g.pods[key]
	if !ok {
		return
	}
	delete(g.pods, key)
	for _, r := range old.refs {
		byNode := g.podRefs[r]
		if byNode[old.node]--; byNode[old.node] <= 0 {
			delete(byNode, old.node)
		}
		if len(byNode) == 0 {
			delete(g.podRefs, r)
		}
	}
}

// AddPV records the claim pv is bound to and the secrets the kubelet
// mounts it with, replacing what was known of it. An unbound PV relates
// nothing.
func (g *Graph) AddPV(pv *corev1.PersistentVolume) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.deletePVLocked(pv.Name)
	if pv.Spec.ClaimRef == nil {
		return
	}
	edges := pvEdges{
		claim:   ref{kindPVC, pv.Spec.ClaimRef.Namespace, pv.Spec.ClaimRef.Name},
		secrets: pvKubeletSecrets(pv),
	}
	g.pvs[pv.Name] = edges
	for _, s := range edges.secrets {
		if g.pvsBySecret[s] == nil {
			g.pvsBySecret[s] = map[string]bool{}
		}
		g.pvsBySecret[s][pv.Name] = true
	}
}

// DeletePV forgets the PV name.
func (g *Graph) DeletePV(name string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.deletePVLocked(name)
}

func (g *Graph) deletePVLocked(name string) {
	old, ok := g.pvs[name]
	if !ok {
		return
	}
	delete(g.pvs, name)
	for _, s := range old.secrets {
		delete(g.pvsBySecret[s], name)
		if len(g.pvsBySecret[s]) == 0 {
			delete(g.pvsBySecret, s)
		}
	}
}

// SetVolumeAttachment records the node of a volume attachment; an empty
// node forgets it.
func (g *Graph) SetVolumeAttachment(name, node string) {
	g.setDirect(ref{kindVolumeAttachment, "", name}, node)
}

// SetResourceSlice records the node of a resource slice; an empty node
// forgets it.
func (g *Graph) SetResourceSlice(name, node string) {
	g.setDirect(ref{kindResourceSlice, "", name}, node)
}

// SetPodCertificateRequest records the node of a pod certificate
// request; an empty node forgets it.
func (g *Graph) SetPodCertificateRequest(namespace, name, node string) {
	g.setDirect(ref{kindPodCertificateRequest, namespace, name}, node)
}

func (g *Graph) setDirect(r ref, node string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if node == "" {
		delete(g.direct, r)
		return
	}
	g.direct[r] = node
}

// reaches reports whether node may reach the object r.
func (g *Graph) reaches(node string, r ref) bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	switch r.kind {
	case kindPod:
		p, ok := g.pods[r]
		return ok && p.node == node
	case kindVolumeAttachment, kindResourceSlice, kindPodCertificateRequest:
		return g.direct[r] == node
	case kindPV:
		pv, ok := g.pvs[r.name]
		return ok && g.podRefs[pv.claim][node] > 0
	case kindSecret:
		if g.podRefs[r][node] > 0 {
			return true
		}
		for pv := range g.pvsBySecret[r] {
			if g.podRefs[g.pvs[pv].claim][node] > 0 {
				return true
			}
		}
		return false
	default:
		return g.podRefs[r][node] > 0
	}
}

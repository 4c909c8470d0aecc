package node

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

func nodeUser(name string) user.Info {
	return &user.DefaultInfo{Name: NodeUserPrefix + name, Groups: []string{NodesGroup, user.AllAuthenticated}}
}

func podOn(node, ns, name string, mutate ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.PodSpec{NodeName: node, ServiceAccountName: "sa-" + name,
			Containers: []corev1.Container{{Name: "c", Env: []corev1.EnvVar{{Name: "E", ValueFrom: &corev1.EnvVarSource{
				SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "env-" + name}}}}}}},
			Volumes: []corev1.Volume{
				{Name: "cm", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm-" + name}}}},
				{Name: "shared", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "shared"}}},
			}},
	}
	for _, m := range mutate {
		m(p)
	}
	return p
}

// may says whether node may do verb on resource ns/name (core group).
func may(t *testing.T, a *Authorizer, node, verb, resource, subresource, ns, name string) bool {
	t.Helper()
	d, _, err := a.Authorize(context.Background(), authorizer.AttributesRecord{
		User: nodeUser(node), Verb: verb, Resource: resource, Subresource: subresource,
		Namespace: ns, Name: name, ResourceRequest: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	return d == authorizer.DecisionAllow
}

func TestANodeReachesWhatItsPodsNeedAndNothingElse(t *testing.T) {
	g := NewGraph()
	a := New(g, NodeRules(), DefaultFeatures())
	g.AddPod(podOn("n1", "ns", "a"))
	g.AddPod(podOn("n2", "ns", "b"))

	for _, tc := range []struct {
		verb, resource, sub, name string
	}{
		{"get", "secrets", "", "env-a"},
		{"get", "secrets", "", "shared"},
		{"get", "configmaps", "", "cm-a"},
		{"create", "serviceaccounts", "token", "sa-a"},
		{"get", "pods", "", "a"},
	} {
		if !may(t, a, "n1", tc.verb, tc.resource, tc.sub, "ns", tc.name) {
			t.Errorf("n1 may not %s %s %s of its own pod", tc.verb, tc.resource, tc.name)
		}
	}
	for _, tc := range []struct {
		verb, resource, sub, ns, name string
	}{
		{"get", "secrets", "", "ns", "env-b"},
		{"get", "configmaps", "", "ns", "cm-b"},
		{"create", "serviceaccounts", "token", "ns", "sa-b"},
		{"get", "pods", "", "ns", "b"},
		{"get", "secrets", "", "other", "shared"}, // same name, other namespace
	} {
		if may(t, a, "n1", tc.verb, tc.resource, tc.sub, tc.ns, tc.name) {
			t.Errorf("n1 may %s %s %s/%s of another node's pod", tc.verb, tc.resource, tc.ns, tc.name)
		}
	}

	// A secret both nodes' pods use stays reachable from n2 when n1's pod
	// goes, and unreachable from n1.
	g.DeletePod("ns", "a")
	if may(t, a, "n1", "get", "secrets", "", "ns", "shared") || may(t, a, "n1", "get", "secrets", "", "ns", "env-a") {
		t.Error("n1 still reaches the secrets of its deleted pod")
	}
	if !may(t, a, "n2", "get", "secrets", "", "ns", "shared") {
		t.Error("n2 lost the secret its own pod uses")
	}

	// An update replaces what the pod referred to.
	g.AddPod(podOn("n2", "ns", "b", func(p *corev1.Pod) { p.Spec.Volumes = nil }))
	if may(t, a, "n2", "get", "configmaps", "", "ns", "cm-b") {
		t.Error("n2 reaches a configmap its pod no longer uses")
	}
	if !may(t, a, "n2", "get", "secrets", "", "ns", "env-b") {
		t.Error("n2 lost the secret its pod still uses")
	}
	if len(g.pods) != 1 || len(g.podRefs) != 2 { // sa-b, env-b
		t.Errorf("graph holds %d pods and %d references after deletions, want 1 and 2: %v", len(g.pods), len(g.podRefs), g.podRefs)
	}
}

func TestUnboundAndMirrorPods(t *testing.T) {
	g := NewGraph()
	a := New(g, NodeRules(), DefaultFeatures())
	g.AddPod(podOn("", "ns", "pending"))
	g.AddPod(podOn("n1", "ns", "static", func(p *corev1.Pod) {
		p.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "hash"}
	}))
	if may(t, a, "n1", "get", "secrets", "", "ns", "env-pending") || may(t, a, "n1", "get", "pods", "", "ns", "pending") {
		t.Error("a pod not bound to a node relates to n1")
	}
	if !may(t, a, "n1", "get", "pods", "", "ns", "static") {
		t.Error("n1 may not get its mirror pod")
	}
	if may(t, a, "n1", "get", "secrets", "", "ns", "env-static") || may(t, a, "n1", "create", "serviceaccounts", "token", "ns", "sa-static") {
		t.Error("a mirror pod's references reach n1")
	}
}

func TestVolumesThroughClaims(t *testing.T) {
	g := NewGraph()
	a := New(g, NodeRules(), DefaultFeatures())
	g.AddPod(podOn("n1", "ns", "p", func(p *corev1.Pod) {
		p.Spec.Volumes = append(p.Spec.Volumes,
			corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "claim"}}},
			corev1.Volume{Name: "scratch", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{}}})
	}))
	g.AddPV(&corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv"}, Spec: corev1.PersistentVolumeSpec{
		ClaimRef: &corev1.ObjectReference{Namespace: "ns", Name: "claim"},
		PersistentVolumeSource: corev1.PersistentVolumeSource{ISCSI: &corev1.ISCSIPersistentVolumeSource{
			SecretRef: &corev1.SecretReference{Name: "chap"}}}, // in the claim's namespace
	}})
	for _, c := range []struct{ resource, ns, name string }{
		{"persistentvolumeclaims", "ns", "claim"},
		{"persistentvolumeclaims", "ns", "p-scratch"},
		{"persistentvolumes", "", "pv"},
		{"secrets", "ns", "chap"},
	} {
		if !may(t, a, "n1", "get", c.resource, "", c.ns, c.name) {
			t.Errorf("n1 may not get %s %s/%s", c.resource, c.ns, c.name)
		}
	}
	g.DeletePV("pv")
	if may(t, a, "n1", "get", "secrets", "", "ns", "chap") || may(t, a, "n1", "get", "persistentvolumes", "", "", "pv") {
		t.Error("n1 reaches a deleted PV or its secret")
	}
	g.SetVolumeAttachment("va", "n1")
	d, _, _ := a.Authorize(context.Background(), authorizer.AttributesRecord{User: nodeUser("n1"), Verb: "get", APIGroup: "storage.k8s.io", Resource: "volumeattachments", Name: "va", ResourceRequest: true})
	if d != authorizer.DecisionAllow {
		t.Error("n1 may not get its volume attachment")
	}
	g.SetVolumeAttachment("va", "")
	d, _, _ = a.Authorize(context.Background(), authorizer.AttributesRecord{User: nodeUser("n1"), Verb: "get", APIGroup: "storage.k8s.io", Resource: "volumeattachments", Name: "va", ResourceRequest: true})
	if d == authorizer.DecisionAllow {
		t.Error("n1 may get a deleted volume attachment")
	}
}

// TestNodeRulesAreTheBootstrapRole: the static rules are those of the
// system:node ClusterRole kube-apiserver 1.37.1 serves.
func TestNodeRulesAreTheBootstrapRole(t *testing.T) {
	data, err := os.ReadFile("../rbac/testdata/kube-apiserver-policy.json")
	if err != nil {
		t.Fatal(err)
	}
	var policy struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(data, &policy); err != nil {
		t.Fatal(err)
	}
	for _, raw := range policy.Items {
		var role rbacv1.ClusterRole
		if err := json.Unmarshal(raw, &role); err != nil {
			t.Fatal(err)
		}
		if role.Kind == "ClusterRole" && role.Name == "system:node" {
			if diff := cmp.Diff(role.Rules, NodeRules()); diff != "" {
				t.Errorf("NodeRules differ from kube-apiserver's system:node (-want +got):\n%s", diff)
			}
			return
		}
	}
	t.Fatal("the recorded policy has no system:node ClusterRole")
}

func TestRulesForNodesAreIncomplete(t *testing.T) {
	a := New(NewGraph(), NodeRules(), DefaultFeatures())
	_, _, incomplete, err := a.RulesFor(context.Background(), nodeUser("n1"), "ns")
	if !incomplete || err == nil || err.Error() != "node authorizer does not support user rule resolution" {
		t.Errorf("node: incomplete=%v err=%v", incomplete, err)
	}
	rr, nrr, incomplete, err := a.RulesFor(context.Background(), &user.DefaultInfo{Name: "alice"}, "ns")
	if rr != nil || nrr != nil || incomplete || err != nil {
		t.Errorf("non-node: %v %v %v %v", rr, nrr, incomplete, err)
	}
}

package noderestriction

import (
	"context"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	corelisters "k8s.io/client-go/listers/core/v1"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

func indexer(objs ...runtime.Object) cache.Indexer {
	i := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for _, o := range objs {
		_ = i.Add(o)
	}
	return i
}

var node1 = &user.DefaultInfo{Name: "system:node:n1", Groups: []string{"system:nodes", "system:authenticated"}}

// Only users named system:node:<name> in system:nodes are kubelets.
func TestNodeIdentity(t *testing.T) {
	tests := []struct {
		user   user.Info
		name   string
		isNode bool
	}{
		{node1, "n1", true},
		{&user.DefaultInfo{Name: "system:node:n1"}, "", false},
		{&user.DefaultInfo{Name: "alice", Groups: []string{"system:nodes"}}, "", false},
		{&user.DefaultInfo{Name: "system:node:", Groups: []string{"system:nodes"}}, "", true},
		{nil, "", false},
	}
	for _, tc := range tests {
		name, isNode := NodeIdentity(tc.user)
		if name != tc.name || isNode != tc.isNode {
			t.Errorf("NodeIdentity(%v) = %q, %v; want %q, %v", tc.user, name, isNode, tc.name, tc.isNode)
		}
	}
}

// The labels a kubelet may not set: node-restriction.kubernetes.io ones
// always, kubernetes.io and k8s.io ones unless the kubelet's own.
func TestForbiddenLabels(t *testing.T) {
	allowed := []string{"kubernetes.io/hostname", "kubernetes.io/os", "beta.kubernetes.io/arch", "topology.kubernetes.io/zone",
		"node.kubernetes.io/instance-type", "kubelet.kubernetes.io/x", "a.kubelet.kubernetes.io/x", "node.kubernetes.io/x",
		"b.node.kubernetes.io/x", "example.com/x", "plain", "failure-domain.beta.kubernetes.io/region"}
	forbidden := []string{"node-role.kubernetes.io/worker", "example.k8s.io/x", "k8s.io/x", "kubernetes.io/other",
		"node-restriction.kubernetes.io/x", "a.node-restriction.kubernetes.io/x"}
	for _, l := range allowed {
		if bad := forbiddenLabels(modifiedLabels(map[string]string{l: "v"}, nil)); len(bad) != 0 {
			t.Errorf("label %s is refused", l)
		}
	}
	for _, l := range forbidden {
		if bad := forbiddenLabels(modifiedLabels(map[string]string{l: "v"}, nil)); len(bad) != 1 {
			t.Errorf("label %s is allowed", l)
		}
	}
	if got := modifiedLabels(map[string]string{"a": "1", "b": "2"}, map[string]string{"a": "1", "b": "3", "c": "4"}); len(got) != 2 || !got.Has("b") || !got.Has("c") {
		t.Errorf("modified labels = %v, want b and c", got)
	}
}

// A mirror pod refers to no API object; the first kind found is named, in
// kube-apiserver's words.
func TestAPIObjectReference(t *testing.T) {
	vol := func(src corev1.VolumeSource) corev1.PodSpec {
		return corev1.PodSpec{Volumes: []corev1.Volume{{Name: "v", VolumeSource: src}}}
	}
	tests := []struct {
		name string
		spec corev1.PodSpec
		want string
		err  string
	}{
		{name: "none", spec: vol(corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/"}})},
		{name: "service account", spec: corev1.PodSpec{ServiceAccountName: "sa"}, want: "serviceaccounts"},
		{name: "pull secret", spec: corev1.PodSpec{ImagePullSecrets: []corev1.LocalObjectReference{{Name: "s"}}}, want: "secrets"},
		{name: "env secret", spec: corev1.PodSpec{InitContainers: []corev1.Container{{Env: []corev1.EnvVar{{ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "s"}}}}}}}}, want: "secrets"},
		{name: "env configmap", spec: corev1.PodSpec{Containers: []corev1.Container{{EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "c"}}}}}}}, want: "configmaps"},
		{name: "claims", spec: corev1.PodSpec{ResourceClaims: []corev1.PodResourceClaim{{Name: "c"}}}, want: "resourceclaims"},
		{name: "secret volume", spec: vol(corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s"}}), want: "secrets"},
		{name: "secret volume without a name", spec: vol(corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{}}), want: "secrets (via secret volumes)"},
		{name: "csi", spec: vol(corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{Driver: "d"}}), want: "csidrivers (via CSI volumes)"},
		{name: "pvc", spec: vol(corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "c"}}), want: "persistentvolumeclaims"},
		{name: "projected token", spec: vol(corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
			{DownwardAPI: &corev1.DownwardAPIProjection{}}, {ServiceAccountToken: &corev1.ServiceAccountTokenProjection{}}}}}), want: "serviceaccounts (via projected volumes)"},
		{name: "projected nothing", spec: vol(corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{{}}}}), err: `unknown source for projected volume "v"`},
		{name: "no source", spec: vol(corev1.VolumeSource{}), err: `unknown volume type for volume  "v"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := apiObjectReference(&corev1.Pod{Spec: tc.spec})
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// A kubelet's mirror pod passes once every check does, the node's UID
// included.
func TestMirrorPod(t *testing.T) {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", UID: "node-uid"}}
	p := New(Config{Nodes: corelisters.NewNodeLister(indexer(node))})
	yes := true
	pod := func(uid types.UID, volumes ...corev1.Volume) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "m", Namespace: "ns", Annotations: map[string]string{corev1.MirrorPodAnnotationKey: "x"},
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: "n1", UID: uid, Controller: &yes}}},
			Spec: corev1.PodSpec{NodeName: "n1", Volumes: volumes},
		}
	}
	tests := []struct {
		name string
		pod  *corev1.Pod
		want string
	}{
		{name: "good", pod: pod("node-uid")},
		{name: "uid mismatch", pod: pod("other"), want: `pods "m" is forbidden: node n1 UID mismatch: expected other got node-uid`},
		{name: "secret", pod: pod("node-uid", corev1.Volume{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s"}}}),
			want: `pods "m" is forbidden: node "n1" can not create pods that reference secrets`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := &admission.Attributes{Namespace: "ns", Resource: corev1.SchemeGroupVersion.WithResource("pods"), Operation: admission.Create, Object: tc.pod, User: node1}
			err := p.Admit(context.Background(), a)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || err.Error() != tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}

// A kubelet's token for its pod must be for an audience the pod uses, or
// one the authorizer grants it.
func TestTokenAudience(t *testing.T) {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "pod-uid"},
		Spec: corev1.PodSpec{NodeName: "n1", Volumes: []corev1.Volume{
			{Name: "t", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
				{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Audience: "vault"}}}}}},
			{Name: "c", VolumeSource: corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{Driver: "secrets.csi"}}},
		}},
	}
	driver := &storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{Name: "secrets.csi"}, Spec: storagev1.CSIDriverSpec{TokenRequests: []storagev1.TokenRequest{{Audience: "csi-aud"}}}}
	granted := authorizer.AuthorizerFunc(func(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
		if a.GetVerb() == "request-serviceaccounts-token-audience" && a.GetResource() == "granted" && a.GetName() == "sa" && a.GetNamespace() == "ns" {
			return authorizer.DecisionAllow, "", nil
		}
		return authorizer.DecisionNoOpinion, "", nil
	})
	p := New(Config{
		Pods:       corelisters.NewPodLister(indexer(pod)),
		CSIDrivers: storagelisters.NewCSIDriverLister(indexer(driver)),
		Authorizer: granted,
		Features:   Features{ServiceAccountNodeAudienceRestriction: true},
	})
	tests := []struct {
		audiences []string
		want      string
	}{
		{audiences: []string{"vault"}},
		{audiences: []string{"csi-aud"}},
		{audiences: []string{"granted"}},
		{audiences: []string{"other"}, want: `serviceaccounts "sa" is forbidden: system:node:n1 is not authorized to request tokens for audience "other"`},
		{audiences: nil, want: `serviceaccounts "sa" is forbidden: system:node:n1 is not authorized to request tokens for audience ""`},
		{audiences: []string{"a", "b"}, want: `serviceaccounts "sa" is forbidden: node may only request 0 or 1 audiences`},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.audiences, ","), func(t *testing.T) {
			tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{Audiences: tc.audiences,
				BoundObjectRef: &authenticationv1.BoundObjectReference{APIVersion: "v1", Kind: "Pod", Name: "p", UID: "pod-uid"}}}
			a := &admission.Attributes{Name: "sa", Namespace: "ns", Resource: corev1.SchemeGroupVersion.WithResource("serviceaccounts"),
				Subresource: "token", Operation: admission.Create, Object: tr, User: node1}
			err := p.Admit(context.Background(), a)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || err.Error() != tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}

// A kubelet may change only the capacity and conditions of a claim's
// status.
func TestPVCStatus(t *testing.T) {
	p := New(Config{Features: Features{RecoverVolumeExpansionFailure: true}})
	old := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns", ResourceVersion: "1"}}
	ok := old.DeepCopy()
	ok.ResourceVersion = "2"
	ok.Status.Conditions = []corev1.PersistentVolumeClaimCondition{{Type: corev1.PersistentVolumeClaimResizing}}
	bad := old.DeepCopy()
	bad.Status.Phase = corev1.ClaimBound
	for _, tc := range []struct {
		obj    *corev1.PersistentVolumeClaim
		prefix string
	}{
		{ok, ""},
		{bad, `persistentvolumeclaims "c" is forbidden: node "n1" is not allowed to update fields other than status.quantity and status.conditions: `},
	} {
		a := &admission.Attributes{Name: "c", Namespace: "ns", Resource: corev1.SchemeGroupVersion.WithResource("persistentvolumeclaims"),
			Subresource: "status", Operation: admission.Update, Object: tc.obj, OldObject: old, User: node1}
		err := p.Admit(context.Background(), a)
		if tc.prefix == "" && err != nil || tc.prefix != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.prefix)) {
			t.Errorf("got %v, want %q...", err, tc.prefix)
		}
	}
}

// Users that are not kubelets are not the plugin's concern, and a node
// user without a name is refused.
func TestNotNodes(t *testing.T) {
	p := New(Config{})
	a := &admission.Attributes{Name: "other", Resource: corev1.SchemeGroupVersion.WithResource("nodes"), Operation: admission.Update,
		Object: &corev1.Node{}, OldObject: &corev1.Node{}, User: &user.DefaultInfo{Name: "alice"}}
	if err := p.Admit(context.Background(), a); err != nil {
		t.Errorf("a user: %v", err)
	}
	a.User = &user.DefaultInfo{Name: "system:node:", Groups: []string{"system:nodes"}}
	if err := p.Admit(context.Background(), a); err == nil || err.Error() != `nodes "other" is forbidden: could not determine node from user "system:node:"` {
		t.Errorf("a nameless node: %v", err)
	}
}

package serviceaccount

import (
	"context"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/pkg/admission"
)

// server stands for the API server's service accounts, counting reads.
type server struct {
	accounts map[string]*corev1.ServiceAccount
	reads    map[string]int
}

func (s *server) Get(_ context.Context, namespace, name string) (*corev1.ServiceAccount, error) {
	s.reads[name]++
	if sa, ok := s.accounts[namespace+"/"+name]; ok {
		return sa, nil
	}
	return nil, apierrors.NewNotFound(corev1.Resource("serviceaccounts"), name)
}

func newPlugin(t *testing.T, cached []*corev1.ServiceAccount, live ...*corev1.ServiceAccount) (*Plugin, *server) {
	t.Helper()
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for _, sa := range cached {
		if err := indexer.Add(sa); err != nil {
			t.Fatal(err)
		}
	}
	s := &server{accounts: map[string]*corev1.ServiceAccount{}, reads: map[string]int{}}
	for _, sa := range live {
		s.accounts[sa.Namespace+"/"+sa.Name] = sa
	}
	p := New(Config{
		Lister:         corelisters.NewServiceAccountLister(indexer),
		HasSynced:      func() bool { return true },
		Live:           s,
		GenerateSuffix: func() string { return "abcde" },
		RetryInterval:  1,
	})
	return p, s
}

func account(name string, mutate ...func(*corev1.ServiceAccount)) *corev1.ServiceAccount {
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: name}}
	for _, m := range mutate {
		m(sa)
	}
	return sa
}

func createPod(pod *corev1.Pod) *admission.Attributes {
	pod.Namespace = "team"
	return &admission.Attributes{
		Name: pod.Name, Namespace: "team",
		Resource:  corev1.SchemeGroupVersion.WithResource("pods"),
		Kind:      corev1.SchemeGroupVersion.WithKind("Pod"),
		Operation: admission.Create,
		Object:    pod,
	}
}

func podWith(spec corev1.PodSpec) *corev1.Pod {
	if spec.Containers == nil {
		spec.Containers = []corev1.Container{{Name: "app", Image: "nginx"}}
	}
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: spec}
}

// The token volume is kube's: a bound token of 3607 seconds, the
// cluster's CA and the namespace, mode 0644, mounted read-only in every
// init and regular container under the same name.
func TestTokenVolumeShape(t *testing.T) {
	p, _ := newPlugin(t, []*corev1.ServiceAccount{account("default")})
	pod := podWith(corev1.PodSpec{InitContainers: []corev1.Container{{Name: "init"}}})
	if err := p.Admit(context.Background(), createPod(pod)); err != nil {
		t.Fatal(err)
	}
	want := corev1.Volume{Name: "kube-api-access-abcde", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		DefaultMode: ptr.To[int32](0o644),
		Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: ptr.To[int64](3607)}},
			{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"}, Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
			{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "namespace", FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
		},
	}}}
	if len(pod.Spec.Volumes) != 1 || !reflect.DeepEqual(pod.Spec.Volumes[0], want) {
		t.Errorf("volumes = %+v", pod.Spec.Volumes)
	}
	mount := []corev1.VolumeMount{{Name: "kube-api-access-abcde", ReadOnly: true, MountPath: "/var/run/secrets/kubernetes.io/serviceaccount"}}
	for _, c := range append(pod.Spec.InitContainers, pod.Spec.Containers...) {
		if !reflect.DeepEqual(c.VolumeMounts, mount) {
			t.Errorf("container %s mounts %+v", c.Name, c.VolumeMounts)
		}
	}
	if pod.Spec.ServiceAccountName != "default" {
		t.Errorf("serviceAccountName = %q", pod.Spec.ServiceAccountName)
	}
}

// Whether the token is mounted: the pod's choice wins over the account's,
// and the account's over the default, which is yes.
func TestAutomountPrecedence(t *testing.T) {
	for _, tc := range []struct {
		name       string
		pod, sa    *bool
		wantVolume bool
	}{
		{"neither says", nil, nil, true},
		{"the account says no", nil, ptr.To(false), false},
		{"the pod says yes over the account's no", ptr.To(true), ptr.To(false), true},
		{"the pod says no over the account's yes", ptr.To(false), ptr.To(true), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := newPlugin(t, []*corev1.ServiceAccount{account("default", func(sa *corev1.ServiceAccount) { sa.AutomountServiceAccountToken = tc.sa })})
			pod := podWith(corev1.PodSpec{AutomountServiceAccountToken: tc.pod})
			if err := p.Admit(context.Background(), createPod(pod)); err != nil {
				t.Fatal(err)
			}
			if got := len(pod.Spec.Volumes) == 1; got != tc.wantVolume {
				t.Errorf("token volume added: %v, want %v", got, tc.wantVolume)
			}
		})
	}
}

// A pod's own kube-api-access- volume is mounted instead of a new one,
// and a container already mounting something at the token's path is
// left alone.
func TestExistingVolumeAndMountsAreKept(t *testing.T) {
	p, _ := newPlugin(t, []*corev1.ServiceAccount{account("default")})
	pod := podWith(corev1.PodSpec{
		Containers: []corev1.Container{
			{Name: "a"},
			{Name: "b", VolumeMounts: []corev1.VolumeMount{{Name: "own", MountPath: TokenMountPath}}},
		},
		Volumes: []corev1.Volume{{Name: "own"}, {Name: "kube-api-access-mine"}},
	})
	if err := p.Admit(context.Background(), createPod(pod)); err != nil {
		t.Fatal(err)
	}
	if len(pod.Spec.Volumes) != 2 {
		t.Errorf("volumes = %+v", pod.Spec.Volumes)
	}
	if m := pod.Spec.Containers[0].VolumeMounts; len(m) != 1 || m[0].Name != "kube-api-access-mine" {
		t.Errorf("container a mounts %+v", m)
	}
	if m := pod.Spec.Containers[1].VolumeMounts; len(m) != 1 || m[0].Name != "own" {
		t.Errorf("container b mounts %+v", m)
	}
}

// The account's imagePullSecrets go to a pod that has none, and only
// then.
func TestImagePullSecretsAreCopiedToPodsWithout(t *testing.T) {
	sa := account("default", func(sa *corev1.ServiceAccount) {
		sa.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "registry"}}
	})
	p, _ := newPlugin(t, []*corev1.ServiceAccount{sa})
	without := podWith(corev1.PodSpec{})
	with := podWith(corev1.PodSpec{ImagePullSecrets: []corev1.LocalObjectReference{{Name: "mine"}}})
	for _, pod := range []*corev1.Pod{without, with} {
		if err := p.Admit(context.Background(), createPod(pod)); err != nil {
			t.Fatal(err)
		}
	}
	if got := without.Spec.ImagePullSecrets; len(got) != 1 || got[0].Name != "registry" {
		t.Errorf("pod without: %+v", got)
	}
	if got := with.Spec.ImagePullSecrets; len(got) != 1 || got[0].Name != "mine" {
		t.Errorf("pod with its own: %+v", got)
	}
}

// An account the cache does not have is read from the server: ten times
// for "default" (kube's controller manager may be creating it), once for
// another; found there, the pod is admitted.
func TestMissingAccountsAreReadFromTheServer(t *testing.T) {
	p, s := newPlugin(t, nil, account("fresh"))
	err := p.Admit(context.Background(), createPod(podWith(corev1.PodSpec{})))
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `error looking up service account team/default: serviceaccount "default" not found`) {
		t.Errorf("pod of a missing default account: %v", err)
	}
	if s.reads["default"] != 10 {
		t.Errorf("%d reads of default, want 10", s.reads["default"])
	}
	if err := p.Admit(context.Background(), createPod(podWith(corev1.PodSpec{ServiceAccountName: "gone"}))); !apierrors.IsForbidden(err) {
		t.Errorf("pod of a missing account: %v", err)
	}
	if s.reads["gone"] != 1 {
		t.Errorf("%d reads of gone, want 1", s.reads["gone"])
	}
	if err := p.Admit(context.Background(), createPod(podWith(corev1.PodSpec{ServiceAccountName: "fresh"}))); err != nil {
		t.Errorf("pod of an account only the server has: %v", err)
	}
}

// What the plugin refuses, with kube-apiserver's messages (the same as
// the admission corpus records).
func TestRefusals(t *testing.T) {
	strict := account("strict", func(sa *corev1.ServiceAccount) {
		sa.Annotations = map[string]string{EnforceMountableSecretsAnnotation: "true"}
		sa.Secrets = []corev1.ObjectReference{{Name: "allowed"}}
	})
	mirror := func(spec corev1.PodSpec) *corev1.Pod {
		pod := podWith(spec)
		pod.Annotations = map[string]string{"kubernetes.io/config.mirror": "x"}
		return pod
	}
	for _, tc := range []struct {
		name string
		pod  *corev1.Pod
		want string
	}{
		{"mirror pod naming an account", mirror(corev1.PodSpec{ServiceAccountName: "default"}), "a mirror pod may not reference service accounts"},
		{"mirror pod pulling with a secret", mirror(corev1.PodSpec{ImagePullSecrets: []corev1.LocalObjectReference{{Name: "s"}}}), "a mirror pod may not reference secrets"},
		{"mirror pod projecting a token", mirror(corev1.PodSpec{Volumes: []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "t"}}}}}}}}), "a mirror pod may not use ServiceAccountToken volume projections"},
		{"secret volume not listed", podWith(corev1.PodSpec{ServiceAccountName: "strict", Volumes: []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "other"}}}}}), `volume with secret.secretName="other" is not allowed because service account strict does not reference that secret`},
		{"init container envFrom not listed", podWith(corev1.PodSpec{ServiceAccountName: "strict", InitContainers: []corev1.Container{{Name: "i", EnvFrom: []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "other"}}}}}}}), `init container i with envFrom referencing secret.secretName="other" is not allowed because service account strict does not reference that secret`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := newPlugin(t, []*corev1.ServiceAccount{account("default"), strict})
			err := p.Admit(context.Background(), createPod(tc.pod))
			if !apierrors.IsForbidden(err) || !strings.HasSuffix(err.Error(), "is forbidden: "+tc.want) {
				t.Errorf("got %v, want a Forbidden ending %q", err, tc.want)
			}
		})
	}
}

// A mirror pod is left as it is: no account, no token.
func TestMirrorPodsAreNotChanged(t *testing.T) {
	p, _ := newPlugin(t, []*corev1.ServiceAccount{account("default")})
	pod := podWith(corev1.PodSpec{NodeName: "n"})
	pod.Annotations = map[string]string{"kubernetes.io/config.mirror": "x"}
	before := pod.DeepCopy()
	if err := p.Admit(context.Background(), createPod(pod)); err != nil {
		t.Fatal(err)
	}
	before.Namespace = pod.Namespace
	if !reflect.DeepEqual(pod, before) {
		t.Errorf("mirror pod changed:\n%+v\nwas\n%+v", pod, before)
	}
}

package core_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
)

// assertErrors compares errors by their full text: field path, type, bad
// value and detail, which is what clients see.
func assertErrors(t *testing.T, errs field.ErrorList, want []string) {
	t.Helper()
	var got []string
	for _, err := range errs {
		got = append(got, err.Error())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors differ (-want +got):\n%s", diff)
	}
}

func ptr[T any](v T) *T { return &v }

func meta(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: "default", ResourceVersion: "1"}
}

func TestValidateConfigMap(t *testing.T) {
	tests := []struct {
		name string
		cm   v1.ConfigMap
		want []string
	}{
		{name: "valid", cm: v1.ConfigMap{ObjectMeta: meta("settings"), Data: map[string]string{"app.conf": "x"}, BinaryData: map[string][]byte{"logo.png": {1}}}},
		{
			name: "keys become file names",
			cm:   v1.ConfigMap{ObjectMeta: meta("settings"), Data: map[string]string{"a/b": "x"}},
			want: []string{`data[a/b]: Invalid value: "a/b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`},
		},
		{
			name: "a key in both data and binaryData",
			cm:   v1.ConfigMap{ObjectMeta: meta("settings"), Data: map[string]string{"k": "x"}, BinaryData: map[string][]byte{"k": {1}}},
			want: []string{`data[k]: Invalid value: "k": duplicate of key present in binaryData`},
		},
		{
			name: "the size limit counts data and binaryData together",
			cm: v1.ConfigMap{
				ObjectMeta: meta("settings"),
				Data:       map[string]string{"a": strings.Repeat("x", v1.MaxSecretSize/2)},
				BinaryData: map[string][]byte{"b": make([]byte, v1.MaxSecretSize/2+1)},
			},
			want: []string{"[]: Too long: may not be more than 1048576 bytes"},
		},
		{
			name: "namespace is required",
			cm:   v1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings"}},
			want: []string{"metadata.namespace: Required value"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assertErrors(t, core.ValidateConfigMap(&tc.cm), tc.want)
		})
	}
}

func TestValidateImmutableConfigMapAndSecretUpdates(t *testing.T) {
	const forbidden = "Forbidden: field is immutable when `immutable` is set"
	tests := []struct {
		name    string
		modify  func(data map[string]string, immutable **bool)
		mutable bool
		want    []string
	}{
		{name: "a mutable object changes freely", mutable: true, modify: func(d map[string]string, _ **bool) { d["k"] = "new" }},
		{name: "an immutable object without changes", modify: func(map[string]string, **bool) {}},
		{
			name:   "an immutable object keeps its data",
			modify: func(d map[string]string, _ **bool) { d["k"] = "new" },
			want:   []string{"data: " + forbidden},
		},
		{
			name:   "an immutable object stays immutable",
			modify: func(_ map[string]string, immutable **bool) { *immutable = ptr(false) },
			want:   []string{"immutable: " + forbidden},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			immutable := ptr(!tc.mutable)
			oldCM := &v1.ConfigMap{ObjectMeta: meta("cm"), Data: map[string]string{"k": "v"}, Immutable: immutable}
			newCM := oldCM.DeepCopy()
			tc.modify(newCM.Data, &newCM.Immutable)
			assertErrors(t, core.ValidateConfigMapUpdate(newCM, oldCM), tc.want)

			oldSecret := &v1.Secret{ObjectMeta: meta("s"), Data: map[string][]byte{"k": []byte("v")}, Type: v1.SecretTypeOpaque, Immutable: immutable}
			newSecret := oldSecret.DeepCopy()
			data := map[string]string{"k": "v"}
			tc.modify(data, &newSecret.Immutable)
			newSecret.Data = map[string][]byte{"k": []byte(data["k"])}
			assertErrors(t, core.ValidateSecretUpdate(newSecret, oldSecret), tc.want)
		})
	}
}

func TestValidateSecret(t *testing.T) {
	secret := func(secretType v1.SecretType, data map[string]string) *v1.Secret {
		s := &v1.Secret{ObjectMeta: meta("s"), Type: secretType, Data: map[string][]byte{}}
		for k, v := range data {
			s.Data[k] = []byte(v)
		}
		return s
	}
	tests := []struct {
		name   string
		secret *v1.Secret
		want   []string
	}{
		{name: "opaque", secret: secret(v1.SecretTypeOpaque, map[string]string{"anything": "goes"})},
		{name: "unknown types are free-form", secret: secret("example.com/custom", nil)},
		{
			name:   "service account token names its account",
			secret: secret(v1.SecretTypeServiceAccountToken, nil),
			want:   []string{"metadata.annotations[kubernetes.io/service-account.name]: Required value"},
		},
		{
			name:   "docker config must be present",
			secret: secret(v1.SecretTypeDockerConfigJson, nil),
			want:   []string{"data[.dockerconfigjson]: Required value"},
		},
		{
			name:   "docker config must be JSON, and is not echoed",
			secret: secret(v1.SecretTypeDockercfg, map[string]string{".dockercfg": "{not json"}),
			want:   []string{`data[.dockercfg]: Invalid value: "<secret contents redacted>": invalid character 'n' looking for beginning of object key string`},
		},
		{
			name:   "basic auth needs a username or a password",
			secret: secret(v1.SecretTypeBasicAuth, nil),
			want:   []string{"data[username]: Required value", "data[password]: Required value"},
		},
		{name: "basic auth with an empty password", secret: secret(v1.SecretTypeBasicAuth, map[string]string{"password": ""})},
		{
			name:   "ssh auth needs a key",
			secret: secret(v1.SecretTypeSSHAuth, map[string]string{"ssh-privatekey": ""}),
			want:   []string{"data[ssh-privatekey]: Required value"},
		},
		{
			name:   "tls needs a certificate and a key",
			secret: secret(v1.SecretTypeTLS, map[string]string{"tls.crt": "c"}),
			want:   []string{"data[tls.key]: Required value"},
		},
		{
			name:   "size limit",
			secret: secret(v1.SecretTypeOpaque, map[string]string{"big": strings.Repeat("x", v1.MaxSecretSize+1)}),
			want:   []string{"data: Too long: may not be more than 1048576 bytes"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assertErrors(t, core.ValidateSecret(tc.secret), tc.want)
		})
	}
}

func TestValidateSecretUpdateKeepsType(t *testing.T) {
	oldSecret := &v1.Secret{ObjectMeta: meta("s"), Type: v1.SecretTypeOpaque}
	newSecret := oldSecret.DeepCopy()
	newSecret.Type = "example.com/other"
	assertErrors(t, core.ValidateSecretUpdate(newSecret, oldSecret), []string{`type: Invalid value: "example.com/other": field is immutable`})
}

func TestValidateNamespace(t *testing.T) {
	tests := []struct {
		name string
		ns   v1.Namespace
		want []string
	}{
		{name: "valid", ns: v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}, Spec: v1.NamespaceSpec{Finalizers: []v1.FinalizerName{v1.FinalizerKubernetes}}}},
		{
			name: "namespaces have no namespace",
			ns:   v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a", Namespace: "default"}},
			want: []string{"metadata.namespace: Forbidden: not allowed on this type"},
		},
		{
			name: "names are DNS labels",
			ns:   v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team.a"}},
			want: []string{`metadata.name: Invalid value: "team.a": must not contain dots`},
		},
		{
			// kube-apiserver reports spec finalizers without an index.
			name: "spec finalizers are standard or qualified",
			ns:   v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}, Spec: v1.NamespaceSpec{Finalizers: []v1.FinalizerName{"example.com/cleanup", "cleanup"}}},
			want: []string{`spec.finalizers: Invalid value: "cleanup": name is neither a standard finalizer name nor is it fully qualified`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assertErrors(t, core.ValidateNamespace(&tc.ns), tc.want)
		})
	}
}

func TestValidateNamespaceStatusAndFinalize(t *testing.T) {
	now := metav1.Now()
	tests := []struct {
		name     string
		deleting bool
		phase    v1.NamespacePhase
		want     []string
	}{
		{name: "active", phase: v1.NamespaceActive},
		{name: "terminating while being deleted", deleting: true, phase: v1.NamespaceTerminating},
		{
			name:  "terminating without a deletion",
			phase: v1.NamespaceTerminating,
			want:  []string{"status.Phase: Invalid value: \"Terminating\": may only be 'Active' if `deletionTimestamp` is empty"},
		},
		{
			name: "active while being deleted", deleting: true, phase: v1.NamespaceActive,
			want: []string{"status.Phase: Invalid value: \"Active\": may only be 'Terminating' if `deletionTimestamp` is not empty"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			oldNS := &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a", ResourceVersion: "1"}}
			if tc.deleting {
				oldNS.DeletionTimestamp = &now
			}
			newNS := oldNS.DeepCopy()
			newNS.Status.Phase = tc.phase
			assertErrors(t, core.ValidateNamespaceStatusUpdate(newNS, oldNS), tc.want)
		})
	}

	oldNS := &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a", ResourceVersion: "1"}, Spec: v1.NamespaceSpec{Finalizers: []v1.FinalizerName{v1.FinalizerKubernetes}}}
	finalized := oldNS.DeepCopy()
	finalized.Spec.Finalizers = nil
	assertErrors(t, core.ValidateNamespaceFinalizeUpdate(finalized, oldNS), nil)
	badFinalizer := oldNS.DeepCopy()
	badFinalizer.Spec.Finalizers = []v1.FinalizerName{v1.FinalizerKubernetes, "cleanup"}
	assertErrors(t, core.ValidateNamespaceFinalizeUpdate(badFinalizer, oldNS), []string{
		`spec.finalizers[1]: Invalid value: "cleanup": name is neither a standard finalizer name nor is it fully qualified`,
	})
}

func TestValidateServiceAccountAndBinding(t *testing.T) {
	assertErrors(t, core.ValidateServiceAccount(&v1.ServiceAccount{ObjectMeta: meta("builder")}), nil)
	assertErrors(t, core.ValidateServiceAccount(&v1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "default"}}), []string{
		"metadata.name: Required value: name or generateName is required",
	})

	tests := []struct {
		name   string
		target v1.ObjectReference
		want   []string
	}{
		{name: "a node", target: v1.ObjectReference{Kind: "Node", Name: "node-1"}},
		{name: "kind may be omitted", target: v1.ObjectReference{Name: "node-1"}},
		{
			name:   "only nodes",
			target: v1.ObjectReference{Kind: "Pod", Name: "p"},
			want:   []string{`target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>"`},
		},
		{name: "a name is required", target: v1.ObjectReference{Kind: "Node"}, want: []string{"target.name: Required value"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assertErrors(t, core.ValidateBinding(&v1.Binding{ObjectMeta: meta("p"), Target: tc.target}), tc.want)
		})
	}
}

func TestValidateEvent(t *testing.T) {
	eventTime := metav1.NowMicro()
	tests := []struct {
		name  string
		event v1.Event
		want  []string
	}{
		{
			name:  "an old-style event in its object's namespace",
			event: v1.Event{ObjectMeta: meta("e"), InvolvedObject: v1.ObjectReference{Namespace: "default"}},
		},
		{
			// core/v1 does not validate event metadata.
			name:  "metadata is not checked",
			event: v1.Event{ObjectMeta: metav1.ObjectMeta{Name: "Not_A_Name", Namespace: "default"}},
		},
		{
			name:  "an old-style event in another namespace",
			event: v1.Event{ObjectMeta: meta("e"), InvolvedObject: v1.ObjectReference{Namespace: "other"}},
			want:  []string{`involvedObject.namespace: Invalid value: "other": does not match event.namespace`},
		},
		{
			name:  "a new-style event says who reported what",
			event: v1.Event{ObjectMeta: meta("e"), EventTime: eventTime, InvolvedObject: v1.ObjectReference{Namespace: "default"}, ReportingController: "example.com/c"},
			want:  []string{"reportingInstance: Required value", "action: Required value", "reason: Required value"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assertErrors(t, core.ValidateEvent(&tc.event), tc.want)
		})
	}
}

func TestValidateEndpoints(t *testing.T) {
	tests := []struct {
		name    string
		subsets []v1.EndpointSubset
		want    []string
	}{
		{
			name:    "valid",
			subsets: []v1.EndpointSubset{{Addresses: []v1.EndpointAddress{{IP: "10.0.0.1"}}, Ports: []v1.EndpointPort{{Port: 80, Protocol: v1.ProtocolTCP}}}},
		},
		{
			name:    "a subset needs addresses",
			subsets: []v1.EndpointSubset{{Ports: []v1.EndpointPort{{Port: 80, Protocol: v1.ProtocolTCP}}}},
			want:    []string{"subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`"},
		},
		{
			name:    "no loopback addresses",
			subsets: []v1.EndpointSubset{{Addresses: []v1.EndpointAddress{{IP: "127.0.0.1"}}}},
			want:    []string{`subsets[0].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)`},
		},
		{
			name: "several ports need names",
			subsets: []v1.EndpointSubset{{
				Addresses: []v1.EndpointAddress{{IP: "10.0.0.1"}},
				Ports:     []v1.EndpointPort{{Name: "http", Port: 80, Protocol: v1.ProtocolTCP}, {Port: 443, Protocol: v1.ProtocolTCP}},
			}},
			want: []string{"subsets[0].ports[1].name: Required value"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assertErrors(t, core.ValidateEndpoints(&v1.Endpoints{ObjectMeta: meta("web"), Subsets: tc.subsets}), tc.want)
		})
	}
}

func TestValidateNode(t *testing.T) {
	tests := []struct {
		name string
		spec v1.NodeSpec
		want []string
	}{
		{name: "valid", spec: v1.NodeSpec{PodCIDRs: []string{"10.244.0.0/24", "fd00::/64"}, Taints: []v1.Taint{{Key: "dedicated", Value: "db", Effect: v1.TaintEffectNoSchedule}}}},
		{
			// kube-apiserver reports taints under metadata.
			name: "taints are unique by key and effect",
			spec: v1.NodeSpec{Taints: []v1.Taint{{Key: "k", Effect: v1.TaintEffectNoSchedule}, {Key: "k", Value: "other", Effect: v1.TaintEffectNoSchedule}}},
			want: []string{`metadata.taints[1]: Duplicate value: {"key":"k","value":"other","effect":"NoSchedule"}: taints must be unique by key and effect pair`},
		},
		{
			name: "a taint has an effect",
			spec: v1.NodeSpec{Taints: []v1.Taint{{Key: "k"}}},
			want: []string{"metadata.taints[0].effect: Required value"},
		},
		{
			name: "one pod CIDR per family",
			spec: v1.NodeSpec{PodCIDRs: []string{"10.244.0.0/24", "10.245.0.0/24"}},
			want: []string{`spec.podCIDRs: Invalid value: ["10.244.0.0/24","10.245.0.0/24"]: may specify no more than one CIDR for each IP family`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assertErrors(t, core.ValidateNode(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}, Spec: tc.spec}), tc.want)
		})
	}
}

func TestValidateNodeUpdate(t *testing.T) {
	tests := []struct {
		name   string
		old    v1.NodeSpec
		modify func(*v1.Node)
		want   []string
	}{
		{name: "pod CIDRs may be assigned once", modify: func(n *v1.Node) { n.Spec.PodCIDRs = []string{"10.244.0.0/24"} }},
		{
			name:   "pod CIDRs do not change",
			old:    v1.NodeSpec{PodCIDRs: []string{"10.244.0.0/24"}},
			modify: func(n *v1.Node) { n.Spec.PodCIDRs = []string{"10.244.1.0/24"} },
			want:   []string{`spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid`},
		},
		{
			name:   "the provider ID does not change",
			old:    v1.NodeSpec{ProviderID: "cloud://1"},
			modify: func(n *v1.Node) { n.Spec.ProviderID = "cloud://2" },
			want:   []string{`spec.providerID: Forbidden: node updates may not change providerID except from "" to valid`},
		},
		{name: "unschedulable may change", modify: func(n *v1.Node) { n.Spec.Unschedulable = true }},
		{
			name: "no duplicate addresses",
			modify: func(n *v1.Node) {
				n.Status.Addresses = []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: "10.0.0.1"}, {Type: v1.NodeInternalIP, Address: "10.0.0.1"}}
			},
			want: []string{`status.addresses[1]: Duplicate value: {"type":"InternalIP","address":"10.0.0.1"}`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			oldNode := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1", ResourceVersion: "1"}, Spec: tc.old}
			newNode := oldNode.DeepCopy()
			tc.modify(newNode)
			assertErrors(t, core.ValidateNodeUpdate(newNode, oldNode), tc.want)
		})
	}
}

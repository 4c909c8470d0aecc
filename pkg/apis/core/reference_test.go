package core_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/apis/internal/reference"
)

// serverSetFields are set by the server on every object it creates; they
// are not defaults.
var serverSetFields = []string{
	"metadata.creationTimestamp", "metadata.resourceVersion", "metadata.uid", "metadata.managedFields",
}

func newScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := v1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := core.AddDefaults(scheme); err != nil {
		t.Fatal(err)
	}
	return scheme
}

// TestDefaultsMatchReference sends each object kube-apiserver defaulted
// through scheme.Default and compares the result with what kube-apiserver
// returned, leaving out what other parts of the server set.
func TestDefaultsMatchReference(t *testing.T) {
	tests := []struct {
		name string
		obj  runtime.Object
		// notDefaults are fields of the output that defaulting does not
		// produce, with the part of kube-apiserver that does.
		notDefaults []string
	}{
		{name: "configmap", obj: &v1.ConfigMap{}},
		{name: "secret", obj: &v1.Secret{}},
		{name: "serviceaccount", obj: &v1.ServiceAccount{}},
		{name: "serviceaccount-default", obj: &v1.ServiceAccount{}},
		{
			name: "namespace", obj: &v1.Namespace{},
			notDefaults: []string{
				"spec.finalizers", // the namespace strategy, on create
			},
		},
		{
			name: "node", obj: &v1.Node{},
			notDefaults: []string{
				"spec.taints", // TaintNodesByCondition admission
			},
		},
		{
			name: "service-clusterip", obj: &v1.Service{},
			notDefaults: []string{
				"spec.clusterIP", "spec.clusterIPs", // the cluster IP allocator
			},
		},
		{
			name: "service-nodeport", obj: &v1.Service{},
			notDefaults: []string{
				"spec.clusterIP", "spec.clusterIPs", // the cluster IP allocator
				"spec.ports.0.nodePort", // the node port allocator
			},
		},
		{
			name: "persistentvolume", obj: &v1.PersistentVolume{},
			notDefaults: []string{
				"metadata.finalizers",            // StorageObjectInUseProtection admission
				"status.lastPhaseTransitionTime", // the persistent volume strategy
			},
		},
		{name: "resourcequota", obj: &v1.ResourceQuota{}},
		{
			name: "pod", obj: &v1.Pod{},
			notDefaults: []string{
				"metadata.generation",             // the pod strategy
				"status.phase", "status.qosClass", // the pod strategy
				"metadata.annotations",                           // LimitRanger admission
				"spec.containers.0.resources",                    // LimitRanger admission
				"spec.serviceAccount", "spec.serviceAccountName", // ServiceAccount admission
				"spec.volumes", "spec.containers.0.volumeMounts", // ServiceAccount admission
				"spec.tolerations",                       // DefaultTolerationSeconds admission
				"spec.priority", "spec.preemptionPolicy", // Priority admission
			},
		},
	}
	scheme := newScheme(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			input, output, err := reference.Defaulting(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(input, tc.obj); err != nil {
				t.Fatal(err)
			}
			scheme.Default(tc.obj)
			if svc, ok := tc.obj.(*v1.Service); ok {
				// The service registry's step before allocation; the
				// reference cluster serves IPv4 only.
				if errs := core.DefaultServiceIPFamilies(svc, nil, []v1.IPFamily{v1.IPv4Protocol}); len(errs) > 0 {
					t.Fatal(errs)
				}
			}

			got, err := reference.ToJSONMap(tc.obj)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]any{}
			if err := json.Unmarshal(output, &want); err != nil {
				t.Fatal(err)
			}
			for _, m := range []map[string]any{got, want} {
				reference.RemoveFields(m, serverSetFields...)
				reference.RemoveFields(m, tc.notDefaults...)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("defaulted %s differs from kube-apiserver's (-want +got):\n%s", tc.name, diff)
			}
		})
	}
}

// TestValidationMatchesReferenceErrors rebuilds the requests behind
// recorded validation errors and checks that our validation produces the
// same Status: message, field paths and causes, in order.
func TestValidationMatchesReferenceErrors(t *testing.T) {
	defaulted := func(obj runtime.Object) runtime.Object {
		newScheme(t).Default(obj)
		return obj
	}
	tests := []struct {
		file     string
		kind     string
		name     string
		validate func() field.ErrorList
	}{
		{
			file: "invalid-name", kind: "ConfigMap", name: "Invalid_Name!",
			validate: func() field.ErrorList {
				cm := defaulted(&v1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "Invalid_Name!", Namespace: "defaulting"}}).(*v1.ConfigMap)
				return core.ValidateConfigMap(cm)
			},
		},
		{
			file: "configmap-over-1mib", kind: "ConfigMap", name: "too-big-for-etcd",
			validate: func() field.ErrorList {
				cm := defaulted(&v1.ConfigMap{
					ObjectMeta: metav1.ObjectMeta{Name: "too-big-for-etcd", Namespace: "defaulting"},
					Data:       map[string]string{"big": strings.Repeat("x", v1.MaxSecretSize+1)},
				}).(*v1.ConfigMap)
				return core.ValidateConfigMap(cm)
			},
		},
		{
			file: "invalid-pod-multiple-errors", kind: "Pod", name: "bad-pod",
			validate: func() field.ErrorList {
				pod := defaulted(&v1.Pod{
					ObjectMeta: metav1.ObjectMeta{Name: "bad-pod", Namespace: "defaulting"},
					Spec: v1.PodSpec{
						Containers:    []v1.Container{{Name: "C_bad"}},
						RestartPolicy: "Sometimes",
					},
				}).(*v1.Pod)
				return core.ValidatePod(pod)
			},
		},
		{
			file: "immutable-field-service-clusterip", kind: "Service", name: "svc1",
			validate: func() field.ErrorList {
				_, output, err := reference.Defaulting("service-clusterip")
				if err != nil {
					t.Fatal(err)
				}
				oldSvc := &v1.Service{}
				if err := json.Unmarshal(output, oldSvc); err != nil {
					t.Fatal(err)
				}
				newSvc := oldSvc.DeepCopy()
				// The PUT changed clusterIP; the service strategy makes
				// clusterIPs follow it before validation.
				newSvc.Spec.ClusterIP = "10.96.99.99"
				newSvc.Spec.ClusterIPs = []string{"10.96.99.99"}
				return core.ValidateServiceUpdate(newSvc, oldSvc)
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			want, err := reference.ErrorStatus(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			// The kind and version of a Status are set when it is encoded.
			want.TypeMeta = metav1.TypeMeta{}
			got := apierrors.NewInvalid(schema.GroupKind{Kind: tc.kind}, tc.name, tc.validate()).ErrStatus
			if diff := cmp.Diff(want, &got); diff != "" {
				t.Errorf("Status differs from kube-apiserver's (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReferenceObjectsAreValid checks that objects kube-apiserver created
// and returned pass our validation, both as new objects and as unchanged
// updates: our rules must not be stricter than kube-apiserver's.
func TestReferenceObjectsAreValid(t *testing.T) {
	type check struct {
		create           func() field.ErrorList
		unchangedUpdates func() field.ErrorList
	}
	checks := map[string]func(data []byte) (check, error){
		"defaulting/configmap.output.json": func(data []byte) (check, error) {
			cm := &v1.ConfigMap{}
			return check{func() field.ErrorList { return core.ValidateConfigMap(cm) }, func() field.ErrorList { return core.ValidateConfigMapUpdate(cm, cm) }}, yaml.Unmarshal(data, cm)
		},
		"bootstrap/configmap-extension-apiserver-authentication.yaml": func(data []byte) (check, error) {
			cm := &v1.ConfigMap{}
			return check{func() field.ErrorList { return core.ValidateConfigMap(cm) }, func() field.ErrorList { return core.ValidateConfigMapUpdate(cm, cm) }}, yaml.Unmarshal(data, cm)
		},
		"defaulting/secret.output.json": func(data []byte) (check, error) {
			s := &v1.Secret{}
			return check{func() field.ErrorList { return core.ValidateSecret(s) }, func() field.ErrorList { return core.ValidateSecretUpdate(s, s) }}, yaml.Unmarshal(data, s)
		},
		"defaulting/serviceaccount.output.json": func(data []byte) (check, error) {
			sa := &v1.ServiceAccount{}
			return check{func() field.ErrorList { return core.ValidateServiceAccount(sa) }, func() field.ErrorList { return core.ValidateServiceAccountUpdate(sa, sa) }}, yaml.Unmarshal(data, sa)
		},
		"defaulting/namespace.output.json": func(data []byte) (check, error) {
			ns := &v1.Namespace{}
			return check{func() field.ErrorList { return core.ValidateNamespace(ns) }, func() field.ErrorList {
				return append(core.ValidateNamespaceUpdate(ns, ns), append(core.ValidateNamespaceStatusUpdate(ns, ns), core.ValidateNamespaceFinalizeUpdate(ns, ns)...)...)
			}}, yaml.Unmarshal(data, ns)
		},
		"bootstrap/namespaces.yaml": func(data []byte) (check, error) {
			list := &v1.NamespaceList{}
			return check{func() field.ErrorList {
				var errs field.ErrorList
				for i := range list.Items {
					errs = append(errs, core.ValidateNamespace(&list.Items[i])...)
				}
				return errs
			}, func() field.ErrorList { return nil }}, yaml.Unmarshal(data, list)
		},
		"defaulting/node.output.json": func(data []byte) (check, error) {
			n := &v1.Node{}
			return check{func() field.ErrorList { return core.ValidateNode(n) }, func() field.ErrorList { return core.ValidateNodeUpdate(n, n) }}, yaml.Unmarshal(data, n)
		},
		"defaulting/service-clusterip.output.json": func(data []byte) (check, error) {
			svc := &v1.Service{}
			return check{func() field.ErrorList { return core.ValidateService(svc) }, func() field.ErrorList {
				return append(core.ValidateServiceUpdate(svc, svc), core.ValidateServiceStatusUpdate(svc, svc)...)
			}}, yaml.Unmarshal(data, svc)
		},
		"defaulting/service-nodeport.output.json": func(data []byte) (check, error) {
			svc := &v1.Service{}
			return check{func() field.ErrorList { return core.ValidateService(svc) }, func() field.ErrorList {
				return append(core.ValidateServiceUpdate(svc, svc), core.ValidateServiceStatusUpdate(svc, svc)...)
			}}, yaml.Unmarshal(data, svc)
		},
		"bootstrap/service-kubernetes.yaml": func(data []byte) (check, error) {
			svc := &v1.Service{}
			return check{func() field.ErrorList { return core.ValidateService(svc) }, func() field.ErrorList { return core.ValidateServiceUpdate(svc, svc) }}, yaml.Unmarshal(data, svc)
		},
		"bootstrap/endpoints-kubernetes.yaml": func(data []byte) (check, error) {
			ep := &v1.Endpoints{}
			return check{func() field.ErrorList { return core.ValidateEndpoints(ep) }, func() field.ErrorList { return core.ValidateEndpointsUpdate(ep, ep) }}, yaml.Unmarshal(data, ep)
		},
		"defaulting/pod.output.json": func(data []byte) (check, error) {
			pod := &v1.Pod{}
			return check{func() field.ErrorList { return core.ValidatePod(pod) }, func() field.ErrorList {
				return append(core.ValidatePodUpdate(pod, pod), core.ValidatePodStatusUpdate(pod, pod)...)
			}}, yaml.Unmarshal(data, pod)
		},
	}
	for file, newCheck := range checks {
		t.Run(file, func(t *testing.T) {
			data, err := reference.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			// kubectl may print warnings before the YAML document.
			if i := strings.Index(string(data), "apiVersion:"); strings.HasSuffix(file, ".yaml") && i > 0 {
				data = data[i:]
			}
			c, err := newCheck(data)
			if err != nil {
				t.Fatal(err)
			}
			if errs := c.create(); len(errs) > 0 {
				t.Errorf("as a new object: %v", errs)
			}
			if errs := c.unchangedUpdates(); len(errs) > 0 {
				t.Errorf("as an unchanged update: %v", errs)
			}
		})
	}
}

// TestPodQOSClassMatchesReference checks the QoS class kube-apiserver
// recorded for the pod it created.
func TestPodQOSClassMatchesReference(t *testing.T) {
	_, output, err := reference.Defaulting("pod")
	if err != nil {
		t.Fatal(err)
	}
	pod := &v1.Pod{}
	if err := json.Unmarshal(output, pod); err != nil {
		t.Fatal(err)
	}
	if got, want := core.PodQOSClass(pod), pod.Status.QOSClass; got != want {
		t.Errorf("PodQOSClass = %s, kube-apiserver recorded %s", got, want)
	}
}

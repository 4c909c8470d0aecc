package fieldmanager

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/pkg/api/scheme"
)

// benchManagers are the field managers the benchmarks compare: the one
// the installer makes, and one whose conversions are the scheme's deep
// copies, which keep the managedFields.
func benchManagers(b *testing.B, gvk schema.GroupVersionKind) map[string]*managedfields.FieldManager {
	b.Helper()
	deepCopies, err := New(Config{TypeConverter: SchemeTypeConverter(scheme.Scheme, nil), Convertor: scheme.Scheme,
		Defaulter: scheme.Scheme, Creater: scheme.Scheme, Kind: gvk, Hub: gvk.GroupVersion()})
	if err != nil {
		b.Fatal(err)
	}
	return map[string]*managedfields.FieldManager{"versioned-copies": newBuiltinManager(b, gvk, "", nil), "scheme-copies": deepCopies}
}

func benchDeployment(b *testing.B) *appsv1.Deployment {
	b.Helper()
	d := &appsv1.Deployment{}
	if err := runtime.DecodeInto(scheme.Codecs.UniversalDecoder(appsv1.SchemeGroupVersion), []byte(deploymentJSON), d); err != nil {
		b.Fatal(err)
	}
	return d
}

// What recording managedFields adds to a create: the field manager's work
// on the decoded object, against an empty live object.
func BenchmarkCreate(b *testing.B) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "bench"},
		Data: map[string]string{"payload": strings.Repeat("x", 1024)}}
	for _, obj := range []runtime.Object{cm, benchDeployment(b)} {
		gvks, _, _ := scheme.Scheme.ObjectKinds(obj)
		fm := newBuiltinManager(b, gvks[0], "", nil)
		b.Run(gvks[0].Kind, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				live, _ := scheme.Scheme.New(gvks[0])
				if _, err := fm.Update(live, obj.DeepCopyObject(), "bench"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// What recording managedFields adds to an update of a deployment that
// three managers wrote already: typing the managedFields of the live
// object would cost more than the rest.
func BenchmarkUpdate(b *testing.B) {
	gvk := appsv1.SchemeGroupVersion.WithKind("Deployment")
	for name, fm := range benchManagers(b, gvk) {
		live, err := fm.Update(&appsv1.Deployment{}, benchDeployment(b), "creator")
		if err != nil {
			b.Fatal(err)
		}
		for i, manager := range []string{"scaler", "labeller"} {
			next := live.DeepCopyObject().(*appsv1.Deployment)
			next.Spec.Replicas = ptr.To(int32(5 + i))
			next.Labels["by"] = manager
			if live, err = fm.Update(live, next, manager); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				next := live.DeepCopyObject().(*appsv1.Deployment)
				next.Spec.Replicas = ptr.To(int32(i))
				if _, err := fm.Update(live, next, "scaler"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

const deploymentJSON = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"bench","labels":{"app":"d"}},
"spec":{"replicas":3,"selector":{"matchLabels":{"app":"d"}},"template":{"metadata":{"labels":{"app":"d"}},
"spec":{"containers":[{"name":"web","image":"nginx:1.27","ports":[{"containerPort":80}],"env":[{"name":"A","value":"1"},{"name":"B","value":"2"}],
"resources":{"requests":{"cpu":"100m","memory":"64Mi"}}},{"name":"sidecar","image":"envoy:1.30"}]}}}}`

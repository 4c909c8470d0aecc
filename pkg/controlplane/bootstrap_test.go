package controlplane

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/endpoints/fieldmanager"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
)

// The managedFields the system namespaces are created with are those the
// field manager records for a client creating them, as kube-apiserver's
// own client does.
func TestSystemNamespaceManagedFields(t *testing.T) {
	gvk := corev1.SchemeGroupVersion.WithKind("Namespace")
	fm, err := fieldmanager.New(fieldmanager.Config{
		TypeConverter: fieldmanager.SchemeTypeConverter(scheme.Scheme, nil), Convertor: scheme.Scheme, Defaulter: scheme.Scheme,
		Creater: scheme.Scheme, Typer: scheme.Scheme, Kind: gvk, Hub: gvk.GroupVersion(), ResetFields: generic.ResetFields("v1", []string{"status"}),
	})
	if err != nil {
		t.Fatal(err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: metav1NamespaceSystem}}
	scheme.Scheme.Default(ns)
	obj, err := fm.Update(&corev1.Namespace{}, ns, "kube-apiserver")
	if err != nil {
		t.Fatal(err)
	}
	want := obj.(*corev1.Namespace).ManagedFields
	got := systemNamespaceManagedFields()
	if len(got) != 1 || len(want) != 1 || got[0].Manager != want[0].Manager || got[0].Operation != want[0].Operation ||
		got[0].APIVersion != want[0].APIVersion || string(got[0].FieldsV1.Raw) != string(want[0].FieldsV1.Raw) || got[0].Time == nil {
		t.Errorf("system namespaces get %+v, the field manager records %+v", got, want)
	}
}

package defaultingressclass

import (
	"context"
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kapi-dev/kapi/pkg/admission"
)

type classes []*networkingv1.IngressClass

func (c classes) List(labels.Selector) ([]*networkingv1.IngressClass, error) { return c, nil }

func class(name string, created int64, def string) *networkingv1.IngressClass {
	return &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{
		Name: name, CreationTimestamp: metav1.NewTime(time.Unix(created, 0)),
		Annotations: map[string]string{networkingv1.AnnotationIsDefaultIngressClass: def},
	}}
}

// An Ingress without a class or the class annotation gets the newest
// default class, the first by name among equally new ones.
func TestDefaultIngressClass(t *testing.T) {
	other := "other"
	tests := []struct {
		name    string
		classes classes
		ing     networkingv1.Ingress
		want    string
	}{
		{name: "no default", classes: classes{class("a", 1, "false"), class("b", 1, "yes")}},
		{name: "one default", classes: classes{class("a", 1, "true")}, want: "a"},
		{name: "newest", classes: classes{class("a", 1, "true"), class("b", 2, "true")}, want: "b"},
		{name: "equally new", classes: classes{class("b", 1, "true"), class("a", 1, "true")}, want: "a"},
		{name: "named class", classes: classes{class("a", 1, "true")}, ing: networkingv1.Ingress{Spec: networkingv1.IngressSpec{IngressClassName: &other}}, want: "other"},
		{name: "annotation", classes: classes{class("a", 1, "true")},
			ing: networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"kubernetes.io/ingress.class": "x"}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ing := tc.ing.DeepCopy()
			a := &admission.Attributes{Resource: networkingv1.SchemeGroupVersion.WithResource("ingresses"), Operation: admission.Create, Object: ing}
			if err := New(tc.classes).Admit(context.Background(), a); err != nil {
				t.Fatal(err)
			}
			got := ""
			if ing.Spec.IngressClassName != nil {
				got = *ing.Spec.IngressClassName
			}
			if got != tc.want {
				t.Errorf("ingressClassName = %q, want %q", got, tc.want)
			}
		})
	}
}

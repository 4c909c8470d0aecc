package controlplane

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/registry/core/namespace"
	"github.com/kapi-dev/kapi/pkg/registry/core/service"
	"github.com/kapi-dev/kapi/pkg/server"
)

// The namespaces every cluster has from its first start.
const (
	metav1NamespaceDefault   = metav1.NamespaceDefault
	metav1NamespaceSystem    = metav1.NamespaceSystem
	metav1NamespacePublic    = metav1.NamespacePublic
	metav1NamespaceNodeLease = corev1.NamespaceNodeLease
)

var systemNamespaces = []string{metav1NamespaceDefault, metav1NamespaceSystem, metav1NamespacePublic, metav1NamespaceNodeLease}

// systemNamespacesHook creates the system namespaces that do not exist.
// It writes through the registry, so they get the same defaults as any
// namespace.
func systemNamespacesHook(namespaces *namespace.REST) server.PostStartHookFunc {
	return func(hctx server.PostStartHookContext) error {
		ctx := request.WithNamespace(hctx.Context, "")
		for _, name := range systemNamespaces {
			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, ManagedFields: systemNamespaceManagedFields()}}
			if _, err := namespaces.Create(ctx, ns, nil, &metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
				return fmt.Errorf("creating namespace %s: %w", name, err)
			}
		}
		return nil
	}
}

// systemNamespaceManagedFields is what kube-apiserver records of the
// system namespaces it creates: itself as the writer of the name label,
// the one field of theirs the field manager sees (it is defaulted).
func systemNamespaceManagedFields() []metav1.ManagedFieldsEntry {
	now := metav1.Now().Rfc3339Copy()
	return []metav1.ManagedFieldsEntry{{
		Manager:    "kube-apiserver",
		Operation:  metav1.ManagedFieldsOperationUpdate,
		APIVersion: "v1",
		Time:       &now,
		FieldsType: "FieldsV1",
		FieldsV1:   &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{".":{},"f:kubernetes.io/metadata.name":{}}}}`)},
	}}
}

// kubernetesServiceHook creates the default/kubernetes Service with the
// first IP of the service range, so that in-cluster clients find the API.
func kubernetesServiceHook(services *service.REST, securePort int) server.PostStartHookFunc {
	return func(hctx server.PostStartHookContext) error {
		ctx := request.WithNamespace(hctx.Context, metav1NamespaceDefault)
		// On every start but the first the Service is there already; asking
		// first keeps its cluster IP from being allocated a second time.
		if _, err := services.Get(ctx, "kubernetes", &metav1.GetOptions{}); err == nil {
			return nil
		} else if !apierrors.IsNotFound(err) {
			return err
		}
		svc := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{
				Name:      "kubernetes",
				Namespace: metav1NamespaceDefault,
				Labels:    map[string]string{"component": "apiserver", "provider": "kubernetes"},
			},
			Spec: corev1.ServiceSpec{
				ClusterIP:       services.ClusterIPs().First().String(),
				Ports:           []corev1.ServicePort{{Name: "https", Port: 443, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(int32(securePort))}},
				SessionAffinity: corev1.ServiceAffinityNone,
				Type:            corev1.ServiceTypeClusterIP,
			},
		}
		scheme.Scheme.Default(svc)
		if _, err := services.Create(ctx, svc, nil, &metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating the kubernetes service: %w", err)
		}
		return nil
	}
}

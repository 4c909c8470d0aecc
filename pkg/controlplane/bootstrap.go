package controlplane

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kapi-dev/kapi/pkg/client"
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

// systemNamespacesHook creates the system namespaces that do not exist,
// through the loopback client as kube-apiserver does: they get the same
// defaults and managedFields as any namespace kube-apiserver writes. It
// asks first, so that a restart reads four namespaces instead of having
// four creates refused.
func systemNamespacesHook() server.PostStartHookFunc {
	return func(hctx server.PostStartHookContext) error {
		clients, err := kubeAPIServerClient(hctx)
		if err != nil {
			return err
		}
		namespaces := client.For[*corev1.Namespace, *corev1.NamespaceList](clients, "namespaces", "")
		for _, name := range systemNamespaces {
			if err := ensureNamespace(hctx, namespaces, name); err != nil {
				return err
			}
		}
		return nil
	}
}

// ensureNamespace creates the namespace name unless it exists. It asks
// first, so that a restart reads the namespace instead of having a create
// refused.
func ensureNamespace(ctx context.Context, namespaces client.Interface[*corev1.Namespace, *corev1.NamespaceList], name string) error {
	if _, err := namespaces.Get(ctx, name, metav1.GetOptions{}); err == nil {
		return nil
	} else if !apierrors.IsNotFound(err) {
		return fmt.Errorf("reading namespace %s: %w", name, err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := namespaces.Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s: %w", name, err)
	}
	return nil
}

// kubernetesServiceHook creates the default/kubernetes Service with the
// first IP of the service range, so that in-cluster clients find the API.
// It writes through the loopback client, as kube-apiserver does, so the
// Service records kube-apiserver as the manager of what it sets.
func kubernetesServiceHook(services *service.REST, securePort int) server.PostStartHookFunc {
	return func(hctx server.PostStartHookContext) error {
		clients, err := kubeAPIServerClient(hctx)
		if err != nil {
			return err
		}
		// The Service's namespace may not be there yet: the system
		// namespaces are created by a hook of their own, which runs
		// beside this one. kube-apiserver's controller creates it too.
		namespaces := client.For[*corev1.Namespace, *corev1.NamespaceList](clients, "namespaces", "")
		if err := ensureNamespace(hctx, namespaces, metav1NamespaceDefault); err != nil {
			return err
		}
		servicesClient := client.For[*corev1.Service, *corev1.ServiceList](clients, "services", metav1NamespaceDefault)
		// On every start but the first the Service is there already; asking
		// first keeps its cluster IP from being allocated a second time.
		if _, err := servicesClient.Get(hctx, "kubernetes", metav1.GetOptions{}); err == nil {
			return nil
		} else if !apierrors.IsNotFound(err) {
			return err
		}
		singleStack := corev1.IPFamilyPolicySingleStack
		svc := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{
				Name:      "kubernetes",
				Namespace: metav1NamespaceDefault,
				Labels:    map[string]string{"component": "apiserver", "provider": "kubernetes"},
			},
			Spec: corev1.ServiceSpec{
				ClusterIP:       services.ClusterIPs().First().String(),
				IPFamilyPolicy:  &singleStack,
				Ports:           []corev1.ServicePort{{Name: "https", Port: 443, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(int32(securePort))}},
				SessionAffinity: corev1.ServiceAffinityNone,
				Type:            corev1.ServiceTypeClusterIP,
			},
		}
		if _, err := servicesClient.Create(hctx, svc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating the kubernetes service: %w", err)
		}
		return nil
	}
}

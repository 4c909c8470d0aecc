package app

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	admissionregistrationlisters "k8s.io/client-go/listers/admissionregistration/v1"
	corelisters "k8s.io/client-go/listers/core/v1"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/webhook"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/webhook/mutating"
	"github.com/kapi-dev/kapi/pkg/admission/plugin/webhook/validating"
	"github.com/kapi-dev/kapi/pkg/client"
)

// webhookConfig is what both webhook plugins are built from: the
// namespaces (for namespaceSelector) and services (for service
// references) from the shared informers, the clients with the
// credentials of the plugin's kubeconfig, and the shared metrics.
func webhookConfig(d *admissionDeps, config []byte) (webhook.Config, error) {
	pc, err := webhook.ReadAdmissionConfig(config)
	if err != nil {
		return webhook.Config{}, err
	}
	auth, err := webhook.NewAuthResolver(pc.KubeConfigFile)
	if err != nil {
		return webhook.Config{}, err
	}
	namespaces := client.InformerFor[*corev1.Namespace, *corev1.NamespaceList](d.informers, "namespaces")
	return webhook.Config{
		Matcher: &webhook.Matcher{
			Namespaces:     corelisters.NewNamespaceLister(namespaces.GetIndexer()),
			LiveNamespaces: client.For[*corev1.Namespace, *corev1.NamespaceList](d.clients, "namespaces", ""),
			Equivalents:    d.equivalentResources,
		},
		Clients:          webhook.NewClientManager(auth, serviceResolver(d.informers, d.aggregatorRouting, d.loopbackHost), d.webhookX509.WrapTransport),
		Metrics:          d.webhookMetrics,
		NamespacesSynced: namespaces.HasSynced,
		// kube-apiserver's gate, beta and on by default in 1.37.
		ExcludeVirtualResources: d.features.Enabled("ExcludeAdmissionWebhookVirtualResources"),
		Authorizer:              d.authorizer,
	}, nil
}

// buildMutatingWebhook watches the mutatingwebhookconfigurations.
func buildMutatingWebhook(d *admissionDeps, config []byte) (admission.Plugin, error) {
	cfg, err := webhookConfig(d, config)
	if err != nil {
		return nil, err
	}
	inf := client.InformerFor[*admissionregistrationv1.MutatingWebhookConfiguration, *admissionregistrationv1.MutatingWebhookConfigurationList](d.informers, "mutatingwebhookconfigurations")
	lister := admissionregistrationlisters.NewMutatingWebhookConfigurationLister(inf.GetIndexer())
	cfg.Source = webhook.NewSource(func() ([]*admissionregistrationv1.MutatingWebhookConfiguration, error) {
		return lister.List(labels.Everything())
	}, webhook.MutatingHooks, inf.HasSynced)
	return mutating.New(cfg, d.log), nil
}

// buildValidatingWebhook watches the validatingwebhookconfigurations.
func buildValidatingWebhook(d *admissionDeps, config []byte) (admission.Plugin, error) {
	cfg, err := webhookConfig(d, config)
	if err != nil {
		return nil, err
	}
	inf := client.InformerFor[*admissionregistrationv1.ValidatingWebhookConfiguration, *admissionregistrationv1.ValidatingWebhookConfigurationList](d.informers, "validatingwebhookconfigurations")
	lister := admissionregistrationlisters.NewValidatingWebhookConfigurationLister(inf.GetIndexer())
	cfg.Source = webhook.NewSource(func() ([]*admissionregistrationv1.ValidatingWebhookConfiguration, error) {
		return lister.List(labels.Everything())
	}, webhook.ValidatingHooks, inf.HasSynced)
	return validating.New(cfg, d.log), nil
}

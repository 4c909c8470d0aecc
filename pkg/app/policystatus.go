package app

import (
	"log/slog"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	clientdiscovery "k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/restmapper"

	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/client"
	"github.com/kapi-dev/kapi/pkg/controller/validatingadmissionpolicystatus"
	"github.com/kapi-dev/kapi/pkg/server"
)

// policyStatusHookName names the hook that starts the type checking of
// validating admission policies. kube-apiserver has no such hook:
// upstream the controller runs in kube-controller-manager.
const policyStatusHookName = "start-validatingadmissionpolicy-status-controller"

// policyStatusWorkers is the number of workers kube-controller-manager
// gives the controller (--concurrent-validating-admission-policy-status-syncs).
const policyStatusWorkers = 5

// addPolicyStatusController registers, when the chain serves
// ValidatingAdmissionPolicies and the controller is not disabled, the
// hook that starts the controller writing their status. It resolves
// kinds and their schemas through the server's own discovery, as
// kube-controller-manager does.
func addPolicyStatusController(s *server.GenericAPIServer, served, disabled bool, loopback server.LoopbackConfig, clients *client.Set, informers *client.Informers, log *slog.Logger) error {
	if !served || disabled {
		return nil
	}
	disc, err := clientdiscovery.NewDiscoveryClientForConfig(loopback.RESTConfig())
	if err != nil {
		return err
	}
	checker := &validatingadmissionpolicystatus.TypeChecker{
		Schemas:    validatingadmissionpolicystatus.NewSchemaResolver(scheme.Scheme, disc),
		RESTMapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc)),
		Log:        log,
	}
	ctrl, err := validatingadmissionpolicystatus.New(
		client.InformerFor[*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyList](informers, "validatingadmissionpolicies"),
		client.For[*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyList](clients, "validatingadmissionpolicies", ""),
		checker, log)
	if err != nil {
		return err
	}
	s.AddPostStartHook(policyStatusHookName, func(ctx server.PostStartHookContext) error {
		go ctrl.Run(ctx, policyStatusWorkers)
		return nil
	})
	return nil
}

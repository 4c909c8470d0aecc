package app

import (
	"log/slog"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	rbacauthorizer "github.com/kapi-dev/kapi/pkg/authorization/rbac"
	"github.com/kapi-dev/kapi/pkg/authorization/rbac/bootstrappolicy"
	"github.com/kapi-dev/kapi/pkg/authorization/rbac/reconciliation"
	"github.com/kapi-dev/kapi/pkg/client"
	"github.com/kapi-dev/kapi/pkg/controller/clusterroleaggregation"
	"github.com/kapi-dev/kapi/pkg/server"
)

// aggregationHookName names the hook that starts the ClusterRole
// aggregation controller. kube-apiserver has no such hook: upstream the
// controller runs in kube-controller-manager, which kapi does without.
const aggregationHookName = "start-clusterrole-aggregation-controller"

// aggregationWorkers is the number of workers kube-controller-manager
// gives the controller.
const aggregationWorkers = 5

// addRBACBootstrap registers, when the chain serves ClusterRoles, the
// post-start hook that puts the RBAC bootstrap policy in place (named as
// kube-apiserver names it, so /readyz/poststarthook/rbac/bootstrap-roles
// fails until the policy is there) and the one that starts the
// ClusterRole aggregation controller. When the rbac group is not served
// (disabled by --runtime-config), there is nothing to reconcile, as in
// kube-apiserver, and the ClusterRole informer is not even created: it
// would never sync, and the informers' hook waits for every informer.
func addRBACBootstrap(s *server.GenericAPIServer, served bool, clients *client.Set, informers *client.Informers, log *slog.Logger) error {
	if !served {
		return nil
	}
	s.AddPostStartHook(reconciliation.PostStartHookName, func(ctx server.PostStartHookContext) error {
		return reconciliation.Ensure(ctx, reconciliation.Config{
			ClusterRoles:        client.For[*rbacv1.ClusterRole, *rbacv1.ClusterRoleList](clients, "clusterroles", ""),
			ClusterRoleBindings: client.For[*rbacv1.ClusterRoleBinding, *rbacv1.ClusterRoleBindingList](clients, "clusterrolebindings", ""),
			Roles:               client.NamespacedFor[*rbacv1.Role, *rbacv1.RoleList](clients, "roles"),
			RoleBindings:        client.NamespacedFor[*rbacv1.RoleBinding, *rbacv1.RoleBindingList](clients, "rolebindings"),
			Namespaces:          client.For[*corev1.Namespace, *corev1.NamespaceList](clients, "namespaces", ""),
			Policy:              bootstrappolicy.Default(),
			Logger:              log.With("component", "rbac-bootstrap"),
		})
	})
	// The informer is created now, so that the informers' hook starts it
	// with the others.
	ctrl, err := clusterroleaggregation.New(client.InformerFor[*rbacv1.ClusterRole, *rbacv1.ClusterRoleList](informers, "clusterroles"),
		client.For[*rbacv1.ClusterRole, *rbacv1.ClusterRoleList](clients, "clusterroles", ""), log.With("component", "clusterrole-aggregation"))
	if err != nil {
		return err
	}
	s.AddPostStartHook(aggregationHookName, func(ctx server.PostStartHookContext) error {
		go ctrl.Run(ctx, aggregationWorkers)
		return nil
	})
	return nil
}

// rbacInformers are the informers the RBAC authorizer reads.
func rbacInformers(f *client.Informers) rbacauthorizer.Informers {
	return rbacauthorizer.Informers{
		Roles:               client.InformerFor[*rbacv1.Role, *rbacv1.RoleList](f, "roles"),
		RoleBindings:        client.InformerFor[*rbacv1.RoleBinding, *rbacv1.RoleBindingList](f, "rolebindings"),
		ClusterRoles:        client.InformerFor[*rbacv1.ClusterRole, *rbacv1.ClusterRoleList](f, "clusterroles"),
		ClusterRoleBindings: client.InformerFor[*rbacv1.ClusterRoleBinding, *rbacv1.ClusterRoleBindingList](f, "clusterrolebindings"),
	}
}

// rbacServed says whether the chain serves rbac.authorization.k8s.io's
// ClusterRoles.
func rbacServed(has func(group, resource string) bool) bool {
	return has(rbacv1.GroupName, "clusterroles")
}

package main

import (
	"context"
	"fmt"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// The bound-user mode (--as-bound-user) runs the api suite as a service
// account that RBAC allows through a RoleBinding in each run's namespace,
// with --other-bindings unrelated Roles and RoleBindings present, instead
// of as the kubeconfig's user (system:masters on kapi, whom the
// authorizer allows before RBAC is asked). The difference between the two
// runs is what authorization costs a real client.
const (
	boundUserNamespace = "kapi-bench-rbac"
	boundUserName      = "kapi-bench"
	othersNamespace    = "kapi-bench-rbac-others"
)

// actAsBoundUser creates the other bindings and the service account,
// and switches the suite's client to the account's token. Namespaces are
// still created and deleted by the kubeconfig's user (env.admin).
func (env *apiEnv) actAsBoundUser(ctx context.Context, p *printer) error {
	admin := env.admin
	for _, ns := range []string{boundUserNamespace, othersNamespace} {
		if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	t0 := time.Now()
	ph := runConcurrent(ctx, env.o.otherBindings, env.o.c, func(ctx context.Context, i int) error {
		name := fmt.Sprintf("other-%05d", i)
		role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{name}, Verbs: []string{"get"}},
		}}
		if _, err := admin.RbacV1().Roles(othersNamespace).Create(ctx, role, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
		rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
			Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "user-" + name}}}
		if _, err := admin.RbacV1().RoleBindings(othersNamespace).Create(ctx, rb, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
		return nil
	})
	if ph.firstErr != nil {
		return fmt.Errorf("creating the other roles and bindings: %d errors, first: %w", ph.errors, ph.firstErr)
	}
	p.comment("bound user: %d other Roles and RoleBindings in %s (%.1fs)", env.o.otherBindings, othersNamespace, time.Since(t0).Seconds())

	if _, err := admin.CoreV1().ServiceAccounts(boundUserNamespace).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: boundUserName}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	expiration := int64(3600)
	tr, err := admin.CoreV1().ServiceAccounts(boundUserNamespace).CreateToken(ctx, boundUserName,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiration}}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("token for %s/%s: %w", boundUserNamespace, boundUserName, err)
	}
	cfg := rest.AnonymousClientConfig(env.cfg)
	cfg.BearerToken = tr.Status.Token
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfigAndClient(cfg, httpClient)
	if err != nil {
		return err
	}
	env.cfg, env.cs = cfg, cs
	env.lister = &lister{http: httpClient, rest: cs.CoreV1().RESTClient(), pageSize: env.o.pageSize}
	p.comment("bound user: system:serviceaccount:%s:%s, bound to ClusterRole edit by a RoleBinding in each run's namespace", boundUserNamespace, boundUserName)
	return nil
}

// bindInNamespace lets the bound user edit ns and waits until the server's
// authorizer sees the binding (it reads bindings from a cache).
func (env *apiEnv) bindInNamespace(ctx context.Context, ns string) error {
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: boundUserName},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "edit"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: boundUserName, Namespace: boundUserNamespace}}}
	if _, err := env.admin.RbacV1().RoleBindings(ns).Create(ctx, rb, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := env.cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{Limit: 1})
		if err == nil {
			return nil
		}
		if !apierrors.IsForbidden(err) || time.Now().After(deadline) {
			return fmt.Errorf("the bound user cannot list configmaps in %s: %w", ns, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

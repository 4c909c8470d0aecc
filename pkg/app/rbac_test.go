package app

import (
	"context"
	"log/slog"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kapi-dev/kapi/pkg/endpoints/discovery"
	"github.com/kapi-dev/kapi/pkg/server"
)

// TestRBACBootstrapHooks: with the rbac group served, the chain gets
// kube-apiserver's rbac/bootstrap-roles hook, which creates the policy,
// and a hook starting the aggregation controller, which fills admin;
// without it, neither hook and no ClusterRole informer (it would never
// sync and hold up the informers' hook).
func TestRBACBootstrapHooks(t *testing.T) {
	log := slog.New(slog.DiscardHandler)

	t.Run("not served", func(t *testing.T) {
		s := server.New("test", server.NotFoundServer{}, discovery.NewRegistry())
		factory := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
		if err := addRBACBootstrap(s, rbacServed(discovery.NewRegistry().HasResource), fake.NewClientset(), factory, log); err != nil {
			t.Fatal(err)
		}
		if h := s.PostStartHooks(); len(h) != 0 {
			t.Errorf("hooks %v registered without the rbac group", h)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		factory.Start(ctx.Done())
		if synced := factory.WaitForCacheSync(ctx.Done()); len(synced) != 0 {
			t.Errorf("informers %v created without the rbac group", synced)
		}
	})

	t.Run("served", func(t *testing.T) {
		s := server.New("test", server.NotFoundServer{}, discovery.NewRegistry())
		client := fake.NewClientset()
		factory := informers.NewSharedInformerFactory(client, 0)
		if err := addRBACBootstrap(s, true, client, factory, log); err != nil {
			t.Fatal(err)
		}
		hooks := map[string]server.PostStartHookFunc{}
		for _, h := range s.PostStartHooks() {
			hooks[h.Name] = h.Fn
		}
		if len(hooks) != 2 || hooks["rbac/bootstrap-roles"] == nil || hooks[aggregationHookName] == nil {
			t.Fatalf("hooks %v, want rbac/bootstrap-roles and %s", hooks, aggregationHookName)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		factory.Start(ctx.Done())
		if err := hooks[aggregationHookName](server.PostStartHookContext{Context: ctx}); err != nil {
			t.Fatal(err)
		}
		if err := hooks["rbac/bootstrap-roles"](server.PostStartHookContext{Context: ctx}); err != nil {
			t.Fatal(err)
		}
		// The controller fills admin from the roles the hook created; the
		// bound only keeps a broken controller from hanging the test.
		err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			admin, err := client.RbacV1().ClusterRoles().Get(ctx, "admin", metav1.GetOptions{})
			return err == nil && len(admin.Rules) > 0, nil
		})
		if err != nil {
			t.Errorf("admin was not aggregated: %v", err)
		}
	})
}

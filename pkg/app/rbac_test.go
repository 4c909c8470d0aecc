package app

import (
	"context"
	"log/slog"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/client"
	"github.com/kapi-dev/kapi/pkg/endpoints/discovery"
	"github.com/kapi-dev/kapi/pkg/server"
)

// TestRBACBootstrapHooks: with the rbac group served, the chain gets
// kube-apiserver's rbac/bootstrap-roles hook and a hook starting the
// aggregation controller, whose ClusterRole informer is created with the
// others; without it, neither hook and no informer (it would never sync
// and hold up the informers' hook). What the hooks do against a real
// server is checked end to end (test/e2e TestSecureByDefault's bootstrap
// policy, aggregated roles included).
func TestRBACBootstrapHooks(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	// Registering the hooks sends no request: the server is never asked.
	clients, err := client.NewSet(&rest.Config{Host: "https://127.0.0.1:1"}, scheme.Scheme)
	if err != nil {
		t.Fatal(err)
	}
	// informersMade starts the informers with an ended context and
	// counts them.
	informersMade := func(f *client.Informers) int {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		f.Start(ctx)
		return len(f.WaitForCacheSync(ctx))
	}

	t.Run("not served", func(t *testing.T) {
		s := server.New("test", server.NotFoundServer{}, discovery.NewRegistry())
		informers := client.NewInformers(clients)
		if err := addRBACBootstrap(s, rbacServed(discovery.NewRegistry().HasResource), clients, informers, log); err != nil {
			t.Fatal(err)
		}
		if h := s.PostStartHooks(); len(h) != 0 {
			t.Errorf("hooks %v registered without the rbac group", h)
		}
		if n := informersMade(informers); n != 0 {
			t.Errorf("%d informers created without the rbac group", n)
		}
	})

	t.Run("served", func(t *testing.T) {
		s := server.New("test", server.NotFoundServer{}, discovery.NewRegistry())
		informers := client.NewInformers(clients)
		if err := addRBACBootstrap(s, true, clients, informers, log); err != nil {
			t.Fatal(err)
		}
		hooks := map[string]server.PostStartHookFunc{}
		for _, h := range s.PostStartHooks() {
			hooks[h.Name] = h.Fn
		}
		if len(hooks) != 2 || hooks["rbac/bootstrap-roles"] == nil || hooks[aggregationHookName] == nil {
			t.Fatalf("hooks %v, want rbac/bootstrap-roles and %s", hooks, aggregationHookName)
		}
		if n := informersMade(informers); n != 1 {
			t.Errorf("%d informers created, want the ClusterRoles'", n)
		}
	})
}

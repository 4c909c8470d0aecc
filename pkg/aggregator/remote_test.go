package aggregator_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/pkg/aggregator"
	"github.com/kapi-dev/kapi/pkg/endpoints/discovery"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
	"github.com/kapi-dev/kapi/pkg/server"
	"github.com/kapi-dev/kapi/pkg/storage/embedded"
	"github.com/kapi-dev/kapi/pkg/storage/storagebackend"
)

// remotes is a RemoteHandlers whose handlers answer with the name of
// the APIService they serve and of its Service, and which records the
// removals.
type remotes struct {
	mu      sync.Mutex
	removed []string
}

func (r *remotes) Handler(as *apiregistrationv1.APIService) http.Handler {
	body := as.Name + " " + as.Spec.Service.Name
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, body) })
}

func (r *remotes) Remove(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.removed = append(r.removed, name)
}

// A remote APIService's group version is served by the handler
// RemoteHandlers gives for it, replaced when the APIService changes;
// once the APIService is deleted or made local, the group version is the
// rest of the chain's again and RemoteHandlers is told.
func TestRemoteAPIServicesAreServedByRemoteHandlers(t *testing.T) {
	etcd, err := embedded.Start(context.Background(), embedded.Config{DataDir: t.TempDir(), UnsafeNoFsync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = etcd.Close() })
	r := &remotes{}
	s, err := aggregator.New(aggregator.Config{
		RESTOptions: generic.RESTOptions{StorageFactory: &storagebackend.Factory{Client: etcd.Client(), Prefix: "/registry"}},
		Remote:      r,
	}, server.NotFoundServer{}, discovery.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.APIServices.RunWithContext(ctx)

	// get answers a request for the group version's things.
	get := func() string {
		req := httptest.NewRequest(http.MethodGet, "/apis/remote.example.com/v1/things", nil)
		req = req.WithContext(request.WithRequestInfo(req.Context(), &request.RequestInfo{
			IsResourceRequest: true, Verb: "list", APIPrefix: "apis", APIGroup: "remote.example.com", APIVersion: "v1", Resource: "things",
		}))
		w := httptest.NewRecorder()
		s.UnprotectedHandler().ServeHTTP(w, req)
		return w.Body.String()
	}
	eventually := func(want string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for get() != want {
			if time.Now().After(deadline) {
				t.Fatalf("the group version answers %q, want %q", get(), want)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	const delegated = "404 page not found\n"
	if got := get(); got != delegated {
		t.Fatalf("before any APIService: %q, want the chain's 404", got)
	}

	apiServices := s.Storage.APIService
	created, err := apiServices.Create(ctx, &apiregistrationv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: "v1.remote.example.com"},
		Spec: apiregistrationv1.APIServiceSpec{Group: "remote.example.com", Version: "v1", GroupPriorityMinimum: 100, VersionPriority: 10,
			Service: &apiregistrationv1.ServiceReference{Namespace: "ns", Name: "first", Port: ptr.To[int32](443)}},
	}, nil, &metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eventually("v1.remote.example.com first")

	changed := created.(*apiregistrationv1.APIService).DeepCopy()
	changed.Spec.Service.Name = "second"
	if _, _, err := apiServices.Update(ctx, changed.Name, rest.DefaultUpdatedObjectInfo(changed), nil, nil, false, &metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually("v1.remote.example.com second")

	local, err := apiServices.Get(ctx, changed.Name, &metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	local.(*apiregistrationv1.APIService).Spec.Service = nil
	if _, _, err := apiServices.Update(ctx, changed.Name, rest.DefaultUpdatedObjectInfo(local), nil, nil, false, &metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(delegated)

	remote, err := apiServices.Get(ctx, changed.Name, &metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	remote.(*apiregistrationv1.APIService).Spec.Service = &apiregistrationv1.ServiceReference{Namespace: "ns", Name: "third", Port: ptr.To[int32](443)}
	if _, _, err := apiServices.Update(ctx, changed.Name, rest.DefaultUpdatedObjectInfo(remote), nil, nil, false, &metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually("v1.remote.example.com third")
	if _, _, err := apiServices.Delete(ctx, changed.Name, nil, &metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(delegated)
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.removed) != 2 || r.removed[0] != "v1.remote.example.com" || r.removed[1] != "v1.remote.example.com" {
		t.Errorf("removed %v, want the APIService when made local and when deleted", r.removed)
	}
}

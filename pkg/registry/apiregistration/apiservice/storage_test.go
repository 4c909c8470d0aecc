package apiservice_test

import (
	"bytes"
	"context"
	"os"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/pkg/registry/apiregistration/apiservice"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
	"github.com/kapi-dev/kapi/pkg/storage/embedded"
	"github.com/kapi-dev/kapi/pkg/storage/storagebackend"
)

// newStorage gives the apiservices an embedded etcd of their own.
func newStorage(t *testing.T) (*apiservice.Storage, *clientv3.Client) {
	t.Helper()
	etcd, err := embedded.Start(context.Background(), embedded.Config{DataDir: t.TempDir(), UnsafeNoFsync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = etcd.Close() })
	st, err := apiservice.NewStorage(generic.RESTOptions{StorageFactory: &storagebackend.Factory{Client: etcd.Client(), Prefix: "/registry"}})
	if err != nil {
		t.Fatal(err)
	}
	return st, etcd.Client()
}

func create(t *testing.T, st *apiservice.Storage, as *apiregistrationv1.APIService) *apiregistrationv1.APIService {
	t.Helper()
	out, err := st.APIService.Create(context.Background(), as, nil, &metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return out.(*apiregistrationv1.APIService)
}

// kube-aggregator stores APIServices as JSON, under
// /registry/apiregistration.k8s.io/apiservices/<name>: kapi reads what
// kube-apiserver 1.37.1 wrote (testdata/v1.apps.json, read with etcdctl
// from the oracle's etcd) and writes in the same form.
func TestAPIServicesAreStoredAsKubeAggregatorStoresThem(t *testing.T) {
	st, etcd := newStorage(t)
	ctx := context.Background()
	stored, err := os.ReadFile("testdata/v1.apps.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := etcd.Put(ctx, "/registry/apiregistration.k8s.io/apiservices/v1.apps", string(stored)); err != nil {
		t.Fatal(err)
	}
	obj, err := st.APIService.Get(ctx, "v1.apps", &metav1.GetOptions{})
	if err != nil {
		t.Fatalf("reading kube-apiserver's v1.apps: %v", err)
	}
	apps := obj.(*apiregistrationv1.APIService)
	if apps.Spec.Group != "apps" || apps.Spec.GroupPriorityMinimum != 17800 || apps.Spec.VersionPriority != 15 ||
		apps.Labels["kube-aggregator.kubernetes.io/automanaged"] != "onstart" || len(apps.Status.Conditions) != 1 {
		t.Errorf("kube-apiserver's v1.apps read as %+v", apps)
	}

	create(t, st, &apiregistrationv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: "v1.example.com"},
		Spec:       apiregistrationv1.APIServiceSpec{Group: "example.com", Version: "v1", GroupPriorityMinimum: 100, VersionPriority: 10},
	})
	resp, err := etcd.Get(ctx, "/registry/apiregistration.k8s.io/apiservices/v1.example.com")
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) != 1 {
		t.Fatal("no value at /registry/apiregistration.k8s.io/apiservices/v1.example.com")
	}
	// The same form as kube-apiserver's value: JSON of the v1 object,
	// kind first, ending with a newline.
	typeMeta := []byte(`{"kind":"APIService","apiVersion":"apiregistration.k8s.io/v1","metadata":{"name":"`)
	if !bytes.HasPrefix(stored, typeMeta) || !bytes.HasSuffix(stored, []byte("}\n")) {
		t.Fatalf("testdata/v1.apps.json does not start with %s", typeMeta)
	}
	if value := resp.Kvs[0].Value; !bytes.HasPrefix(value, append(typeMeta, "v1.example.com"...)) || !bytes.HasSuffix(value, []byte("}\n")) {
		t.Errorf("stored value %q, want JSON as kube-apiserver's %q", value, stored)
	}
}

// A local APIService is Available from its creation, with
// kube-aggregator's reason and message; a remote one has no condition
// until the availability controller checks it, and its Service's port
// defaults to 443.
func TestCreateSetsTheStatusOfLocalAPIServicesOnly(t *testing.T) {
	st, _ := newStorage(t)
	local := create(t, st, &apiregistrationv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: "v1.local.example.com"},
		Spec:       apiregistrationv1.APIServiceSpec{Group: "local.example.com", Version: "v1", GroupPriorityMinimum: 100, VersionPriority: 10},
		Status: apiregistrationv1.APIServiceStatus{Conditions: []apiregistrationv1.APIServiceCondition{
			{Type: apiregistrationv1.Available, Status: apiregistrationv1.ConditionFalse, Reason: "Mine"},
		}},
	})
	if c := local.Status.Conditions; len(c) != 1 || c[0].Type != apiregistrationv1.Available || c[0].Status != apiregistrationv1.ConditionTrue ||
		c[0].Reason != "Local" || c[0].Message != "Local APIServices are always available" || c[0].LastTransitionTime.IsZero() {
		t.Errorf("local APIService created with conditions %+v", c)
	}
	remote := create(t, st, &apiregistrationv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: "v1.remote.example.com"},
		Spec: apiregistrationv1.APIServiceSpec{Group: "remote.example.com", Version: "v1", GroupPriorityMinimum: 100, VersionPriority: 10,
			Service: &apiregistrationv1.ServiceReference{Namespace: "ns", Name: "svc", Port: ptr.To[int32](443)}},
		Status: apiregistrationv1.APIServiceStatus{Conditions: []apiregistrationv1.APIServiceCondition{
			{Type: apiregistrationv1.Available, Status: apiregistrationv1.ConditionTrue},
		}},
	})
	if len(remote.Status.Conditions) != 0 {
		t.Errorf("remote APIService created with conditions %+v", remote.Status.Conditions)
	}
}

// An update keeps the stored status and needs the resourceVersion it
// replaces; /status keeps the spec and the labels.
func TestUpdatesAndStatusWrites(t *testing.T) {
	st, _ := newStorage(t)
	ctx := context.Background()
	as := create(t, st, &apiregistrationv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: "v1.example.com", Labels: map[string]string{"a": "b"}},
		Spec:       apiregistrationv1.APIServiceSpec{Group: "example.com", Version: "v1", GroupPriorityMinimum: 100, VersionPriority: 10},
	})

	unconditional := as.DeepCopy()
	unconditional.ResourceVersion = ""
	if _, _, err := st.APIService.Update(ctx, as.Name, rest.DefaultUpdatedObjectInfo(unconditional), nil, nil, false, &metav1.UpdateOptions{}); !apierrors.IsInvalid(err) {
		t.Errorf("update without resourceVersion: %v, want it refused", err)
	}

	changed := as.DeepCopy()
	changed.Spec.VersionPriority = 20
	changed.Status.Conditions = nil
	out, _, err := st.APIService.Update(ctx, as.Name, rest.DefaultUpdatedObjectInfo(changed), nil, nil, false, &metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	updated := out.(*apiregistrationv1.APIService)
	if updated.Spec.VersionPriority != 20 || len(updated.Status.Conditions) != 1 || updated.Generation != 0 {
		t.Errorf("update gave priority %d, conditions %+v, generation %d; want 20, the stored status, no generation",
			updated.Spec.VersionPriority, updated.Status.Conditions, updated.Generation)
	}

	status := updated.DeepCopy()
	status.Spec.VersionPriority = 30
	status.Labels = map[string]string{"c": "d"}
	status.Status.Conditions = []apiregistrationv1.APIServiceCondition{{Type: apiregistrationv1.Available, Status: apiregistrationv1.ConditionFalse, Reason: "FailedDiscoveryCheck"}}
	out, _, err = st.Status.Update(ctx, as.Name, rest.DefaultUpdatedObjectInfo(status), nil, nil, false, &metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	written := out.(*apiregistrationv1.APIService)
	if written.Spec.VersionPriority != 20 || written.Labels["a"] != "b" || len(written.Labels) != 1 ||
		len(written.Status.Conditions) != 1 || written.Status.Conditions[0].Reason != "FailedDiscoveryCheck" {
		t.Errorf("status write gave spec %+v, labels %v, conditions %+v", written.Spec, written.Labels, written.Status.Conditions)
	}

	bad := written.DeepCopy()
	bad.Status.Conditions[0].Status = "Maybe"
	if _, _, err := st.Status.Update(ctx, as.Name, rest.DefaultUpdatedObjectInfo(bad), nil, nil, false, &metav1.UpdateOptions{}); !apierrors.IsInvalid(err) {
		t.Errorf("status Maybe: %v, want Invalid", err)
	}
}

package generic_test

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/features"
	"github.com/kapi-dev/kapi/pkg/registry/core/configmap"
	"github.com/kapi-dev/kapi/pkg/registry/core/pod"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
	"github.com/kapi-dev/kapi/pkg/storage/embedded"
	"github.com/kapi-dev/kapi/pkg/storage/storagebackend"
)

// restOptions gives stores an embedded etcd of their own.
func restOptions(t *testing.T) generic.RESTOptions {
	t.Helper()
	etcd, err := embedded.Start(context.Background(), embedded.Config{DataDir: t.TempDir(), UnsafeNoFsync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = etcd.Close() })
	return generic.RESTOptions{StorageFactory: &storagebackend.Factory{Client: etcd.Client(), Prefix: "/registry"}}
}

func configMaps(t *testing.T) *generic.Store {
	t.Helper()
	s, err := configmap.NewStorage(restOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	return s.ConfigMap
}

var ctx = request.WithNamespace(context.Background(), "default")

func newConfigMap(name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"k": "v"}}
}

func create(t *testing.T, s *generic.Store, obj runtime.Object) *corev1.ConfigMap {
	t.Helper()
	out, err := s.Create(ctx, obj, nil, &metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return out.(*corev1.ConfigMap)
}

func TestCreateFillsServerOwnedMetadata(t *testing.T) {
	s := configMaps(t)
	in := newConfigMap("a")
	in.UID, in.ResourceVersion = "client-uid", "42"
	out := create(t, s, in)
	if out.UID == "" || out.UID == "client-uid" || out.CreationTimestamp.IsZero() || out.Namespace != "default" {
		t.Errorf("metadata = %+v", out.ObjectMeta)
	}
	if out.ResourceVersion == "" || out.ResourceVersion == "42" {
		t.Errorf("resourceVersion = %q, want the storage revision", out.ResourceVersion)
	}
}

func TestCreateRejectsAnotherNamespace(t *testing.T) {
	s := configMaps(t)
	in := newConfigMap("a")
	in.Namespace = "other"
	_, err := s.Create(ctx, in, nil, &metav1.CreateOptions{})
	if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), "does not match the namespace sent on the request") {
		t.Fatalf("got %v", err)
	}
}

func TestGenerateName(t *testing.T) {
	s := configMaps(t)
	names := map[string]bool{}
	for i := 0; i < 20; i++ {
		out := create(t, s, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "app-"}})
		if !strings.HasPrefix(out.Name, "app-") || len(out.Name) != len("app-")+5 || names[out.Name] {
			t.Fatalf("generated name %q", out.Name)
		}
		names[out.Name] = true
	}
	long := strings.Repeat("x", 70)
	out := create(t, s, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: long}})
	if len(out.Name) != 63 {
		t.Errorf("a generated name must fit a DNS label, got %d characters", len(out.Name))
	}
}

func TestCreateValidates(t *testing.T) {
	s := configMaps(t)
	_, err := s.Create(ctx, newConfigMap("Invalid_Name!"), nil, &metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) {
		t.Fatalf("got %v", err)
	}
	st := err.(apierrors.APIStatus).Status()
	if st.Details.Kind != "ConfigMap" || st.Details.Causes[0].Field != "metadata.name" {
		t.Errorf("details = %+v", st.Details)
	}
}

func TestUpdateIsOptimisticallyConcurrent(t *testing.T) {
	s := configMaps(t)
	first := create(t, s, newConfigMap("a"))

	next := first.DeepCopy()
	next.Data["k"] = "v2"
	updated, created, err := s.Update(ctx, "a", rest.DefaultUpdatedObjectInfo(next), nil, nil, false, &metav1.UpdateOptions{})
	if err != nil || created {
		t.Fatalf("update: %v created=%v", err, created)
	}
	if updated.(*corev1.ConfigMap).ResourceVersion == first.ResourceVersion {
		t.Error("an update must move the resourceVersion")
	}

	stale := first.DeepCopy()
	stale.Data["k"] = "v3"
	_, _, err = s.Update(ctx, "a", rest.DefaultUpdatedObjectInfo(stale), nil, nil, false, &metav1.UpdateOptions{})
	if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), "the object has been modified") {
		t.Fatalf("stale update: %v", err)
	}

	unconditional := newConfigMap("a")
	unconditional.Data["k"] = "v4"
	if _, _, err := s.Update(ctx, "a", rest.DefaultUpdatedObjectInfo(unconditional), nil, nil, false, &metav1.UpdateOptions{}); err != nil {
		t.Fatalf("configmaps allow updates without a resourceVersion: %v", err)
	}
}

func TestUpdateKeepsServerOwnedMetadata(t *testing.T) {
	s := configMaps(t)
	first := create(t, s, newConfigMap("a"))
	next := first.DeepCopy()
	next.UID = "changed"
	next.CreationTimestamp = metav1.Time{}
	out, _, err := s.Update(ctx, "a", rest.DefaultUpdatedObjectInfo(next), nil, nil, false, &metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := out.(*corev1.ConfigMap)
	if got.UID != first.UID || !got.CreationTimestamp.Equal(&first.CreationTimestamp) {
		t.Errorf("uid %q / creationTimestamp %v changed", got.UID, got.CreationTimestamp)
	}
}

func TestUpdateOfMissingObjectIsNotFound(t *testing.T) {
	s := configMaps(t)
	_, _, err := s.Update(ctx, "missing", rest.DefaultUpdatedObjectInfo(newConfigMap("missing")), nil, nil, false, &metav1.UpdateOptions{})
	if !apierrors.IsNotFound(err) {
		t.Fatalf("got %v", err)
	}
	// forceAllowCreate (server-side apply) creates.
	_, created, err := s.Update(ctx, "missing", rest.DefaultUpdatedObjectInfo(newConfigMap("missing")), nil, nil, true, &metav1.UpdateOptions{})
	if err != nil || !created {
		t.Fatalf("forced create: %v created=%v", err, created)
	}
}

func TestDryRunWritesNothing(t *testing.T) {
	s := configMaps(t)
	dry := []string{metav1.DryRunAll}
	if _, err := s.Create(ctx, newConfigMap("a"), nil, &metav1.CreateOptions{DryRun: dry}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "a", &metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("dry-run create was stored: %v", err)
	}
	// An update that creates (a server-side apply) creates nothing either.
	out, created, err := s.Update(ctx, "a", rest.DefaultUpdatedObjectInfo(newConfigMap("a")), nil, nil, true, &metav1.UpdateOptions{DryRun: dry})
	if err != nil || !created || out.(*corev1.ConfigMap).UID == "" {
		t.Fatalf("dry-run create on update: %v, created %v, %v", out, created, err)
	}
	if _, err := s.Get(ctx, "a", &metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("dry-run create on update was stored: %v", err)
	}

	first := create(t, s, newConfigMap("a"))
	if _, err := s.Create(ctx, newConfigMap("a"), nil, &metav1.CreateOptions{DryRun: dry}); !apierrors.IsAlreadyExists(err) {
		t.Errorf("a dry-run create of a taken name: %v", err)
	}
	next := first.DeepCopy()
	next.Data["k"] = "dry"
	out, _, err = s.Update(ctx, "a", rest.DefaultUpdatedObjectInfo(next), nil, nil, false, &metav1.UpdateOptions{DryRun: dry})
	if err != nil || out.(*corev1.ConfigMap).Data["k"] != "dry" {
		t.Fatalf("dry-run update answers with the would-be object: %v %v", out, err)
	}
	if _, _, err := s.Delete(ctx, "a", nil, &metav1.DeleteOptions{DryRun: dry}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, "a", &metav1.GetOptions{})
	if err != nil || got.(*corev1.ConfigMap).Data["k"] != "v" || got.(*corev1.ConfigMap).ResourceVersion != first.ResourceVersion {
		t.Fatalf("dry runs changed the object: %v %v", got, err)
	}
}

func TestDeletePreconditions(t *testing.T) {
	s := configMaps(t)
	first := create(t, s, newConfigMap("a"))
	_, _, err := s.Delete(ctx, "a", nil, &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: ptr.To(types.UID("00000000-0000-0000-0000-000000000000"))}})
	want := `Operation cannot be fulfilled on ConfigMap "a": the UID in the precondition (00000000-0000-0000-0000-000000000000) does not match the UID in record (` + string(first.UID) + `). The object might have been deleted and then recreated`
	if !apierrors.IsConflict(err) || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
	_, _, err = s.Delete(ctx, "a", nil, &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: ptr.To("1")}})
	if !apierrors.IsConflict(err) {
		t.Fatalf("stale resourceVersion precondition: %v", err)
	}
	out, deleted, err := s.Delete(ctx, "a", nil, &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &first.UID, ResourceVersion: &first.ResourceVersion}})
	if err != nil || !deleted {
		t.Fatalf("delete: %v deleted=%v", err, deleted)
	}
	st, ok := out.(*metav1.Status)
	if !ok || st.Status != metav1.StatusSuccess || st.Details.Name != "a" || st.Details.Kind != "configmaps" || st.Details.UID != first.UID {
		t.Errorf("configmaps answer a delete with a Success Status: %#v", out)
	}
}

func TestFinalizersHoldTheObject(t *testing.T) {
	s := configMaps(t)
	in := newConfigMap("a")
	in.Finalizers = []string{"example.com/hold"}
	create(t, s, in)
	out, deleted, err := s.Delete(ctx, "a", nil, &metav1.DeleteOptions{})
	if err != nil || deleted {
		t.Fatalf("delete: %v deleted=%v", err, deleted)
	}
	held := out.(*corev1.ConfigMap)
	if held.DeletionTimestamp == nil || *held.DeletionGracePeriodSeconds != 0 {
		t.Fatalf("held object: %+v", held.ObjectMeta)
	}
	// Deleting again changes nothing.
	again, _, err := s.Delete(ctx, "a", nil, &metav1.DeleteOptions{})
	if err != nil || again.(*corev1.ConfigMap).ResourceVersion != held.ResourceVersion {
		t.Fatalf("repeated delete: %v", err)
	}
	// Removing the last finalizer removes the object.
	held.Finalizers = nil
	if _, _, err := s.Update(ctx, "a", rest.DefaultUpdatedObjectInfo(held), nil, nil, false, &metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "a", &metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("after the last finalizer: %v", err)
	}
}

func TestPropagationPolicyFinalizers(t *testing.T) {
	for _, tc := range []struct {
		policy metav1.DeletionPropagation
		want   []string
	}{
		{metav1.DeletePropagationOrphan, []string{metav1.FinalizerOrphanDependents}},
		{metav1.DeletePropagationForeground, []string{metav1.FinalizerDeleteDependents}},
	} {
		t.Run(string(tc.policy), func(t *testing.T) {
			s := configMaps(t)
			create(t, s, newConfigMap("a"))
			out, deleted, err := s.Delete(ctx, "a", nil, &metav1.DeleteOptions{PropagationPolicy: &tc.policy})
			if err != nil || deleted {
				t.Fatalf("%v deleted=%v", err, deleted)
			}
			if got := out.(*corev1.ConfigMap).Finalizers; strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("finalizers = %v, want %v", got, tc.want)
			}
		})
	}
	s := configMaps(t)
	create(t, s, newConfigMap("a"))
	background := metav1.DeletePropagationBackground
	if _, deleted, err := s.Delete(ctx, "a", nil, &metav1.DeleteOptions{PropagationPolicy: &background}); err != nil || !deleted {
		t.Fatalf("background delete: %v deleted=%v", err, deleted)
	}
	bogus := metav1.DeletionPropagation("Sideways")
	create(t, s, newConfigMap("b"))
	if _, _, err := s.Delete(ctx, "b", nil, &metav1.DeleteOptions{PropagationPolicy: &bogus}); !apierrors.IsInvalid(err) {
		t.Fatalf("unknown policy: %v", err)
	}
}

func TestPodsAreDeletedGracefully(t *testing.T) {
	st, err := pod.NewStorage(restOptions(t), pod.Connections{}, nil, features.Gates{})
	if err != nil {
		t.Fatal(err)
	}
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: corev1.PodSpec{
		NodeName:                      "node-1",
		TerminationGracePeriodSeconds: ptr.To[int64](45),
		Containers:                    []corev1.Container{{Name: "c", Image: "busybox", ImagePullPolicy: corev1.PullAlways, TerminationMessagePolicy: corev1.TerminationMessageReadFile}},
		RestartPolicy:                 corev1.RestartPolicyAlways,
		DNSPolicy:                     corev1.DNSClusterFirst,
	}}
	if _, err := st.Pod.Create(ctx, p, nil, &metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	out, deleted, err := st.Pod.Delete(ctx, "p", nil, &metav1.DeleteOptions{})
	if err != nil || deleted {
		t.Fatalf("%v deleted=%v", err, deleted)
	}
	got := out.(*corev1.Pod)
	if got.DeletionGracePeriodSeconds == nil || *got.DeletionGracePeriodSeconds != 45 || got.DeletionTimestamp == nil {
		t.Fatalf("pod after graceful delete: %+v", got.ObjectMeta)
	}
	if _, deleted, err := st.Pod.Delete(ctx, "p", nil, &metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil || !deleted {
		t.Fatalf("forced delete: %v deleted=%v", err, deleted)
	}
}

func TestListSelection(t *testing.T) {
	s := configMaps(t)
	for _, name := range []string{"a", "b", "c"} {
		cm := newConfigMap(name)
		cm.Labels = map[string]string{"tier": map[string]string{"a": "web", "b": "web", "c": "db"}[name]}
		create(t, s, cm)
	}
	list, err := s.List(ctx, &metav1.ListOptions{LabelSelector: "tier=web"})
	if err != nil || len(list.(*corev1.ConfigMapList).Items) != 2 {
		t.Fatalf("label selection: %v %v", list, err)
	}
	list, err = s.List(ctx, &metav1.ListOptions{FieldSelector: "metadata.name=c"})
	if err != nil || len(list.(*corev1.ConfigMapList).Items) != 1 {
		t.Fatalf("name selection: %v %v", list, err)
	}
	_, err = s.List(ctx, &metav1.ListOptions{FieldSelector: "spec.foo=bar"})
	if !apierrors.IsBadRequest(err) || err.Error() != `"spec.foo" is not a known field selector: only "metadata.name", "metadata.namespace"` {
		t.Fatalf("unknown field: %v", err)
	}
	deleted, err := s.DeleteCollection(ctx, nil, &metav1.DeleteOptions{}, &metav1.ListOptions{LabelSelector: "tier=web"})
	if err != nil || len(deleted.(*corev1.ConfigMapList).Items) != 2 {
		t.Fatalf("deletecollection: %v %v", deleted, err)
	}
	list, _ = s.List(ctx, &metav1.ListOptions{})
	if items := list.(*corev1.ConfigMapList).Items; len(items) != 1 || items[0].Name != "c" {
		t.Errorf("left after deletecollection: %v", items)
	}
}

func TestNamesThatWouldEscapeTheirKey(t *testing.T) {
	s := configMaps(t)
	for _, name := range []string{"..", "a/b", "a%2Fb"} {
		if _, err := s.Get(ctx, name, &metav1.GetOptions{}); !apierrors.IsBadRequest(err) {
			t.Errorf("get %q: %v", name, err)
		}
	}
}

package wardle

import (
	"context"
	"testing"
	"time"

	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
)

// update is a rest.UpdatedObjectInfo that sets a flunder's reference.
type update string

func (u update) Preconditions() *metav1.Preconditions { return nil }
func (u update) UpdatedObject(_ context.Context, old runtime.Object) (runtime.Object, error) {
	f := old.(*Flunder).DeepCopy()
	f.Spec.Reference = string(u)
	return f, nil
}

var _ rest.UpdatedObjectInfo = update("")

func next(t *testing.T, w watch.Interface) (watch.EventType, string, string) {
	t.Helper()
	select {
	case e := <-w.ResultChan():
		f := e.Object.(*Flunder)
		return e.Type, f.Name, f.Spec.Reference
	case <-time.After(10 * time.Second):
		t.Fatal("no event")
		return "", "", ""
	}
}

// A watch from a resource version the store handed out sees every change
// after it, in order, and only in its namespace and selection.
func TestStoreWatchFromResourceVersion(t *testing.T) {
	s := newStore()
	defer s.Destroy()
	ctx := genericapirequest.WithNamespace(context.Background(), "ns")
	other := genericapirequest.WithNamespace(context.Background(), "other")

	created, err := s.Create(ctx, &Flunder{ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{"app": "x"}}}, nil, &metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	from := created.(*Flunder).ResourceVersion
	if _, _, err := s.Update(ctx, "a", update("one"), nil, nil, false, &metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(other, &Flunder{ObjectMeta: metav1.ObjectMeta{Name: "elsewhere", Labels: map[string]string{"app": "x"}}}, nil, &metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(ctx, &Flunder{ObjectMeta: metav1.ObjectMeta{Name: "unlabelled"}}, nil, &metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	w, err := s.Watch(ctx, &metainternalversion.ListOptions{ResourceVersion: from, LabelSelector: labels.SelectorFromSet(labels.Set{"app": "x"})})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if _, _, err := s.Update(ctx, "a", update("two"), nil, nil, false, &metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DeleteCollection(ctx, nil, &metav1.DeleteOptions{}, &metainternalversion.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []struct {
		t         watch.EventType
		name, ref string
	}{{watch.Modified, "a", "one"}, {watch.Modified, "a", "two"}, {watch.Deleted, "a", "two"}} {
		if typ, name, ref := next(t, w); typ != want.t || name != want.name || ref != want.ref {
			t.Errorf("event %s %s %q, want %s %s %q", typ, name, ref, want.t, want.name, want.ref)
		}
	}
	list, err := s.List(genericapirequest.WithNamespace(context.Background(), ""), &metainternalversion.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if items := list.(*FlunderList).Items; len(items) != 1 || items[0].Name != "elsewhere" {
		t.Errorf("after deleting the collection of ns, the store holds %+v, want only other/elsewhere", items)
	}
}

// An update based on an old resource version is refused with a conflict.
func TestStoreUpdateConflict(t *testing.T) {
	s := newStore()
	defer s.Destroy()
	ctx := genericapirequest.WithNamespace(context.Background(), "ns")
	created, err := s.Create(ctx, &Flunder{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, nil, &metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Update(ctx, "a", update("one"), nil, nil, false, &metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	stale := rest.DefaultUpdatedObjectInfo(created)
	_, _, err = s.Update(ctx, "a", stale, nil, nil, false, &metav1.UpdateOptions{})
	if status, ok := err.(interface{ Status() metav1.Status }); !ok || status.Status().Reason != metav1.StatusReasonConflict {
		t.Errorf("updating with a stale resource version: %v, want a Conflict", err)
	}
}

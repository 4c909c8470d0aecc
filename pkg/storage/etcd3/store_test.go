package etcd3_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/kapi-dev/kapi/pkg/storage"
)

func TestCreateStoresWhatKubeAPIServerStores(t *testing.T) {
	e := newEnv(t)
	in := configMap("default", "app", nil, map[string]string{"k": "v"})
	in.SelfLink = "/api/v1/namespaces/default/configmaps/app"
	out := e.create(t, in)

	resp, err := e.client.Get(context.Background(), e.prefix+"/configmaps/default/app")
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) != 1 {
		t.Fatalf("nothing stored at %s/configmaps/default/app", e.prefix)
	}
	kv := resp.Kvs[0]
	if got := rvOf(t, out); got != uint64(kv.ModRevision) {
		t.Errorf("resourceVersion of the created object = %d, want the revision of the write, %d", got, kv.ModRevision)
	}

	// The value is kube-apiserver's: protobuf in the "k8s\x00" envelope,
	// readable by the upstream serializer, without resourceVersion or
	// selfLink.
	if !bytes.HasPrefix(kv.Value, []byte("k8s\x00")) {
		t.Fatalf("stored value starts with %q, want the protobuf envelope k8s\\x00", kv.Value[:min(len(kv.Value), 8)])
	}
	obj, gvk, err := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme).Decode(kv.Value, nil, nil)
	if err != nil {
		t.Fatalf("upstream protobuf serializer cannot decode the stored value: %v", err)
	}
	if gvk.String() != "/v1, Kind=ConfigMap" {
		t.Errorf("stored kind = %s, want v1 ConfigMap", gvk)
	}
	stored := obj.(*corev1.ConfigMap)
	if stored.ResourceVersion != "" || stored.SelfLink != "" {
		t.Errorf("stored metadata has resourceVersion %q, selfLink %q; want neither", stored.ResourceVersion, stored.SelfLink)
	}
	if stored.Name != "app" || stored.Data["k"] != "v" {
		t.Errorf("stored object = %+v", stored)
	}
}

func TestCreateExistingKey(t *testing.T) {
	e := newEnv(t)
	e.create(t, configMap("ns", "a", nil, nil))
	err := e.store.Create(context.Background(), key("ns", "a"), configMap("ns", "a", nil, nil), &corev1.ConfigMap{})
	if !storage.IsExist(err) {
		t.Fatalf("second Create = %v, want KeyExists", err)
	}
}

func TestCreateWithResourceVersion(t *testing.T) {
	e := newEnv(t)
	cm := configMap("ns", "a", nil, nil)
	cm.ResourceVersion = "12"
	err := e.store.Create(context.Background(), key("ns", "a"), cm, &corev1.ConfigMap{})
	if storage.CodeOf(err) != storage.ErrCodeInvalidObj {
		t.Fatalf("Create with a resourceVersion = %v, want InvalidObj", err)
	}
}

func TestGet(t *testing.T) {
	e := newEnv(t)
	created := e.create(t, configMap("ns", "a", nil, map[string]string{"k": "v"}))
	current := e.currentRV(t)

	tests := []struct {
		name      string
		key       string
		opts      storage.GetOptions
		want      *corev1.ConfigMap
		wantCheck func(error) bool
		wantMsg   string
	}{
		{name: "latest", key: key("ns", "a"), want: created},
		{name: "any", key: key("ns", "a"), opts: storage.GetOptions{ResourceVersion: "0"}, want: created},
		{name: "not older than current", key: key("ns", "a"), opts: storage.GetOptions{ResourceVersion: fmt.Sprint(current)}, want: created},
		{name: "missing", key: key("ns", "b"), wantCheck: storage.IsNotFound},
		{name: "missing, ignored", key: key("ns", "b"), opts: storage.GetOptions{IgnoreNotFound: true}, want: &corev1.ConfigMap{}},
		{
			name: "invalid resourceVersion", key: key("ns", "a"), opts: storage.GetOptions{ResourceVersion: "abc"},
			wantCheck: apierrors.IsBadRequest,
			wantMsg:   `invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`,
		},
		{
			name: "resourceVersion from the future", key: key("ns", "a"), opts: storage.GetOptions{ResourceVersion: "99999999"},
			wantCheck: storage.IsTooLargeResourceVersion,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "stale"}}
			err := e.store.Get(context.Background(), tt.key, tt.opts, out)
			if tt.wantCheck != nil {
				if !tt.wantCheck(err) {
					t.Fatalf("Get = %v, not the error wanted", err)
				}
				if tt.wantMsg != "" && err.Error() != tt.wantMsg {
					t.Errorf("message = %q\nwant      %q", err.Error(), tt.wantMsg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !equality.Semantic.DeepEqual(out, tt.want) {
				t.Errorf("Get = %+v\nwant  %+v", out, tt.want)
			}
		})
	}
}

func TestTooLargeResourceVersionMessage(t *testing.T) {
	e := newEnv(t)
	current := e.currentRV(t)
	err := e.store.Get(context.Background(), key("ns", "a"), storage.GetOptions{ResourceVersion: "99999999"}, &corev1.ConfigMap{})
	var se *storage.Error
	if !errors.As(err, &se) || se.Code != storage.ErrCodeTooLargeResourceVersion {
		t.Fatalf("Get = %v, want TooLargeResourceVersion", err)
	}
	// The message of kube-apiserver's 504 (errors/list-resourceversion-too-large.txt).
	if want := fmt.Sprintf("Too large resource version: 99999999, current: %d", current); se.Detail != want {
		t.Errorf("detail = %q, want %q", se.Detail, want)
	}
}

func TestGuaranteedUpdate(t *testing.T) {
	e := newEnv(t)
	created := e.create(t, configMap("ns", "a", nil, map[string]string{"n": "0"}))

	var sawRV uint64
	out := &corev1.ConfigMap{}
	err := e.store.GuaranteedUpdate(context.Background(), key("ns", "a"), out, false, nil,
		func(cur runtime.Object, meta storage.ResponseMeta) (runtime.Object, error) {
			sawRV = meta.ResourceVersion
			cm := cur.(*corev1.ConfigMap)
			if cm.ResourceVersion != created.ResourceVersion {
				t.Errorf("tryUpdate got resourceVersion %q, want %q", cm.ResourceVersion, created.ResourceVersion)
			}
			cm.Data["n"] = "1"
			return cm, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if sawRV != rvOf(t, created) {
		t.Errorf("ResponseMeta.ResourceVersion = %d, want %d", sawRV, rvOf(t, created))
	}
	if out.Data["n"] != "1" || rvOf(t, out) <= rvOf(t, created) {
		t.Errorf("updated object = %+v", out)
	}
	if got := e.get(t, "ns", "a"); !equality.Semantic.DeepEqual(got, out) {
		t.Errorf("stored %+v\nreturned %+v", got, out)
	}
}

func TestGuaranteedUpdateWithoutChangeDoesNotWrite(t *testing.T) {
	e := newEnv(t)
	created := e.create(t, configMap("ns", "a", nil, map[string]string{"n": "0"}))
	before := e.currentRV(t)
	out := e.update(t, "ns", "a", func(cm *corev1.ConfigMap) {})
	if after := e.currentRV(t); after != before {
		t.Errorf("a no-op update moved the revision from %d to %d", before, after)
	}
	if !equality.Semantic.DeepEqual(out, created) {
		t.Errorf("no-op update returned %+v\nwant %+v", out, created)
	}
}

func TestGuaranteedUpdateMissingKey(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	called := false
	err := e.store.GuaranteedUpdate(ctx, key("ns", "a"), &corev1.ConfigMap{}, false, nil,
		func(cur runtime.Object, _ storage.ResponseMeta) (runtime.Object, error) {
			called = true
			return cur, nil
		})
	if !storage.IsNotFound(err) || called {
		t.Fatalf("update of a missing key = %v (tryUpdate called: %v), want KeyNotFound without calling tryUpdate", err, called)
	}

	// With ignoreNotFound, tryUpdate starts from an empty object and the
	// result is created.
	out := &corev1.ConfigMap{}
	err = e.store.GuaranteedUpdate(ctx, key("ns", "a"), out, true, nil,
		func(cur runtime.Object, meta storage.ResponseMeta) (runtime.Object, error) {
			if !equality.Semantic.DeepEqual(cur, &corev1.ConfigMap{}) || meta.ResourceVersion != 0 {
				t.Errorf("tryUpdate got %+v, %+v; want an empty object at revision 0", cur, meta)
			}
			return configMap("ns", "a", nil, map[string]string{"created": "yes"}), nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if got := e.get(t, "ns", "a"); got.Data["created"] != "yes" || got.ResourceVersion != out.ResourceVersion {
		t.Errorf("stored %+v, returned %+v", got, out)
	}
}

func TestGuaranteedUpdateErrors(t *testing.T) {
	uid := func(s string) *types.UID { u := types.UID(s); return &u }
	str := func(s string) *string { return &s }
	errBoom := errors.New("boom")
	tests := []struct {
		name          string
		preconditions *storage.Preconditions
		tryErr        error
		wantErr       func(error) bool
		wantDetail    string
	}{{
		name:          "UID precondition",
		preconditions: &storage.Preconditions{UID: uid("other")},
		wantErr:       storage.IsConflict,
		wantDetail:    "Precondition failed: UID in precondition: other, UID in object meta: uid-a",
	}, {
		name:          "resourceVersion precondition",
		preconditions: &storage.Preconditions{ResourceVersion: str("1")},
		wantErr:       storage.IsConflict,
	}, {
		name:    "tryUpdate fails",
		tryErr:  errBoom,
		wantErr: func(err error) bool { return errors.Is(err, errBoom) },
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.create(t, configMap("ns", "a", nil, nil))
			before := e.currentRV(t)
			err := e.store.GuaranteedUpdate(context.Background(), key("ns", "a"), &corev1.ConfigMap{}, false, tt.preconditions,
				func(cur runtime.Object, _ storage.ResponseMeta) (runtime.Object, error) {
					if tt.tryErr != nil {
						return nil, tt.tryErr
					}
					t.Error("tryUpdate called although a precondition fails")
					return cur, nil
				})
			if !tt.wantErr(err) {
				t.Fatalf("GuaranteedUpdate = %v", err)
			}
			if tt.wantDetail != "" && err.(*storage.Error).Detail != tt.wantDetail {
				t.Errorf("detail = %q, want %q", err.(*storage.Error).Detail, tt.wantDetail)
			}
			if after := e.currentRV(t); after != before {
				t.Errorf("a failed update wrote: revision %d -> %d", before, after)
			}
		})
	}
}

func TestGuaranteedUpdateRetriesOnConflict(t *testing.T) {
	e := newEnv(t)
	e.create(t, configMap("ns", "a", nil, map[string]string{"n": "0"}))

	// The first attempt is overtaken by a write of n=10; the retry must
	// start from that write, not from what the first attempt read.
	var seen []string
	out := &corev1.ConfigMap{}
	err := e.store.GuaranteedUpdate(context.Background(), key("ns", "a"), out, false, nil,
		func(cur runtime.Object, _ storage.ResponseMeta) (runtime.Object, error) {
			cm := cur.(*corev1.ConfigMap)
			seen = append(seen, cm.Data["n"])
			if len(seen) == 1 {
				e.update(t, "ns", "a", func(cm *corev1.ConfigMap) { cm.Data["n"] = "10" })
			}
			n, _ := strconv.Atoi(cm.Data["n"])
			cm.Data["n"] = strconv.Itoa(n + 1)
			return cm, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(seen) != "[0 10]" {
		t.Errorf("tryUpdate saw n = %v, want [0 10]", seen)
	}
	if out.Data["n"] != "11" {
		t.Errorf("result n = %s, want 11", out.Data["n"])
	}
}

func TestGuaranteedUpdateConcurrentIncrements(t *testing.T) {
	const goroutines, increments = 8, 25
	e := newEnv(t)
	e.create(t, configMap("ns", "counter", nil, map[string]string{"n": "0"}))

	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for range goroutines {
		wg.Go(func() {
			for range increments {
				err := e.store.GuaranteedUpdate(context.Background(), key("ns", "counter"), &corev1.ConfigMap{}, false, nil,
					func(cur runtime.Object, _ storage.ResponseMeta) (runtime.Object, error) {
						cm := cur.(*corev1.ConfigMap)
						n, err := strconv.Atoi(cm.Data["n"])
						if err != nil {
							return nil, err
						}
						cm.Data["n"] = strconv.Itoa(n + 1)
						return cm, nil
					})
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got := e.get(t, "ns", "counter").Data["n"]; got != strconv.Itoa(goroutines*increments) {
		t.Errorf("counter = %s, want %d", got, goroutines*increments)
	}
}

func TestDelete(t *testing.T) {
	e := newEnv(t)
	created := e.create(t, configMap("ns", "a", nil, map[string]string{"k": "v"}))
	out := e.delete(t, "ns", "a")

	// The deleted object comes back with the revision of its deletion,
	// the resourceVersion watchers see in the DELETED event.
	if out.Data["k"] != "v" || out.UID != created.UID {
		t.Errorf("deleted object = %+v", out)
	}
	if rvOf(t, out) != e.currentRV(t) {
		t.Errorf("resourceVersion of the deleted object = %s, want the deletion revision %d", out.ResourceVersion, e.currentRV(t))
	}
	err := e.store.Get(context.Background(), key("ns", "a"), storage.GetOptions{}, &corev1.ConfigMap{})
	if !storage.IsNotFound(err) {
		t.Errorf("Get after Delete = %v, want KeyNotFound", err)
	}
	if err := e.store.Delete(context.Background(), key("ns", "a"), &corev1.ConfigMap{}, nil, nil); !storage.IsNotFound(err) {
		t.Errorf("second Delete = %v, want KeyNotFound", err)
	}
}

func TestDeleteRefused(t *testing.T) {
	uid := func(s string) *types.UID { u := types.UID(s); return &u }
	errNo := errors.New("no")
	tests := []struct {
		name          string
		preconditions *storage.Preconditions
		validate      storage.ValidateObjectFunc
		wantErr       func(error) bool
	}{{
		name:          "UID precondition",
		preconditions: &storage.Preconditions{UID: uid("other")},
		wantErr:       storage.IsConflict,
	}, {
		name:     "validation",
		validate: func(context.Context, runtime.Object) error { return errNo },
		wantErr:  func(err error) bool { return errors.Is(err, errNo) },
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.create(t, configMap("ns", "a", nil, nil))
			err := e.store.Delete(context.Background(), key("ns", "a"), &corev1.ConfigMap{}, tt.preconditions, tt.validate)
			if !tt.wantErr(err) {
				t.Fatalf("Delete = %v", err)
			}
			e.get(t, "ns", "a") // still there
		})
	}
}

func TestDeleteRetriesOnConflict(t *testing.T) {
	e := newEnv(t)
	e.create(t, configMap("ns", "a", nil, map[string]string{"n": "0"}))
	var seen []string
	out := &corev1.ConfigMap{}
	err := e.store.Delete(context.Background(), key("ns", "a"), out, nil,
		func(_ context.Context, obj runtime.Object) error {
			seen = append(seen, obj.(*corev1.ConfigMap).Data["n"])
			if len(seen) == 1 {
				e.update(t, "ns", "a", func(cm *corev1.ConfigMap) { cm.Data["n"] = "1" })
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	// Validation ran again on what was actually deleted.
	if fmt.Sprint(seen) != "[0 1]" || out.Data["n"] != "1" {
		t.Errorf("validated %v, deleted %+v; want [0 1] and n=1", seen, out.Data)
	}
}

func TestCorruptValuesAreErrorsNotPanics(t *testing.T) {
	values := map[string]string{
		"garbage":          "not an object",
		"empty":            "",
		"truncated proto":  "k8s\x00\x0a\x0d\x0a\x02v1\x12\x07Con",
		"proto of garbage": "k8s\x00\x0a\x0c\x0a\x02v1\x12\x06Secret\x12\xff\xff\xff",
	}
	for name, value := range values {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			if _, err := e.client.Put(context.Background(), e.prefix+key("ns", "bad"), value); err != nil {
				t.Fatal(err)
			}
			err := e.store.Get(context.Background(), key("ns", "bad"), storage.GetOptions{}, &corev1.ConfigMap{})
			if !storage.IsCorruptObj(err) {
				t.Errorf("Get = %v, want CorruptObj", err)
			}
			err = e.store.GetList(context.Background(), "/configmaps/ns", storage.ListOptions{Recursive: true, Predicate: storage.Everything}, &corev1.ConfigMapList{})
			if !storage.IsCorruptObj(err) {
				t.Errorf("GetList = %v, want CorruptObj", err)
			}
			err = e.store.GuaranteedUpdate(context.Background(), key("ns", "bad"), &corev1.ConfigMap{}, false, nil,
				func(cur runtime.Object, _ storage.ResponseMeta) (runtime.Object, error) { return cur, nil })
			if !storage.IsCorruptObj(err) {
				t.Errorf("GuaranteedUpdate = %v, want CorruptObj", err)
			}
		})
	}
}

func TestInvalidKeys(t *testing.T) {
	e := newEnv(t)
	for _, k := range []string{"", "/", "/configmaps/../secrets/x", "/configmaps/./x", ".."} {
		if err := e.store.Get(context.Background(), k, storage.GetOptions{}, &corev1.ConfigMap{}); err == nil {
			t.Errorf("Get(%q) succeeded, want an error", k)
		}
	}
}

func TestCurrentResourceVersion(t *testing.T) {
	e := newEnv(t)
	out := e.create(t, configMap("ns", "a", nil, nil))
	if got := e.currentRV(t); got < rvOf(t, out) {
		t.Errorf("CurrentResourceVersion = %d, older than a completed write at %s", got, out.ResourceVersion)
	}
	resp, err := e.client.Put(context.Background(), "/elsewhere", "x")
	if err != nil {
		t.Fatal(err)
	}
	if got := e.currentRV(t); got != uint64(resp.Header.Revision) {
		t.Errorf("CurrentResourceVersion = %d, want the etcd revision %d", got, resp.Header.Revision)
	}
}

// get reads a ConfigMap through the store.
func (e *env) get(t *testing.T, ns, name string) *corev1.ConfigMap {
	t.Helper()
	out := &corev1.ConfigMap{}
	if err := e.store.Get(context.Background(), key(ns, name), storage.GetOptions{}, out); err != nil {
		t.Fatalf("Get %s/%s: %v", ns, name, err)
	}
	return out
}

// An update that another writer overtakes every time retries until its
// request ends, and then stops: it returns the context's error and starts
// no further attempt.
func TestGuaranteedUpdateStopsRetryingWhenItsContextEnds(t *testing.T) {
	e := newEnv(t)
	e.create(t, configMap("ns", "a", nil, map[string]string{"n": "0"}))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const cancelAt = 3
	attempts := 0
	done := make(chan error, 1)
	go func() {
		done <- e.store.GuaranteedUpdate(ctx, key("ns", "a"), &corev1.ConfigMap{}, false, nil,
			func(cur runtime.Object, _ storage.ResponseMeta) (runtime.Object, error) {
				attempts++
				// Another writer gets in first, every time.
				e.update(t, "ns", "a", func(cm *corev1.ConfigMap) { cm.Data["other"] = strconv.Itoa(attempts) })
				if attempts == cancelAt {
					cancel()
				}
				cm := cur.(*corev1.ConfigMap)
				cm.Data["mine"] = strconv.Itoa(attempts)
				return cm, nil
			})
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("GuaranteedUpdate = %v, want the context's error", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the update was still retrying a minute after its context ended")
	}
	if attempts != cancelAt {
		t.Errorf("%d attempts, want %d: none may start after the context ended", attempts, cancelAt)
	}
}

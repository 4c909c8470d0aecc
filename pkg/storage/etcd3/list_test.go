package etcd3_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kapi-dev/kapi/pkg/storage"
)

// list runs GetList and returns the list.
func (e *env) list(t *testing.T, key string, opts storage.ListOptions) *corev1.ConfigMapList {
	t.Helper()
	out := &corev1.ConfigMapList{}
	if err := e.store.GetList(context.Background(), key, opts, out); err != nil {
		t.Fatalf("GetList %s: %v", key, err)
	}
	return out
}

func names(l *corev1.ConfigMapList) []string {
	var n []string
	for _, cm := range l.Items {
		n = append(n, cm.Name)
	}
	return n
}

func TestGetListStaysBelowThePrefix(t *testing.T) {
	e := newEnv(t)
	e.create(t, configMap("a", "x", nil, nil))
	e.create(t, configMap("ab", "y", nil, nil))
	got := e.list(t, "/configmaps/a", storage.ListOptions{Recursive: true, Predicate: storage.Everything})
	if !slices.Equal(names(got), []string{"x"}) {
		t.Errorf("listing namespace a returned %v, want [x] (not ab's objects)", names(got))
	}
}

func TestGetListReturnsEveryObjectWithItsResourceVersion(t *testing.T) {
	e := newEnv(t)
	a := e.create(t, configMap("ns", "a", nil, nil))
	b := e.create(t, configMap("other", "b", nil, nil))
	got := e.list(t, "/configmaps", storage.ListOptions{Recursive: true, Predicate: storage.Everything})
	if len(got.Items) != 2 || got.Items[0].ResourceVersion != a.ResourceVersion || got.Items[1].ResourceVersion != b.ResourceVersion {
		t.Errorf("items = %+v", got.Items)
	}
	if rvOf(t, got) != e.currentRV(t) {
		t.Errorf("list resourceVersion = %s, want the current revision %d", got.ResourceVersion, e.currentRV(t))
	}
	if got.Continue != "" || got.RemainingItemCount != nil {
		t.Errorf("an unpaged list has continue %q, remainingItemCount %v", got.Continue, got.RemainingItemCount)
	}
}

func TestGetListEmpty(t *testing.T) {
	e := newEnv(t)
	got := e.list(t, "/configmaps", storage.ListOptions{Recursive: true, Predicate: storage.Everything})
	if got.Items == nil || len(got.Items) != 0 {
		t.Errorf("items = %#v, want an empty, non-nil slice", got.Items)
	}
	if got.ResourceVersion == "" {
		t.Error("an empty list has no resourceVersion")
	}
}

func TestGetListOfOneKey(t *testing.T) {
	e := newEnv(t)
	e.create(t, configMap("ns", "a", map[string]string{"app": "x"}, nil))
	e.create(t, configMap("ns", "ab", nil, nil))
	tests := []struct {
		name string
		key  string
		pred storage.SelectionPredicate
		want []string
	}{
		{"present", key("ns", "a"), storage.Everything, []string{"a"}},
		{"missing", key("ns", "zz"), storage.Everything, nil},
		{"selected", key("ns", "a"), selector("app=x"), []string{"a"}},
		{"not selected", key("ns", "a"), selector("app=y"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := e.list(t, tt.key, storage.ListOptions{Predicate: tt.pred})
			if !slices.Equal(names(got), tt.want) {
				t.Errorf("items %v, want %v", names(got), tt.want)
			}
		})
	}
}

func TestGetListResourceVersion(t *testing.T) {
	e := newEnv(t)
	v1 := e.create(t, configMap("ns", "a", nil, map[string]string{"v": "1"}))
	v2 := e.update(t, "ns", "a", func(cm *corev1.ConfigMap) { cm.Data["v"] = "2" })
	current := e.currentRV(t)

	tests := []struct {
		name      string
		rv, match string
		limit     int64
		wantData  string // value of "v" seen
		wantRV    uint64 // resourceVersion of the list
		wantErr   func(error) bool
		wantMsg   string
	}{
		{name: "latest", wantData: "2", wantRV: current},
		{name: "any", rv: "0", wantData: "2", wantRV: current},
		{name: "not older than an old revision", rv: v1.ResourceVersion, match: "NotOlderThan", wantData: "2", wantRV: current},
		{name: "not older than the future", rv: "99999999", match: "NotOlderThan", wantErr: storage.IsTooLargeResourceVersion},
		{name: "exact old revision", rv: v1.ResourceVersion, match: "Exact", wantData: "1", wantRV: rvOf(t, v1)},
		{name: "exact current revision", rv: v2.ResourceVersion, match: "Exact", wantData: "2", wantRV: rvOf(t, v2)},
		{name: "exact future revision", rv: "99999999", match: "Exact", wantErr: storage.IsTooLargeResourceVersion},
		// Beyond etcd's int64 revisions, not wrapped round to "the latest".
		{name: "exact revision beyond int64", rv: "18446744073709551615", match: "Exact", wantErr: storage.IsTooLargeResourceVersion},
		{name: "legacy paged list beyond int64", rv: "9223372036854775808", limit: 10, wantErr: storage.IsTooLargeResourceVersion},
		{name: "legacy paged list pins the revision", rv: v1.ResourceVersion, limit: 10, wantData: "1", wantRV: rvOf(t, v1)},
		{name: "legacy unpaged list reads the latest", rv: v1.ResourceVersion, wantData: "2", wantRV: current},
		{
			name: "invalid resourceVersion", rv: "x1", wantErr: apierrors.IsBadRequest,
			wantMsg: `invalid resource version: resourceVersion: Invalid value: "x1": strconv.ParseUint: parsing "x1": invalid syntax`,
		},
		{name: "unknown match", rv: "1", match: "Newest", wantErr: apierrors.IsBadRequest, wantMsg: "unknown ResourceVersionMatch value: Newest"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := storage.ListOptions{
				Recursive: true, ResourceVersion: tt.rv, ResourceVersionMatch: tt.match,
				Predicate: storage.SelectionPredicate{Limit: tt.limit},
			}
			out := &corev1.ConfigMapList{}
			err := e.store.GetList(context.Background(), "/configmaps/ns", opts, out)
			if tt.wantErr != nil {
				if !tt.wantErr(err) {
					t.Fatalf("GetList = %v, not the error wanted", err)
				}
				if tt.wantMsg != "" && err.Error() != tt.wantMsg {
					t.Errorf("message = %q, want %q", err.Error(), tt.wantMsg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Items) != 1 || out.Items[0].Data["v"] != tt.wantData {
				t.Fatalf("items = %+v, want one with v=%s", out.Items, tt.wantData)
			}
			if rvOf(t, out) != tt.wantRV {
				t.Errorf("list resourceVersion = %s, want %d", out.ResourceVersion, tt.wantRV)
			}
		})
	}
}

func TestGetListPagesWithSelector(t *testing.T) {
	e := newEnv(t)
	var want []string
	for i := range 40 {
		lbls := map[string]string{}
		if i%3 == 0 {
			lbls["pick"] = "yes"
			want = append(want, fmt.Sprintf("cm%02d", i))
		}
		e.create(t, configMap("ns", fmt.Sprintf("cm%02d", i), lbls, nil))
	}

	const limit = 4
	var (
		got     []string
		pages   int
		firstRV string
		token   string
	)
	for {
		pred := selector("pick=yes")
		pred.Limit, pred.Continue = limit, token
		page := e.list(t, "/configmaps/ns", storage.ListOptions{Recursive: true, Predicate: pred})
		pages++
		if pages == 1 {
			firstRV = page.ResourceVersion
			// Writes after the first page do not show in later ones.
			e.create(t, configMap("ns", "cm39a", map[string]string{"pick": "yes"}, nil))
			e.delete(t, "ns", "cm39")
		}
		if page.ResourceVersion != firstRV {
			t.Errorf("page %d read at %s, the first at %s", pages, page.ResourceVersion, firstRV)
		}
		if page.RemainingItemCount != nil {
			t.Errorf("page %d has remainingItemCount %d; with a selector it is unknown", pages, *page.RemainingItemCount)
		}
		got = append(got, names(page)...)
		token = page.Continue
		if token == "" {
			break
		}
		// Only the last page may be short, however many objects the
		// selector drops.
		if len(page.Items) != limit {
			t.Errorf("page %d has %d items, want %d", pages, len(page.Items), limit)
		}
		if pages > 20 {
			t.Fatal("paging does not end")
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("paged list = %v\nwant          %v", got, want)
	}
	if pages != 4 {
		t.Errorf("%d pages, want 4 (14 objects, 4 a page)", pages)
	}
}

func TestGetListRemainingItemCount(t *testing.T) {
	e := newEnv(t)
	for i := range 10 {
		e.create(t, configMap("ns", fmt.Sprintf("cm%d", i), nil, nil))
	}
	var remaining []string
	token := ""
	for {
		page := e.list(t, "/configmaps/ns", storage.ListOptions{
			Recursive: true, Predicate: storage.SelectionPredicate{Limit: 3, Continue: token},
		})
		if page.RemainingItemCount == nil {
			remaining = append(remaining, "nil")
		} else {
			remaining = append(remaining, fmt.Sprint(*page.RemainingItemCount))
		}
		if token = page.Continue; token == "" {
			break
		}
	}
	if fmt.Sprint(remaining) != "[7 4 1 nil]" {
		t.Errorf("remainingItemCount of the pages = %v, want [7 4 1 nil]", remaining)
	}
}

func TestContinueTokenFormat(t *testing.T) {
	e := newEnv(t)
	for _, n := range []string{"a", "b", "c"} {
		e.create(t, configMap("ns", n, nil, nil))
	}
	page := e.list(t, "/configmaps/ns", storage.ListOptions{Recursive: true, Predicate: storage.SelectionPredicate{Limit: 2}})
	raw, err := base64.RawURLEncoding.DecodeString(page.Continue)
	if err != nil {
		t.Fatalf("continue token %q is not unpadded base64url: %v", page.Continue, err)
	}
	// Byte for byte what kube-apiserver hands out for the same list.
	want := fmt.Sprintf(`{"v":"meta.k8s.io/v1","rv":%s,"start":"b\u0000"}`, page.ResourceVersion)
	if string(raw) != want {
		t.Errorf("continue token decodes to %s\nwant                     %s", raw, want)
	}
}

func TestContinueTokenChecks(t *testing.T) {
	e := newEnv(t)
	for _, n := range []string{"a", "b", "c"} {
		e.create(t, configMap("ns", n, nil, nil))
	}
	page := e.list(t, "/configmaps/ns", storage.ListOptions{Recursive: true, Predicate: storage.SelectionPredicate{Limit: 1}})
	traversal := base64.RawURLEncoding.EncodeToString([]byte(`{"v":"meta.k8s.io/v1","rv":5,"start":"../../secrets/"}`))

	tests := []struct {
		name    string
		rv      string
		token   string
		wantMsg string
	}{
		{"resourceVersion with continue", page.ResourceVersion, page.Continue, "specifying resource version is not allowed when using continue"},
		{"path traversal", "", traversal, "invalid continue token: continue key is not valid: ../../secrets/"},
		{"garbage", "", "eyJ", "invalid continue token: continue key is not valid: unexpected end of JSON input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := e.store.GetList(context.Background(), "/configmaps/ns", storage.ListOptions{
				Recursive: true, ResourceVersion: tt.rv, Predicate: storage.SelectionPredicate{Limit: 1, Continue: tt.token},
			}, &corev1.ConfigMapList{})
			if !apierrors.IsBadRequest(err) || err.Error() != tt.wantMsg {
				t.Errorf("GetList = %v, want BadRequest %q", err, tt.wantMsg)
			}
		})
	}

	// resourceVersion "0" is allowed with continue.
	out := e.list(t, "/configmaps/ns", storage.ListOptions{
		Recursive: true, ResourceVersion: "0", Predicate: storage.SelectionPredicate{Limit: 1, Continue: page.Continue},
	})
	if !slices.Equal(names(out), []string{"b"}) {
		t.Errorf("continued list = %v, want [b]", names(out))
	}
}

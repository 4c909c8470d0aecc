package remote

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// TestGet: a request reaches the server behind the APIService at the
// path and query asked, below the base URL's path, with the user in
// front-proxy headers.
func TestGet(t *testing.T) {
	var got *http.Request
	s := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r
		w.Header().Set("Etag", `"x"`)
		w.WriteHeader(http.StatusTeapot)
		_, _ = w.Write([]byte("body"))
	}))
	defer s.Close()
	transport := func(*apiregistrationv1.APIService) (http.RoundTripper, *url.URL, error) {
		u, _ := url.Parse(s.URL + "/base/")
		return s.Client().Transport, u, nil
	}
	resp, err := Get(context.Background(), transport, &apiregistrationv1.APIService{}, "/openapi/v3/apis/g/v?hash=AB", User{
		Name: "alice", Groups: []string{"a", "b"}, Extra: map[string][]string{"example.com/key": {"1", "2"}},
	}, http.Header{"Accept": {"application/json"}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusTeapot || string(resp.Body) != "body" || resp.Header.Get("Etag") != `"x"` {
		t.Errorf("response = %d %q %v", resp.StatusCode, resp.Body, resp.Header)
	}
	if got.URL.Path != "/base/openapi/v3/apis/g/v" || got.URL.RawQuery != "hash=AB" {
		t.Errorf("asked for %s", got.URL)
	}
	want := http.Header{
		"X-Remote-User":                    {"alice"},
		"X-Remote-Group":                   {"a", "b"},
		"X-Remote-Extra-Example.com%2fkey": {"1", "2"},
		"Accept":                           {"application/json"},
	}
	for k, v := range want {
		if !reflect.DeepEqual(got.Header[k], v) {
			t.Errorf("header %s = %q, want %q", k, got.Header[k], v)
		}
	}
}

type recorder struct{ added, removed []string }

func (r *recorder) AddAPIService(a *apiregistrationv1.APIService) { r.added = append(r.added, a.Name) }
func (r *recorder) RemoveAPIService(name string)                  { r.removed = append(r.removed, name) }

// TestEventHandler: adds and updates are additions, deletes (tombstones
// too) removals.
func TestEventHandler(t *testing.T) {
	r := &recorder{}
	h := EventHandler(r)
	a := &apiregistrationv1.APIService{ObjectMeta: metav1.ObjectMeta{Name: "v1.example.com"}}
	h.OnAdd(a, false)
	h.OnUpdate(a, a)
	h.OnDelete(a)
	h.OnDelete(cache.DeletedFinalStateUnknown{Key: a.Name, Obj: a})
	if !reflect.DeepEqual(r.added, []string{a.Name, a.Name}) || !reflect.DeepEqual(r.removed, []string{a.Name, a.Name}) {
		t.Errorf("added %v, removed %v", r.added, r.removed)
	}
}

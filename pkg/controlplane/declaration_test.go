package controlplane

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	runtimepkg "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilnet "k8s.io/apimachinery/pkg/util/net"

	"github.com/kapi-dev/kapi/internal/required"
	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/authentication/authenticator"
	"github.com/kapi-dev/kapi/pkg/endpoints"
	"github.com/kapi-dev/kapi/pkg/endpoints/discovery"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/openapi"
	"github.com/kapi-dev/kapi/pkg/printers"
	"github.com/kapi-dev/kapi/pkg/registry/core/serviceaccount"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
	"github.com/kapi-dev/kapi/pkg/server"
	sa "github.com/kapi-dev/kapi/pkg/serviceaccount"
	"github.com/kapi-dev/kapi/pkg/storage"
	"github.com/kapi-dev/kapi/pkg/storage/storagebackend"
)

// unreachedStorage makes storage for resources that the tests install but
// never call: an etcd3 store without a client. It records the resources
// whose storage was built.
type unreachedStorage struct {
	built []schema.GroupResource
}

func (f *unreachedStorage) NewStorage(resource schema.GroupResource, hub schema.GroupVersion, mediaType string, newFunc, newListFunc func() runtimepkg.Object) (storage.Interface, error) {
	f.built = append(f.built, resource)
	return (&storagebackend.Factory{Prefix: "/registry"}).NewStorage(resource, hub, mediaType, newFunc, newListFunc)
}

func testConfig(t *testing.T, rc RuntimeConfig) (Config, *unreachedStorage) {
	t.Helper()
	_, serviceRange, err := net.ParseCIDR("10.96.0.0/12")
	if err != nil {
		t.Fatal(err)
	}
	f := &unreachedStorage{}
	return Config{
		RESTOptions:           generic.RESTOptions{StorageFactory: f, TableConvertor: printers.New()},
		ServiceClusterIPRange: serviceRange,
		ServiceNodePortRange:  utilnet.PortRange{Base: 30000, Size: 2768},
		RuntimeConfig:         rc,
		PublicAddress:         net.ParseIP("192.0.2.2"),
		SecurePort:            6443,
		// With an authenticator and a token signer, tokenreviews and
		// serviceaccounts/token are served too.
		Authenticator:        authenticator.RequestFunc(func(*http.Request) (*authenticator.Response, bool, error) { return nil, false, nil }),
		ServiceAccountTokens: serviceaccount.TokenConfig{Signer: unusedSigner{}},
	}, f
}

// unusedSigner is the token signer of servers whose tokens the tests never
// ask for.
type unusedSigner struct{}

func (unusedSigner) Sign(*sa.Claims) (string, error) {
	return "", errors.New("not signing in this test")
}

// kube is a kube server built for a test, with the discovery and OpenAPI
// documents it published.
type kube struct {
	*server.GenericAPIServer
	discovery *discovery.Handler
	openapi   *openapi.Service
}

func newKube(t *testing.T, cfg Config) *kube {
	t.Helper()
	disc := discovery.NewRegistry()
	oa := openapi.NewService(openapi.Config{Scheme: scheme.Scheme})
	cfg.OpenAPI = server.NewOpenAPIResources(oa)
	s, err := New(cfg, server.NotFoundServer{}, disc)
	if err != nil {
		t.Fatal(err)
	}
	return &kube{GenericAPIServer: s, discovery: &discovery.Handler{Registry: disc}, openapi: oa}
}

// resources returns the legacy discovery document of gv, nil if gv is
// not served.
func (k *kube) resources(t *testing.T, gv schema.GroupVersion) []metav1.APIResource {
	t.Helper()
	w := httptest.NewRecorder()
	if !k.discovery.ServeResources(w, httptest.NewRequest(http.MethodGet, "/", nil), gv) {
		return nil
	}
	var list metav1.APIResourceList
	if err := json.Unmarshal(w.Body.Bytes(), &list); err != nil {
		t.Fatal(err)
	}
	return list.APIResources
}

// declared builds every provider's storage, as the kube server does.
func declared(t *testing.T, cfg Config) map[schema.GroupVersion]map[string]rest.Storage {
	t.Helper()
	out := map[schema.GroupVersion]map[string]rest.Storage{}
	for _, p := range providers(cfg) {
		versions, err := p.NewRESTStorage(cfg.RESTOptions, func(string) bool { return true })
		if err != nil {
			t.Fatalf("provider of %q: %v", p.GroupName(), err)
		}
		if len(versions) == 0 {
			t.Errorf("provider of %q declares no version", p.GroupName())
		}
		for v, paths := range versions {
			out[schema.GroupVersion{Group: p.GroupName(), Version: v}] = paths
		}
	}
	return out
}

// The providers are the only list of what the kube server serves: every
// declared path is in discovery and in the OpenAPI document of its group
// version, and discovery has nothing that was not declared.
func TestDiscoveryAndOpenAPIFollowTheDeclaration(t *testing.T) {
	cfg, _ := testConfig(t, nil)
	k := newKube(t, cfg)
	for gv, paths := range declared(t, cfg) {
		served := map[string]bool{}
		for _, r := range k.resources(t, gv) {
			if paths[r.Name] == nil {
				t.Errorf("%s: discovery has %s, which no provider declares", gv, r.Name)
			}
			served[r.Name] = true
		}
		doc := k.openAPIPaths(t, gv)
		for path, st := range paths {
			if !served[path] {
				t.Errorf("%s: %s is declared but not in discovery", gv, path)
			}
			if p := openAPIPath(gv, path, isNamespaced(st), isGetter(st)); !doc[p] {
				t.Errorf("%s: %s is declared but its OpenAPI document has no path %s", gv, path, p)
			}
		}
	}
}

func isNamespaced(s rest.Storage) bool {
	sc, ok := s.(rest.Scoper)
	return ok && sc.NamespaceScoped()
}

// openAPIPath is the path of the OpenAPI operations on one object of a
// resource, or on the collection of a resource served only by POST
// (bindings).
func isGetter(s rest.Storage) bool {
	_, ok := s.(rest.Getter)
	return ok
}

func openAPIPath(gv schema.GroupVersion, path string, namespaced, getter bool) string {
	root := "/apis/" + gv.String()
	if gv.Group == "" {
		root = "/api/" + gv.Version
	}
	resource, sub, _ := strings.Cut(path, "/")
	if namespaced {
		root += "/namespaces/{namespace}"
	}
	p := root + "/" + resource
	if sub == "" && !getter {
		// A resource that is only created (bindings, reviews) has no
		// object path.
		return p
	}
	if resource == "namespaces" && !namespaced {
		// The namespace object's own name fills the {name} slot.
		p = root + "/namespaces/{name}"
	} else {
		p += "/{name}"
	}
	if sub != "" {
		p += "/" + sub
	}
	return p
}

// openAPIPaths returns the paths of the OpenAPI v3 document of gv.
func (k *kube) openAPIPaths(t *testing.T, gv schema.GroupVersion) map[string]bool {
	t.Helper()
	url := "/openapi/v3/apis/" + gv.String()
	if gv.Group == "" {
		url = "/openapi/v3/api/" + gv.Version
	}
	w := httptest.NewRecorder()
	k.openapi.ServeHTTP(w, httptest.NewRequest(http.MethodGet, url, nil))
	if w.Code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, w.Code, w.Body)
	}
	var doc struct {
		Paths map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for p := range doc.Paths {
		out[p] = true
	}
	return out
}

// Each resource's discovery entry (kind, scope, verbs, singular and short
// names, categories, storage version hash, the Scale kind of /scale) is
// the one kube-apiserver 1.37 publishes.
func TestDiscoveryMatchesKubeAPIServer(t *testing.T) {
	cfg, _ := testConfig(t, nil)
	k := newKube(t, cfg)
	for gv := range declared(t, cfg) {
		t.Run(gv.String(), func(t *testing.T) {
			file := "discovery/api_v1.json"
			if gv.Group != "" {
				file = "discovery/apis/" + gv.Group + "_" + gv.Version + ".json"
			}
			var want metav1.APIResourceList
			if err := json.Unmarshal(required.ReadReference(t, file), &want); err != nil {
				t.Fatal(err)
			}
			byName := map[string]metav1.APIResource{}
			for _, r := range want.APIResources {
				byName[r.Name] = r
			}
			for _, got := range k.resources(t, gv) {
				w, ok := byName[got.Name]
				if !ok {
					t.Errorf("%s is not served by kube-apiserver", got.Name)
					continue
				}
				if diff := cmp.Diff(w, got); diff != "" {
					t.Errorf("%s differs from kube-apiserver's (-want +got):\n%s", got.Name, diff)
				}
			}
		})
	}
}

// apiResource is one line of `kubectl api-resources -o wide`.
type apiResource struct {
	Name, ShortNames, APIVersion, Namespaced, Kind, Verbs, Categories string
}

// readAPIResources parses the recorded `kubectl api-resources -o wide`,
// whose columns start where their headers do.
func readAPIResources(t *testing.T) []apiResource {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(required.ReadReference(t, "api-resources-wide.txt")))
	if !sc.Scan() {
		t.Fatal("api-resources-wide.txt is empty")
	}
	header := sc.Text()
	var starts []int
	for _, h := range []string{"NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND", "VERBS", "CATEGORIES"} {
		i := strings.Index(header, h)
		if i < 0 {
			t.Fatalf("api-resources-wide.txt has no column %s", h)
		}
		starts = append(starts, i)
	}
	var out []apiResource
	for sc.Scan() {
		line := sc.Text()
		col := func(i int) string {
			end := len(line)
			if i+1 < len(starts) {
				end = min(starts[i+1], len(line))
			}
			if starts[i] >= end {
				return ""
			}
			return strings.TrimSpace(line[starts[i]:end])
		}
		out = append(out, apiResource{col(0), col(1), col(2), col(3), col(4), col(5), col(6)})
	}
	return out
}

// Each provider's resources appear in `kubectl api-resources -o wide` as
// they do against kube-apiserver 1.37.
func TestProvidersMatchAPIResources(t *testing.T) {
	cfg, _ := testConfig(t, nil)
	want := map[[2]string]apiResource{}
	listed := map[string]bool{} // the group versions api-resources shows
	for _, r := range readAPIResources(t) {
		want[[2]string{r.APIVersion, r.Name}] = r
		listed[r.APIVersion] = true
	}
	for _, p := range providers(cfg) {
		name := p.GroupName()
		if name == "" {
			name = "core"
		}
		t.Run(name, func(t *testing.T) {
			versions, err := p.NewRESTStorage(cfg.RESTOptions, func(string) bool { return true })
			if err != nil {
				t.Fatal(err)
			}
			for version, paths := range versions {
				gv := schema.GroupVersion{Group: p.GroupName(), Version: version}
				if len(versions) > 1 && !listed[gv.String()] {
					continue // kubectl lists a group's preferred version only
				}
				h, err := (&endpoints.APIGroupVersion{GroupVersion: gv, Storage: paths, Scheme: scheme.Scheme, Serializer: scheme.Codecs}).Install()
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range h.Discovery() {
					if strings.Contains(r.Name, "/") {
						continue // kubectl lists no subresources
					}
					got := apiResource{
						Name: r.Name, ShortNames: strings.Join(r.ShortNames, ","), APIVersion: gv.String(),
						Namespaced: map[bool]string{true: "true", false: "false"}[r.Namespaced], Kind: r.Kind,
						Verbs: strings.Join(slices.Sorted(slices.Values(r.Verbs)), ","), Categories: strings.Join(r.Categories, ","),
					}
					if w, ok := want[[2]string{gv.String(), r.Name}]; !ok {
						t.Errorf("%s %s is not in kube-apiserver's api-resources", gv, r.Name)
					} else if w != got {
						t.Errorf("%s %s:\n got %+v\nwant %+v", gv, r.Name, got, w)
					}
				}
			}
		})
	}
}

// Groups are listed in /apis in kube-apiserver's order, which their
// providers' priorities give.
func TestGroupOrderMatchesKubeAPIServer(t *testing.T) {
	cfg, _ := testConfig(t, nil)
	k := newKube(t, cfg)
	w := httptest.NewRecorder()
	k.discovery.ServeGroups(w, httptest.NewRequest(http.MethodGet, "/apis", nil))
	var got, want metav1.APIGroupList
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(required.ReadReference(t, "discovery/apis.json"), &want); err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	var gotNames, wantNames []string
	for _, g := range got.Groups {
		served[g.Name] = true
		gotNames = append(gotNames, g.Name)
	}
	for _, g := range want.Groups {
		if served[g.Name] {
			wantNames = append(wantNames, g.Name)
		}
	}
	if len(gotNames) < 3 || !slices.Equal(gotNames, wantNames) {
		t.Errorf("groups in /apis: got %v, want kube-apiserver's order %v", gotNames, wantNames)
	}
}

// --runtime-config switches group versions off: they are neither served
// nor is their storage built.
func TestRuntimeConfigSwitchesGroupVersionsOff(t *testing.T) {
	rc, err := ParseRuntimeConfig(map[string]string{"apps/v1": "false"})
	if err != nil {
		t.Fatal(err)
	}
	cfg, built := testConfig(t, rc)
	k := newKube(t, cfg)
	if r := k.resources(t, schema.GroupVersion{Group: "apps", Version: "v1"}); r != nil {
		t.Errorf("apps/v1 is switched off but served: %v", r)
	}
	if r := k.resources(t, schema.GroupVersion{Group: "coordination.k8s.io", Version: "v1"}); r == nil {
		t.Error("coordination.k8s.io/v1 is not switched off but not served")
	}
	if slices.Contains(built.built, schema.GroupResource{Group: "apps", Resource: "deployments"}) {
		t.Error("the storage of deployments was built though apps/v1 is switched off")
	}

	// Without the core group the control plane has no namespaces to
	// guard and no kubernetes Service to make: no bootstrap.
	rc, err = ParseRuntimeConfig(map[string]string{"api/all": "false", "apps/v1": "true"})
	if err != nil {
		t.Fatal(err)
	}
	cfg, built = testConfig(t, rc)
	k = newKube(t, cfg)
	if r := k.resources(t, schema.GroupVersion{Version: "v1"}); r != nil {
		t.Errorf("v1 is switched off but served: %v", r)
	}
	if r := k.resources(t, schema.GroupVersion{Group: "apps", Version: "v1"}); r == nil {
		t.Error("apps/v1 is switched on but not served")
	}
	if slices.ContainsFunc(built.built, func(r schema.GroupResource) bool { return r.Group == "" }) {
		t.Errorf("core storage was built though v1 is switched off: %v", built.built)
	}
	if hooks := k.PostStartHooks(); len(hooks) != 0 {
		t.Errorf("without v1 there is nothing to bootstrap, got hooks %v", hooks)
	}
}

// A resource whose storage cannot be built fails the server's start, with
// an error that names the flag at fault.
func TestStorageErrorsNameTheirFlag(t *testing.T) {
	cfg, _ := testConfig(t, nil)
	cfg.ServiceNodePortRange = utilnet.PortRange{}
	if _, err := New(cfg, server.NotFoundServer{}, discovery.NewRegistry()); err == nil || !strings.Contains(err.Error(), "--service-node-port-range") {
		t.Errorf("an empty node port range must fail naming its flag, got %v", err)
	}
}

// The objects of each resource live under kube-apiserver's keys, so that
// an etcd written by one server is read by the other: testdata/
// storage-keys.txt holds the keys kube-apiserver wrote for one object of
// each served resource. Every served resource is in it.
func TestStorageKeysAreKubeAPIServers(t *testing.T) {
	cfg, _ := testConfig(t, nil)
	storage := declared(t, cfg)
	data, err := os.ReadFile("testdata/storage-keys.txt")
	if err != nil {
		t.Fatal(err)
	}
	recorded := map[schema.GroupVersionResource]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 5 {
			t.Fatalf("storage-keys.txt: bad line %q", line)
		}
		gv, err := schema.ParseGroupVersion(f[0])
		if err != nil {
			t.Fatal(err)
		}
		resource, namespace, name, want := f[1], f[2], f[3], f[4]
		recorded[gv.WithResource(resource)] = true
		store := storeOf(storage[gv][resource])
		if store == nil {
			t.Errorf("%s %s: not served, or without a generic.Store", gv, resource)
			continue
		}
		ctx := context.Background()
		if namespace != "-" {
			ctx = request.WithNamespace(ctx, namespace)
		}
		key, err := store.Key(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if got := "/registry" + key; got != want {
			t.Errorf("%s %s: kapi keeps %s/%s at %s, kube-apiserver at %s", gv, resource, namespace, name, got, want)
		}
	}
	for gv, paths := range storage {
		for path := range paths {
			// Resources that are never stored (bindings, reviews) have
			// no key.
			if !strings.Contains(path, "/") && path != "bindings" && storeOf(paths[path]) != nil && !recorded[gv.WithResource(path)] {
				t.Errorf("%s %s has no recorded key in testdata/storage-keys.txt", gv, path)
			}
		}
	}
}

// storeOf finds the generic.Store of a resource's storage: the storage
// itself or the one it wraps.
func storeOf(s rest.Storage) *generic.Store {
	v := reflect.ValueOf(s)
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if st, ok := v.Interface().(*generic.Store); ok {
			return st
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return nil
	}
	for i := range v.NumField() {
		if f := v.Field(i); f.Type() == reflect.TypeFor[*generic.Store]() {
			return reflect.NewAt(f.Type(), f.Addr().UnsafePointer()).Elem().Interface().(*generic.Store)
		}
	}
	return nil
}

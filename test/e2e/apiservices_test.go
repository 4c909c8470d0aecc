package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/gentype"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/client"
	"github.com/kapi-dev/kapi/pkg/testserver"
)

type apiServiceClient = *gentype.ClientWithList[*apiregistrationv1.APIService, *apiregistrationv1.APIServiceList]

// comparableAPIService is what of an APIService does not differ by
// nature between two servers: not its uid, resourceVersion and times.
type comparableAPIService struct {
	Labels     map[string]string
	Spec       apiregistrationv1.APIServiceSpec
	Conditions []apiregistrationv1.APIServiceCondition
}

func comparableOf(as *apiregistrationv1.APIService) comparableAPIService {
	out := comparableAPIService{Labels: as.Labels, Spec: as.Spec}
	for _, c := range as.Status.Conditions {
		c.LastTransitionTime = metav1.Time{}
		out.Conditions = append(out.Conditions, c)
	}
	return out
}

// A freshly started kapi, once ready, has the APIServices of a fresh
// kube-apiserver 1.37.1 (../shared/reference/.../bootstrap/apiservices*):
// one local APIService per built-in group version but the aggregator's
// own, labelled automanaged=onstart, with kube-apiserver's priorities,
// Available because local, written by the field manager kube-apiserver
// (testdata/apiservices-managedfields.json, read from the oracle).
func TestBootstrapAPIServicesMatchKubeAPIServer(t *testing.T) {
	var want apiregistrationv1.APIServiceList
	if err := yaml.Unmarshal(referenceFile(t, "bootstrap/apiservices.yaml"), &want); err != nil {
		t.Fatal(err)
	}
	wantNames := strings.Fields(string(referenceFile(t, "bootstrap/apiservices.names.txt")))
	var wantManaged map[string][]metav1.ManagedFieldsEntry
	data, err := os.ReadFile(filepath.Join("testdata", "apiservices-managedfields.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &wantManaged); err != nil {
		t.Fatal(err)
	}

	s := testserver.Start(t, testserver.Options{})
	apiServices := apiServicesClient(t, s)
	// Ready means registered: kube-apiserver's readyz check
	// autoregister-completion waits for them.
	list, err := apiServices.List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	got := map[string]*apiregistrationv1.APIService{}
	for i := range list.Items {
		names = append(names, list.Items[i].Name)
		got[list.Items[i].Name] = &list.Items[i]
	}
	if !slices.Equal(names, wantNames) {
		t.Errorf("APIServices %v, want kube-apiserver's %v", names, wantNames)
	}
	for i := range want.Items {
		w := &want.Items[i]
		g, ok := got[w.Name]
		if !ok {
			continue
		}
		if diff := cmp.Diff(comparableOf(w), comparableOf(g)); diff != "" {
			t.Errorf("%s differs from kube-apiserver's (-kube-apiserver +kapi):\n%s", w.Name, diff)
		}
		if diff := cmp.Diff(compactManagedFields(t, wantManaged[w.Name]), compactManagedFields(t, g.ManagedFields)); diff != "" {
			t.Errorf("%s managedFields differ from kube-apiserver's (-kube-apiserver +kapi):\n%s", w.Name, diff)
		}
	}
}

// A CRD's served group versions get local APIServices labelled
// automanaged=true, with kube-apiserver's priorities for CRDs, kept as
// kube-apiserver keeps them (checked on the oracle): a changed spec is put
// back, a deleted APIService comes back, and the APIService goes with the
// CRD. An unserved version gets none.
func TestCRDAPIServicesFollowTheCRD(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	apiServices := apiServicesClient(t, s)
	crds := apiextensionsClient(t, s.ClientConfig).ApiextensionsV1().CustomResourceDefinitions()
	ctx := context.Background()
	schema := &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptrTo(true)}}
	crd, err := crds.Create(ctx, &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "things.apisvc.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "apisvc.example.com",
			Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "things", Singular: "thing", Kind: "Thing"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1", Served: true, Storage: true, Schema: schema},
				{Name: "v2", Served: false, Schema: schema},
			},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	want := comparableAPIService{
		Labels: map[string]string{"kube-aggregator.kubernetes.io/automanaged": "true"},
		Spec:   apiregistrationv1.APIServiceSpec{Group: "apisvc.example.com", Version: "v1", GroupPriorityMinimum: 1000, VersionPriority: 100},
		Conditions: []apiregistrationv1.APIServiceCondition{{Type: apiregistrationv1.Available, Status: apiregistrationv1.ConditionTrue,
			Reason: "Local", Message: "Local APIServices are always available"}},
	}
	first := eventuallyAPIService(t, apiServices, "v1.apisvc.example.com", func(as *apiregistrationv1.APIService) bool {
		return as != nil && cmp.Equal(comparableOf(as), want)
	})
	if _, err := apiServices.Get(ctx, "v2.apisvc.example.com", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the unserved v2: %v, want no APIService", err)
	}

	if _, err := apiServices.Patch(ctx, first.Name, types.MergePatchType, []byte(`{"spec":{"versionPriority":7}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	eventuallyAPIService(t, apiServices, first.Name, func(as *apiregistrationv1.APIService) bool {
		return as != nil && as.Spec.VersionPriority == 100
	})
	if err := apiServices.Delete(ctx, first.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventuallyAPIService(t, apiServices, first.Name, func(as *apiregistrationv1.APIService) bool {
		return as != nil && as.UID != first.UID
	})

	if err := crds.Delete(ctx, crd.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventuallyAPIService(t, apiServices, first.Name, func(as *apiregistrationv1.APIService) bool { return as == nil })
}

// compactManagedFields leaves out the times of entries and the spaces of
// their fields.
func compactManagedFields(t *testing.T, entries []metav1.ManagedFieldsEntry) []metav1.ManagedFieldsEntry {
	t.Helper()
	var out []metav1.ManagedFieldsEntry
	for _, e := range entries {
		e.Time = nil
		if e.FieldsV1 != nil {
			var b bytes.Buffer
			if err := json.Compact(&b, e.FieldsV1.Raw); err != nil {
				t.Fatal(err)
			}
			e.FieldsV1 = &metav1.FieldsV1{Raw: b.Bytes()}
		}
		out = append(out, e)
	}
	return out
}

func apiServicesClient(t *testing.T, s *testserver.Server) apiServiceClient {
	t.Helper()
	clients, err := client.NewSet(s.ClientConfig, scheme.Scheme)
	if err != nil {
		t.Fatal(err)
	}
	return client.For[*apiregistrationv1.APIService, *apiregistrationv1.APIServiceList](clients, "apiservices", "")
}

// getAPIService returns the APIService named name, nil if there is none.
func getAPIService(t *testing.T, c apiServiceClient, name string) *apiregistrationv1.APIService {
	t.Helper()
	as, err := c.Get(context.Background(), name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return as
}

// eventuallyAPIService polls the APIService named name (nil when there is none)
// until ok, for at most a minute, and returns it.
func eventuallyAPIService(t *testing.T, c apiServiceClient, name string, ok func(*apiregistrationv1.APIService) bool) *apiregistrationv1.APIService {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		as, err := c.Get(context.Background(), name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			as = nil
		case err != nil:
			t.Fatal(err)
		}
		if ok(as) {
			return as
		}
		if time.Now().After(deadline) {
			t.Fatalf("APIService %s is %+v, still not as expected", name, as)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A built-in group version's APIService (automanaged=onstart) is the
// user's to change or delete until the next start, which puts its spec
// back (the rest kept) and creates it again; an onstart APIService no
// group version wants is deleted at that start, and one without the
// label is never touched, as on kube-apiserver 1.37.1 (checked on a
// private oracle restarted on its data).
func TestOnStartAPIServicesArePutRightAtTheNextStart(t *testing.T) {
	dir := t.TempDir()
	s1 := testserver.Start(t, testserver.Options{DataDir: dir})
	apiServices := apiServicesClient(t, s1)
	ctx := context.Background()
	patch := func(name, body string) {
		t.Helper()
		if _, err := apiServices.Patch(ctx, name, types.MergePatchType, []byte(body), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	patch("v1.apps", `{"spec":{"versionPriority":7},"metadata":{"labels":{"mine":"x"}}}`)
	patch("v1.policy", `{"spec":{"versionPriority":3},"metadata":{"labels":{"kube-aggregator.kubernetes.io/automanaged":null}}}`)
	if err := apiServices.Delete(ctx, "v1.batch", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := apiServices.Create(ctx, &apiregistrationv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: "v1.late.example.com", Labels: map[string]string{"kube-aggregator.kubernetes.io/automanaged": "onstart"}},
		Spec:       apiregistrationv1.APIServiceSpec{Group: "late.example.com", Version: "v1", GroupPriorityMinimum: 100, VersionPriority: 10},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Until the next start, what the user did stays.
	if as := getAPIService(t, apiServices, "v1.apps"); as == nil || as.Spec.VersionPriority != 7 {
		t.Errorf("v1.apps was put back before the next start: %+v", as.Spec)
	}
	if as := getAPIService(t, apiServices, "v1.batch"); as != nil {
		t.Errorf("v1.batch was created again before the next start")
	}
	if err := s1.Stop(); err != nil {
		t.Fatal(err)
	}

	s2 := testserver.Start(t, testserver.Options{DataDir: dir, Address: s1.Address})
	apiServices = apiServicesClient(t, s2)
	// Ready means registered (autoregister-completion).
	apps := getAPIService(t, apiServices, "v1.apps")
	if apps == nil || apps.Spec.VersionPriority != 15 || apps.Labels["mine"] != "x" {
		t.Errorf("v1.apps at the next start: %+v, want priority 15 and the user's label kept", apps)
	}
	if batch := getAPIService(t, apiServices, "v1.batch"); batch == nil || batch.Spec.VersionPriority != 15 {
		t.Errorf("v1.batch at the next start: %+v, want it created again", batch)
	}
	if policy := getAPIService(t, apiServices, "v1.policy"); policy == nil || policy.Spec.VersionPriority != 3 {
		t.Errorf("v1.policy, without the label, at the next start: %+v, want it left alone", policy)
	}
	eventuallyAPIService(t, apiServices, "v1.late.example.com", func(as *apiregistrationv1.APIService) bool { return as == nil })
}

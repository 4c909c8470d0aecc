package aggregator_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientdiscovery "k8s.io/client-go/discovery"
	"k8s.io/client-go/util/retry"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/kapi-dev/kapi/internal/required"
	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/client"
	"github.com/kapi-dev/kapi/pkg/testserver"
)

// The aggregator serves apiregistration.k8s.io/v1 apiservices and
// apiservices/status as kube-apiserver does: the same discovery entries,
// its group first among the named groups, and APIServices that can be
// created, read, written through /status and deleted.
func TestServesAPIServices(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	disc, err := clientdiscovery.NewDiscoveryClientForConfig(s.ClientConfig)
	if err != nil {
		t.Fatal(err)
	}

	var want metav1.APIResourceList
	if err := json.Unmarshal(required.ReadReference(t, "discovery/apis/apiregistration.k8s.io_v1.json"), &want); err != nil {
		t.Fatal(err)
	}
	got, err := disc.ServerResourcesForGroupVersion("apiregistration.k8s.io/v1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want.APIResources, got.APIResources); diff != "" {
		t.Errorf("apiregistration.k8s.io/v1 differs from kube-apiserver's (-want +got):\n%s", diff)
	}
	groups, err := disc.ServerGroups()
	if err != nil {
		t.Fatal(err)
	}
	// groups.Groups[0] is the core group, listed first by the client.
	if len(groups.Groups) < 2 || groups.Groups[1].Name != "apiregistration.k8s.io" {
		t.Errorf("groups %v, want apiregistration.k8s.io first of /apis as in kube-apiserver", groupNames(groups))
	}

	// The aggregated document (apidiscovery.k8s.io/v2) lists the group
	// first too, with kube-apiserver's entry.
	raw, err := disc.RESTClient().Get().AbsPath("/apis").SetHeader("Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList").DoRaw(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var gotAggregated, wantAggregated struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(raw, &gotAggregated); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(required.ReadReference(t, "discovery/aggregated-apis.json"), &wantAggregated); err != nil {
		t.Fatal(err)
	}
	if len(gotAggregated.Items) == 0 {
		t.Fatal("no groups in the aggregated discovery of /apis")
	}
	var wantFirst, gotFirst any
	if err := json.Unmarshal(wantAggregated.Items[0], &wantFirst); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(gotAggregated.Items[0], &gotFirst); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantFirst, gotFirst); diff != "" {
		t.Errorf("the first group of aggregated /apis differs from kube-apiserver's (-want +got):\n%s", diff)
	}

	clients, err := client.NewSet(s.ClientConfig, scheme.Scheme)
	if err != nil {
		t.Fatal(err)
	}
	apiServices := client.For[*apiregistrationv1.APIService, *apiregistrationv1.APIServiceList](clients, "apiservices", "")
	ctx := context.Background()
	created, err := apiServices.Create(ctx, &apiregistrationv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: "v1.remote.example.com"},
		Spec: apiregistrationv1.APIServiceSpec{Group: "remote.example.com", Version: "v1", GroupPriorityMinimum: 100, VersionPriority: 10,
			Service: &apiregistrationv1.ServiceReference{Namespace: "default", Name: "api"}, InsecureSkipTLSVerify: true},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p := created.Spec.Service.Port; p == nil || *p != 443 {
		t.Errorf("service port %v, want the default 443", p)
	}
	// The availability controller writes the status too: write on the
	// latest version.
	var written *apiregistrationv1.APIService
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		latest, err := apiServices.Get(ctx, created.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		latest.Status.Conditions = []apiregistrationv1.APIServiceCondition{{Type: apiregistrationv1.Available, Status: apiregistrationv1.ConditionFalse, Reason: "ServiceNotFound"}}
		written, err = apiServices.UpdateStatus(ctx, latest, metav1.UpdateOptions{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if c := written.Status.Conditions; len(c) != 1 || c[0].Reason != "ServiceNotFound" {
		t.Errorf("status written as %+v", c)
	}
	if err := apiServices.Delete(ctx, created.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := apiServices.Get(ctx, created.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get after delete: %v, want NotFound", err)
	}
}

func groupNames(l *metav1.APIGroupList) []string {
	var out []string
	for _, g := range l.Groups {
		out = append(out, g.Name)
	}
	return out
}

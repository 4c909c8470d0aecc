package node

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
)

// attributes are authorizer attributes with the request's field
// selector, as kube-apiserver hands them to its authorizers.
type attributes struct {
	authorizer.AttributesRecord
	fieldSelector fields.Requirements
}

func (a attributes) GetFieldSelector() (fields.Requirements, error) { return a.fieldSelector, nil }

// sarAttributes converts a SubjectAccessReview spec to attributes as
// kube-apiserver does (a field selector "In" with one value is "=").
func sarAttributes(t *testing.T, spec authorizationv1.SubjectAccessReviewSpec) attributes {
	t.Helper()
	a := attributes{AttributesRecord: authorizer.AttributesRecord{User: &user.DefaultInfo{Name: spec.User, Groups: spec.Groups}}}
	if ra := spec.ResourceAttributes; ra != nil {
		a.Verb, a.Namespace, a.APIGroup, a.APIVersion = ra.Verb, ra.Namespace, ra.Group, ra.Version
		a.Resource, a.Subresource, a.Name, a.ResourceRequest = ra.Resource, ra.Subresource, ra.Name, true
		if fs := ra.FieldSelector; fs != nil {
			for _, r := range fs.Requirements {
				if r.Operator != metav1.FieldSelectorOpIn || len(r.Values) != 1 {
					t.Fatalf("recording uses a field selector the test does not convert: %+v", r)
				}
				a.fieldSelector = append(a.fieldSelector, fields.Requirement{Field: r.Key, Operator: selection.Equals, Value: r.Values[0]})
			}
		}
	}
	if nra := spec.NonResourceAttributes; nra != nil {
		a.Verb, a.Path = nra.Verb, nra.Path
	}
	return a
}

// oracleGraph is the graph fed, through client-go informers, with the
// objects the oracle held when the SubjectAccessReviews were recorded.
func oracleGraph(t *testing.T) *Graph {
	t.Helper()
	data, err := os.ReadFile("testdata/oracle-objects.json")
	if err != nil {
		t.Fatal(err)
	}
	var list corev1.List
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatal(err)
	}
	var objects []runtime.Object
	for _, item := range list.Items {
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(item.Raw, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		objects = append(objects, obj)
	}
	client := fake.NewClientset(objects...)
	factory := informers.NewSharedInformerFactory(client, 0)
	g := NewGraph()
	var synced []cache.InformerSynced
	for _, add := range []struct {
		informer cache.SharedInformer
		handlers func(*Graph, cache.SharedInformer) (cache.ResourceEventHandlerRegistration, error)
	}{
		{factory.Core().V1().Pods().Informer(), AddPodHandlers},
		{factory.Core().V1().PersistentVolumes().Informer(), AddPVHandlers},
		{factory.Storage().V1().VolumeAttachments().Informer(), AddVolumeAttachmentHandlers},
		{factory.Resource().V1().ResourceSlices().Informer(), AddResourceSliceHandlers},
		{factory.Certificates().V1().PodCertificateRequests().Informer(), AddPodCertificateRequestHandlers},
	} {
		reg, err := add.handlers(g, add.informer)
		if err != nil {
			t.Fatal(err)
		}
		synced = append(synced, reg.HasSynced)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	factory.Start(ctx.Done())
	t.Cleanup(func() { cancel(); factory.Shutdown() })
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		t.Fatal("informers did not sync")
	}
	if n := len(g.pods); n != 3 {
		t.Fatalf("graph has %d pods bound to nodes, want the recording's 3", n)
	}
	if n := len(g.pvs); n != 2 {
		t.Fatalf("graph has %d bound PVs, want the recording's 2", n)
	}
	// Two each of volume attachments, resource slices with a node and
	// pod certificate requests.
	if n := len(g.direct); n != 6 {
		t.Fatalf("graph has %d objects of one node, want the recording's 6", n)
	}
	return g
}

// TestMatchesKubeAPIServer asks the authorizer every SubjectAccessReview
// recorded from kube-apiserver 1.37.1 (--authorization-mode=Node,RBAC,
// with no RBAC bindings for these users beyond the bootstrap policy), and
// expects the Node authorizer's part of each answer: allowed with no
// reason is the Node authorizer's allow; a reason "node: ..." is its
// NoOpinion with that reason; anything else (RBAC's discovery grants,
// plain denials) is a NoOpinion without a word.
func TestMatchesKubeAPIServer(t *testing.T) {
	var rec struct {
		Cases []struct {
			Spec   authorizationv1.SubjectAccessReviewSpec   `json:"spec"`
			Status authorizationv1.SubjectAccessReviewStatus `json:"status"`
		} `json:"cases"`
	}
	data, err := os.ReadFile("testdata/oracle-sar.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.Cases) < 100 {
		t.Fatalf("recording has %d cases, expected the whole recording", len(rec.Cases))
	}
	a := New(oracleGraph(t), NodeRules(), DefaultFeatures())
	allowed := 0
	for _, tc := range rec.Cases {
		want, wantReason := authorizer.DecisionNoOpinion, ""
		switch {
		case tc.Status.Allowed && tc.Status.Reason == "":
			want = authorizer.DecisionAllow
			allowed++
		case strings.HasPrefix(tc.Status.Reason, "node: "):
			wantReason = strings.TrimPrefix(tc.Status.Reason, "node: ")
		}
		attrs := sarAttributes(t, tc.Spec)
		got, reason, err := a.Authorize(context.Background(), attrs)
		if err != nil || got != want || reason != wantReason {
			t.Errorf("%s: got (%v, %q, %v), kube-apiserver's node authorizer (%v, %q)",
				describe(tc.Spec), got, reason, err, want, wantReason)
		}
	}
	if allowed < 30 {
		t.Errorf("only %d recorded cases are allowed by the node authorizer; the recording is incomplete", allowed)
	}
}

func describe(spec authorizationv1.SubjectAccessReviewSpec) string {
	var b strings.Builder
	b.WriteString(spec.User)
	if ra := spec.ResourceAttributes; ra != nil {
		fmt.Fprintf(&b, " %s %s/%s", ra.Verb, ra.Group, ra.Resource)
		if ra.Subresource != "" {
			b.WriteString("/" + ra.Subresource)
		}
		fmt.Fprintf(&b, " %s/%s", ra.Namespace, ra.Name)
		if ra.FieldSelector != nil {
			fmt.Fprintf(&b, " fieldSelector=%v", ra.FieldSelector.Requirements)
		}
	}
	if nra := spec.NonResourceAttributes; nra != nil {
		fmt.Fprintf(&b, " %s %s", nra.Verb, nra.Path)
	}
	return b.String()
}

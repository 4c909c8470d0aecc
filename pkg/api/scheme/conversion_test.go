package scheme_test

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	certificatesv1beta1 "k8s.io/api/certificates/v1beta1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/randfill"

	"github.com/kapi-dev/kapi/pkg/api/scheme"
)

// conversionPairs are the kinds the scheme holds in two group versions
// with different Go types and a conversion between them: the versions a
// resource is served in besides the one it is stored in (autoscaling/v1
// and v2 HorizontalPodAutoscalers, core/v1 and events.k8s.io/v1 Events)
// and the storage versions kube-apiserver keeps that kapi does not serve
// (certificates.k8s.io/v1beta1, storagemigration.k8s.io/v1beta1,
// resource.k8s.io/v1beta2).
func conversionPairs(t *testing.T) [][2]schema.GroupVersionKind {
	byKind := map[string][]schema.GroupVersionKind{}
	for gvk := range scheme.Scheme.AllKnownTypes() {
		if gvk.Version == runtime.APIVersionInternal {
			continue
		}
		byKind[gvk.Kind] = append(byKind[gvk.Kind], gvk)
	}
	var pairs [][2]schema.GroupVersionKind
	for _, gvks := range byKind {
		for _, a := range gvks {
			for _, b := range gvks {
				ta, tb := scheme.Scheme.AllKnownTypes()[a], scheme.Scheme.AllKnownTypes()[b]
				if ta == tb || a.String() >= b.String() {
					continue
				}
				in, _ := scheme.Scheme.New(a)
				out, _ := scheme.Scheme.New(b)
				if scheme.Scheme.Convert(in, out, nil) != nil {
					continue // not a kind of one resource in two versions
				}
				pairs = append(pairs, [2]schema.GroupVersionKind{a, b})
			}
		}
	}
	sort.Slice(pairs, func(i, j int) bool {
		return pairs[i][0].String()+pairs[i][1].String() < pairs[j][0].String()+pairs[j][1].String()
	})
	found := map[string]bool{}
	for _, p := range pairs {
		found[p[0].Kind] = true
	}
	for _, served := range []string{"HorizontalPodAutoscaler", "Event"} {
		if !found[served] {
			t.Fatalf("no conversion of %s between its two served versions in %v", served, pairs)
		}
	}
	return pairs
}

// filler fills objects with random values a client could send: valid
// quantities and times of whole microseconds (what JSON carries).
func filler(seed int64) *randfill.Filler {
	return randfill.NewWithSeed(seed).NilChance(0.3).NumElements(0, 3).Funcs(
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewMilliQuantity(c.Int63n(1_000_000), resource.DecimalSI)
		},
		func(tm *metav1.Time, c randfill.Continue) {
			*tm = metav1.Unix(c.Int63n(2_000_000_000), 0).Rfc3339Copy()
		},
		func(tm *metav1.MicroTime, c randfill.Continue) {
			*tm = metav1.NewMicroTime(metav1.Unix(c.Int63n(2_000_000_000), c.Int63n(1_000_000)*1000).Time)
		},
		func(m *metav1.TypeMeta, c randfill.Continue) {},
		func(f *metav1.FieldsV1, c randfill.Continue) {
			f.Raw, _ = json.Marshal(map[string]any{"f:" + c.String(8): map[string]any{}})
		},
	)
}

// lossy are the conversions that cannot come back whole, with why, and
// what does.
var lossy = map[schema.GroupVersionKind]struct {
	why      string
	ignoring cmp.Option
}{
	// Stored PodCertificateRequests served as v1 lose the fields v1 no
	// longer has, as in kube-apiserver; nothing served writes them.
	certificatesv1beta1.SchemeGroupVersion.WithKind("PodCertificateRequest"): {
		"v1 has no pkixPublicKey and proofOfPossession",
		cmpopts.IgnoreFields(certificatesv1beta1.PodCertificateRequestSpec{}, "PKIXPublicKey", "ProofOfPossession"),
	},
	certificatesv1beta1.SchemeGroupVersion.WithKind("PodCertificateRequestList"): {
		"v1 has no pkixPublicKey and proofOfPossession",
		cmpopts.IgnoreFields(certificatesv1beta1.PodCertificateRequestSpec{}, "PKIXPublicKey", "ProofOfPossession"),
	},
}

// oneOfs are the kinds whose random objects are not objects of their
// kind: an HPA metric holds one source, of its type, which random ones do
// not, and neither version keeps more. pkg/apis/autoscaling round-trips
// HPAs of every metric type, behavior, status and annotation; the corpus
// (testdata/autoscaling) records kube-apiserver's answers to writes
// through either version.
var oneOfs = map[string]bool{"HorizontalPodAutoscaler": true, "HorizontalPodAutoscalerList": true}

// Every kind kapi holds in two versions converts from either version to
// the other and back to what it was, field by field, whatever its fields
// hold, except where one version has fields the other has not (lossy
// above, as in kube-apiserver).
func TestConversionsRoundTrip(t *testing.T) {
	for _, pair := range conversionPairs(t) {
		if oneOfs[pair[0].Kind] {
			continue
		}
		for _, dir := range [][2]schema.GroupVersionKind{{pair[0], pair[1]}, {pair[1], pair[0]}} {
			from, via := dir[0], dir[1]
			opts := []cmp.Option{cmpopts.IgnoreTypes(metav1.TypeMeta{}), cmpopts.EquateEmpty()}
			if l, ok := lossy[from]; ok {
				opts = append(opts, l.ignoring)
			}
			t.Run(fmt.Sprintf("%s/%s via %s", from.GroupVersion(), from.Kind, via.GroupVersion()), func(t *testing.T) {
				seed := rand.Int63()
				f := filler(seed)
				for i := range 200 {
					in, err := scheme.Scheme.New(from)
					if err != nil {
						t.Fatal(err)
					}
					f.Fill(in)
					mid, err := scheme.Scheme.New(via)
					if err != nil {
						t.Fatal(err)
					}
					if err := scheme.Scheme.Convert(in.DeepCopyObject(), mid, nil); err != nil {
						t.Fatalf("seed %d, object %d: %s to %s: %v", seed, i, from, via, err)
					}
					back, _ := scheme.Scheme.New(from)
					if err := scheme.Scheme.Convert(mid, back, nil); err != nil {
						t.Fatalf("seed %d, object %d: %s back from %s: %v", seed, i, from, via, err)
					}
					if diff := cmp.Diff(in, back, opts...); diff != "" {
						t.Fatalf("seed %d, object %d: %s through %s and back differs (-before +after):\n%s", seed, i, from, via, diff)
					}
				}
			})
		}
	}
}

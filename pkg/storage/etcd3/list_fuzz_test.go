package etcd3

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/storage"
)

// Whatever a client sends as the continue, resourceVersion,
// resourceVersionMatch and limit of a list, the etcd3 store either refuses
// them with a 400, or plans a read that kube-apiserver's semantics
// describe: a continued list resumes at a key inside the listed prefix,
// at the token's revision (or the latest for an inconsistent
// continuation) and never with a resourceVersion of its own; an Exact
// match reads at that revision; NotOlderThan reads the latest state once
// it reached the revision; no match is NotOlderThan except that it pins
// the first page of a paged list.
func FuzzPlanList(f *testing.F) {
	const prefix = "/registry/configmaps/"
	f.Fuzz(func(t *testing.T, continueToken, resourceVersion, match string, limit int64, recursive bool) {
		opts := storage.ListOptions{
			ResourceVersion: resourceVersion, ResourceVersionMatch: match, Recursive: recursive,
			Predicate: storage.SelectionPredicate{Continue: continueToken, Limit: limit},
		}
		plan, err := planList(prefix, opts)
		if err != nil {
			status, ok := err.(apierrors.APIStatus)
			if !ok || status.Status().Code != http.StatusBadRequest {
				t.Fatalf("%+v: got %v, want a 400", opts, err)
			}
			return
		}
		if plan.rev < 0 {
			t.Fatalf("%+v: reads at revision %d", opts, plan.rev)
		}
		if recursive && continueToken != "" {
			if resourceVersion != "" && resourceVersion != "0" {
				t.Fatalf("%+v: continued with a resourceVersion of its own", opts)
			}
			if !strings.HasPrefix(plan.start, prefix) || len(plan.start) == len(prefix) {
				t.Fatalf("%+v: resumes at %q, outside %q", opts, plan.start, prefix)
			}
			_, tokenRV, err := storage.DecodeContinue(continueToken, prefix)
			if err != nil || plan.rev != max(tokenRV, 0) || plan.minRV != 0 {
				t.Fatalf("%+v: plans %+v for a token of revision %d (%v)", opts, plan, tokenRV, err)
			}
			return
		}
		if plan.start != "" {
			t.Fatalf("%+v: resumes at %q without a continue", opts, plan.start)
		}
		rv := uint64(0)
		if resourceVersion != "" {
			if rv, err = strconv.ParseUint(resourceVersion, 10, 64); err != nil {
				t.Fatalf("%+v: accepted resourceVersion %q", opts, resourceVersion)
			}
		}
		pinned := recursive && limit > 0 && rv > 0
		// A revision beyond etcd's int64 is one no etcd has reached: it
		// reads as a future revision, never as a negative one (which etcd
		// takes for the latest).
		rev := int64(rv)
		if rv >= math.MaxInt64 {
			rev = math.MaxInt64 - 1
		}
		var want listRead
		switch metav1.ResourceVersionMatch(match) {
		case metav1.ResourceVersionMatchExact:
			want = listRead{rev: rev}
		case metav1.ResourceVersionMatchNotOlderThan:
			want = listRead{minRV: rv}
		case "":
			want = listRead{minRV: rv}
			if pinned {
				want.rev = rev
			}
		default:
			t.Fatalf("%+v: accepted resourceVersionMatch %q", opts, match)
		}
		if plan != want {
			t.Fatalf("%+v: plans %+v, want %+v", opts, plan, want)
		}
	})
}

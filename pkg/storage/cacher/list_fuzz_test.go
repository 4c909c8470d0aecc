package cacher

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/storage"
)

// Whatever a client sends as the continue, resourceVersion,
// resourceVersionMatch and limit of a list, the watch cache either refuses
// it with a 400, leaves it to the storage, or serves it from memory: at
// the cache's revision once it reached the one asked for, or at a past
// revision only when the client pinned exactly that one (Exact, a
// continue token, or the legacy paged form), resuming a continued list
// inside the listed prefix. A consistent read is one that named no
// resourceVersion.
func FuzzCacherPlanList(f *testing.F) {
	const key = "/configmaps/defaulting"
	c := &Cacher{}
	f.Fuzz(func(t *testing.T, continueToken, resourceVersion, match string, limit int64, recursive bool) {
		opts := storage.ListOptions{
			ResourceVersion: resourceVersion, ResourceVersionMatch: match, Recursive: recursive,
			Predicate: storage.SelectionPredicate{Continue: continueToken, Limit: limit},
		}
		plan, err := c.planList(key, opts)
		if err != nil {
			status, ok := err.(apierrors.APIStatus)
			if !ok || status.Status().Code != http.StatusBadRequest {
				t.Fatalf("%+v: got %v, want a 400", opts, err)
			}
			return
		}
		if !plan.fromCache {
			if plan != (listPlan{}) {
				t.Fatalf("%+v: delegated with %+v", opts, plan)
			}
			return
		}
		if plan.atRV != 0 && plan.minRV != plan.atRV {
			t.Fatalf("%+v: serves revision %d once the cache reached %d", opts, plan.atRV, plan.minRV)
		}
		if plan.consistent && (resourceVersion != "" || continueToken != "") {
			t.Fatalf("%+v: a consistent read of a request that named a revision", opts)
		}
		if continueToken != "" {
			_, tokenRV, err := storage.DecodeContinue(continueToken, key+"/")
			if err != nil || !recursive || int64(plan.atRV) != tokenRV ||
				!strings.HasPrefix(plan.from, key+"/") || len(plan.from) == len(key)+1 {
				t.Fatalf("%+v: continues with %+v (token revision %d, %v)", opts, plan, tokenRV, err)
			}
			return
		}
		if plan.from != "" {
			t.Fatalf("%+v: resumes at %q without a continue", opts, plan.from)
		}
		rv := uint64(0)
		if resourceVersion != "" {
			if rv, err = strconv.ParseUint(resourceVersion, 10, 64); err != nil {
				t.Fatalf("%+v: accepted resourceVersion %q", opts, resourceVersion)
			}
		}
		if plan.minRV != rv {
			t.Fatalf("%+v: waits for revision %d, not the one asked", opts, plan.minRV)
		}
		pinned := match == string(metav1.ResourceVersionMatchExact) || (match == "" && recursive && limit > 0)
		if plan.atRV != 0 && (!pinned || plan.atRV != rv) {
			t.Fatalf("%+v: serves past revision %d, which the client did not pin", opts, plan.atRV)
		}
	})
}

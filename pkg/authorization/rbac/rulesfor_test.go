package rbac

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
)

// TestRulesForMatchesKubeAPIServer compares RulesFor with the
// SelfSubjectRulesReviews kube-apiserver 1.37.1 answered for users of the
// decision matrix's policy (testdata/rules-reviews.json). The rules are
// compared as multisets: kube-apiserver lists them in its caches' order.
func TestRulesForMatchesKubeAPIServer(t *testing.T) {
	var recorded struct {
		Reviews []struct {
			User      string
			Groups    []string
			Namespace string
			Status    authorizationv1.SubjectRulesReviewStatus
		}
	}
	readJSON(t, "testdata/rules-reviews.json", &recorded)
	if len(recorded.Reviews) == 0 {
		t.Fatal("no recorded reviews")
	}
	a := loadPolicy(t, "testdata/kube-apiserver-policy.json", "testdata/h-rbac-policy.json")
	for _, r := range recorded.Reviews {
		// kubectl --as: the impersonated user is authenticated.
		u := &user.DefaultInfo{Name: r.User, Groups: append(slices.Clone(r.Groups), user.AllAuthenticated)}
		resourceRules, nonResourceRules, incomplete, err := a.RulesFor(context.Background(), u, r.Namespace)
		if got, want := canonical(t, resourceRules), canonical(t, r.Status.ResourceRules); !slices.Equal(got, want) {
			t.Errorf("%s in %q: resource rules\n got %v\nwant %v", r.User, r.Namespace, got, want)
		}
		if got, want := canonical(t, nonResourceRules), canonical(t, r.Status.NonResourceRules); !slices.Equal(got, want) {
			t.Errorf("%s in %q: non-resource rules\n got %v\nwant %v", r.User, r.Namespace, got, want)
		}
		var evaluationError string
		if err != nil {
			evaluationError = err.Error()
		}
		if incomplete != r.Status.Incomplete || evaluationError != r.Status.EvaluationError {
			t.Errorf("%s in %q: incomplete %v, error %q; kube-apiserver: %v, %q", r.User, r.Namespace, incomplete, evaluationError, r.Status.Incomplete, r.Status.EvaluationError)
		}
	}
}

// canonical returns the rules as sorted JSON strings.
func canonical[T any](t *testing.T, rules []T) []string {
	out := make([]string, 0, len(rules))
	for _, r := range rules {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	slices.Sort(out)
	return out
}

package webhook

import (
	"context"
	"testing"

	v1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
	celadmission "github.com/kapi-dev/kapi/pkg/cel/admission"
)

// onlyAlice allows alice to do anything, and no one else.
type onlyAlice struct{ checks []celadmission.Check }

func (o *onlyAlice) Authorize(_ context.Context, c celadmission.Check) (bool, string, error) {
	o.checks = append(o.checks, c)
	return c.User.Name == "alice", "", nil
}

// Match conditions see the authorizer for the write's user, as
// kube-apiserver's do; without an authorizer they fail under Fail.
func TestConditionsAuthorizer(t *testing.T) {
	h := &Hook{Name: "w", FailurePolicy: func() *v1.FailurePolicyType { p := v1.Fail; return &p }(),
		MatchConditions: []v1.MatchCondition{{Name: "may-create", Expression: "authorizer.requestResource.check('create').allowed()"}}}
	write := func(name string) *Versioned {
		a := &admission.Attributes{Name: "cm", Namespace: "ns1", Operation: admission.Create,
			Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
			Kind:     schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
			User:     &user.DefaultInfo{Name: name}}
		return &Versioned{Attributes: a, Kind: a.Kind, Object: &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}}}
	}
	inv := &Invocation{Hook: h}
	authz := &onlyAlice{}
	for name, want := range map[string]bool{"alice": true, "bob": false} {
		got, err, _ := ConditionsMatch(context.Background(), inv, write(name), authz)
		if err != nil || got != want {
			t.Errorf("%s: matches %v (%v), want %v", name, got, err, want)
		}
	}
	if c := authz.checks[0]; c.Verb != "create" || c.Resource != "configmaps" || c.Namespace != "ns1" || c.Name != "cm" || !c.ResourceRequest {
		t.Errorf("checked %+v", c)
	}
	_, err, failed := ConditionsMatch(context.Background(), inv, write("alice"), nil)
	want := "expression 'authorizer.requestResource.check('create').allowed()' resulted in error: no such attribute(s): authorizer.requestResource"
	if err == nil || err.Error() != want || failed != 1 {
		t.Errorf("without an authorizer: %v (%d failed), want %q (1 failed)", err, failed, want)
	}
}

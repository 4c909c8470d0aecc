package generic

import (
	"testing"

	v1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

type testPolicy struct{ metav1.ObjectMeta }

func (p *testPolicy) GetParamKind() *v1.ParamKind             { return nil }
func (p *testPolicy) GetMatchConstraints() *v1.MatchResources { return nil }
func (p *testPolicy) GetFailurePolicy() *v1.FailurePolicyType { return nil }
func (p *testPolicy) GetMatchConditions() []v1.MatchCondition { return nil }

type testBinding struct {
	name, policy string
}

func (b testBinding) GetName() string                       { return b.name }
func (b testBinding) GetPolicyName() string                 { return b.policy }
func (b testBinding) GetMatchResources() *v1.MatchResources { return nil }
func (b testBinding) GetParamRef() *v1.ParamRef             { return nil }

// The source lists the policies that have bindings, by name, compiles
// each once per version, and forgets those gone.
func TestSourceCompilesOncePerVersion(t *testing.T) {
	policies := []*testPolicy{
		{metav1.ObjectMeta{Name: "b", UID: types.UID("1"), ResourceVersion: "1"}},
		{metav1.ObjectMeta{Name: "a", UID: types.UID("2"), ResourceVersion: "1"}},
		{metav1.ObjectMeta{Name: "unbound", UID: types.UID("3"), ResourceVersion: "1"}},
	}
	bindings := []testBinding{{"b2", "b"}, {"b1", "b"}, {"a1", "a"}, {"orphan", "missing"}}
	compiles := map[string]int{}
	s := &Source[*testPolicy, testBinding, string]{
		Policies: func() ([]*testPolicy, error) { return policies, nil },
		Bindings: func() ([]testBinding, error) { return bindings, nil },
		Policy:   func(p *testPolicy) PolicyAccessor { return p },
		Binding:  func(b testBinding) BindingAccessor { return b },
		Compile: func(p *testPolicy) string {
			compiles[p.Name]++
			return p.Name + "@" + p.ResourceVersion
		},
	}
	hooks, _ := s.Hooks()
	if len(hooks) != 2 || hooks[0].Compiled != "a@1" || hooks[1].Compiled != "b@1" ||
		hooks[1].Bindings[0].name != "b1" || hooks[1].Bindings[1].name != "b2" {
		t.Fatalf("hooks %+v", hooks)
	}
	policies[0] = &testPolicy{metav1.ObjectMeta{Name: "b", UID: types.UID("1"), ResourceVersion: "2"}}
	hooks, _ = s.Hooks()
	if hooks[1].Compiled != "b@2" || compiles["a"] != 1 || compiles["b"] != 2 || compiles["unbound"] != 0 {
		t.Fatalf("hooks %+v, compiles %v", hooks, compiles)
	}
}

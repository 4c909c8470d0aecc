package cel

import (
	"context"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// TestCostStability pins the estimated (worst case) and runtime costs of
// rules on an object {val1, val2} of two strings without maxLength, as
// kube-apiserver computes them. Estimates decide which CRDs are accepted
// and runtime costs which objects: any change is an API change.
func TestCostStability(t *testing.T) {
	tests := []struct {
		rule               string
		val1, val2         string
		estimated, runtime uint64
	}{
		{rule: "self.val1.startsWith('Rook')", val1: "Rook takes 👑", estimated: 3, runtime: 3},
		{rule: "self.val1.matches('^[^0-9]*$')", val1: "Rook takes 👑", estimated: 943721, runtime: 8},
		{rule: "self.val1.indexOf('o') == 1", val1: "Rook takes 👑", estimated: 314576, runtime: 4},
		{rule: "self.val1.replace(' ', 'x') == 'Rookxtakesx👑'", val1: "Rook takes 👑", estimated: 629150, runtime: 7},
		{rule: "self.val1.split(' ') == ['Rook', 'takes', '👑']", val1: "Rook takes 👑", estimated: 629159, runtime: 6},
		{rule: "self.val1.substring(4, 10).trim() == 'takes'", val1: "Rook takes 👑", estimated: 629149, runtime: 6},
		{rule: "self.val1.lowerAscii() == self.val1.lowerAscii()", val1: "Rook takes 👑", estimated: 943723, runtime: 10},
		{rule: "isQuantity(self.val1)", val1: "20", val2: "200M", estimated: 314575, runtime: 3},
		{rule: "quantity(self.val1).isLessThan(quantity(self.val2))", val1: "20", val2: "200M", estimated: 629151, runtime: 7},
		{rule: `quantity("50k").add(quantity("20")) == quantity("50.02k")`, estimated: 5, runtime: 5},
		{rule: `quantity("50k").sub(20) == quantity("49980")`, estimated: 4, runtime: 4},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			schema := mustSchema(t, "type: object\nproperties:\n  val1: {type: string}\n  val2: {type: string}\n")
			schema.XValidations = apiextensionsv1.ValidationRules{{Rule: tt.rule}}
			n := newNode(schema)
			cr := newRuleCompiler(n, declTypeOf(n, false), func(string, bool) bool { return true }).compile(schema.XValidations[0])
			if cr.err != nil {
				t.Fatal(cr.err)
			}
			if cr.maxCost != tt.estimated {
				t.Errorf("estimated cost %d, want %d", cr.maxCost, tt.estimated)
			}
			obj := map[string]interface{}{"val1": tt.val1, "val2": tt.val2}
			result, details, err := cr.program.ContextEval(context.Background(), &activation{self: newVal(obj, n)})
			if err != nil || result.Value() != true {
				t.Fatalf("evaluation: %v, %v", result, err)
			}
			if got := *details.ActualCost(); got != tt.runtime {
				t.Errorf("runtime cost %d, want %d", got, tt.runtime)
			}
		})
	}
}

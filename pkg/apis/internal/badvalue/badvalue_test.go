package badvalue_test

import (
	"testing"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/apis/internal/badvalue"
)

// The renderings are those of kube-apiserver 1.37.1's error messages,
// recorded in test/corpus (flowschemas/invalid, storageversionmigrations).
func TestInternalRendersAsKubeAPIServersInternalTypes(t *testing.T) {
	tests := []struct {
		value any
		want  string
	}{
		{&flowcontrolv1.FlowDistinguisherMethod{Type: "ByHat"}, `{"Type":"ByHat"}`},
		{flowcontrolv1.FlowSchemaSpec{PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "exempt"}, MatchingPrecedence: 2},
			`{"PriorityLevelConfiguration":{"Name":"exempt"},"MatchingPrecedence":2,"DistinguisherMethod":null,"Rules":null}`},
		{storagemigrationv1.StorageVersionMigrationSpec{Resource: metav1.GroupResource{Resource: "pods"}},
			`{"Resource":{"group":"","resource":"pods"}}`},
	}
	for _, tt := range tests {
		if got := string(badvalue.Internal(tt.value)); got != tt.want {
			t.Errorf("Internal(%#v) = %s, want %s", tt.value, got, tt.want)
		}
	}
}

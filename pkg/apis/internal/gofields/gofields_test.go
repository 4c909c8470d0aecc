package gofields_test

import (
	"encoding/json"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/apis/internal/gofields"
)

// The expected JSON is what kube-apiserver 1.37.1 printed for the same
// values in "field is immutable" and "must be one of" errors.
func TestValueRendersInternalTypes(t *testing.T) {
	tests := []struct {
		name  string
		value any
		want  string
	}{
		{
			name:  "an unknown daemonset strategy",
			value: &appsv1.DaemonSetUpdateStrategy{Type: "Foo"},
			want:  `{"Type":"Foo","RollingUpdate":null}`,
		},
		{
			name: "a claim template: its metadata inline with its own tags, the rest with Go names",
			value: []v1.PersistentVolumeClaim{{
				ObjectMeta: metav1.ObjectMeta{Name: "data", Labels: map[string]string{"a": "b"}},
				Spec: v1.PersistentVolumeClaimSpec{
					AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
					Resources:   v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")}},
				},
			}},
			want: `[{"name":"data","labels":{"a":"b"},"Spec":{"AccessModes":["ReadWriteOnce"],"Selector":null,"Resources":{"Limits":null,"Requests":{"storage":"1Gi"}},` +
				`"VolumeName":"","StorageClassName":null,"VolumeMode":null,"DataSource":null,"DataSourceRef":null,"VolumeAttributesClassName":null},` +
				`"Status":{"Phase":"","AccessModes":null,"Capacity":null,"Conditions":null,"AllocatedResources":null,"AllocatedResourceStatuses":null,` +
				`"CurrentVolumeAttributesClassName":null,"ModifyVolumeStatus":null,"HealthStatus":null}}]`,
		},
		{name: "nil", value: nil, want: `null`},
		{name: "a label selector keeps its tags", value: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}, want: `{"matchLabels":{"app":"x"}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := json.Marshal(gofields.Value(tc.value))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// More renderings of kube-apiserver 1.37.1's error messages, recorded in
// test/corpus (flowschemas/invalid, storageversionmigrations).
func TestValueRendersFlowcontrolAndStorageMigrationAsKubeAPIServer(t *testing.T) {
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
		got, err := json.Marshal(gofields.Value(tt.value))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tt.want {
			t.Errorf("Value(%#v) = %s, want %s", tt.value, got, tt.want)
		}
	}
}

package printers

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// template is a pod template running a container per name=image pair.
func template(nameImages ...string) corev1.PodTemplateSpec {
	var spec corev1.PodSpec
	for i := 0; i+1 < len(nameImages); i += 2 {
		spec.Containers = append(spec.Containers, corev1.Container{Name: nameImages[i], Image: nameImages[i+1]})
	}
	return corev1.PodTemplateSpec{Spec: spec}
}

func TestAppsKinds(t *testing.T) {
	selector := &metav1.LabelSelector{
		MatchLabels:      map[string]string{"app": "web"},
		MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"front", "edge"}}},
	}
	tests := []struct {
		name        string
		obj         runtime.Object
		wantColumns []string
		wantCells   []any
	}{{
		name: "deployment",
		obj: &appsv1.Deployment{
			ObjectMeta: objectMeta("web"),
			Spec:       appsv1.DeploymentSpec{Replicas: ptr(int32(3)), Selector: selector, Template: template("web", "nginx:1.27", "log", "fluentd")},
			Status:     appsv1.DeploymentStatus{ReadyReplicas: 2, UpdatedReplicas: 3, AvailableReplicas: 1},
		},
		wantColumns: []string{"Name", "Ready", "Up-to-date", "Available", "Age", "Containers*", "Images*", "Selector*"},
		wantCells:   []any{"web", "2/3", int64(3), int64(1), "3h", "web,log", "nginx:1.27,fluentd", "app=web,tier in (edge,front)"},
	}, {
		name: "deployment with an invalid selector",
		obj: &appsv1.Deployment{
			ObjectMeta: objectMeta("bad"),
			Spec:       appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"-": "x"}}},
		},
		wantColumns: []string{"Name", "Ready", "Up-to-date", "Available", "Age", "Containers*", "Images*", "Selector*"},
		wantCells:   []any{"bad", "0/0", int64(0), int64(0), "3h", "", "", "<invalid>"},
	}, {
		name: "replica set",
		obj: &appsv1.ReplicaSet{
			ObjectMeta: objectMeta("web-5d9c"),
			Spec:       appsv1.ReplicaSetSpec{Replicas: ptr(int32(3)), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, Template: template("web", "nginx")},
			Status:     appsv1.ReplicaSetStatus{Replicas: 3, ReadyReplicas: 2},
		},
		wantColumns: []string{"Name", "Desired", "Current", "Ready", "Age", "Containers*", "Images*", "Selector*"},
		wantCells:   []any{"web-5d9c", int64(3), int64(3), int64(2), "3h", "web", "nginx", "app=web"},
	}, {
		name: "stateful set",
		obj: &appsv1.StatefulSet{
			ObjectMeta: objectMeta("db"),
			Spec:       appsv1.StatefulSetSpec{Replicas: ptr(int32(3)), Template: template("db", "postgres:17")},
			Status:     appsv1.StatefulSetStatus{ReadyReplicas: 1},
		},
		wantColumns: []string{"Name", "Ready", "Age", "Containers*", "Images*"},
		wantCells:   []any{"db", "1/3", "3h", "db", "postgres:17"},
	}, {
		name: "daemon set",
		obj: func() runtime.Object {
			ds := &appsv1.DaemonSet{
				ObjectMeta: objectMeta("agent"),
				Spec:       appsv1.DaemonSetSpec{Template: template("agent", "agent:2")},
				Status: appsv1.DaemonSetStatus{
					DesiredNumberScheduled: 5, CurrentNumberScheduled: 4, NumberReady: 3, UpdatedNumberScheduled: 2, NumberAvailable: 1,
				},
			}
			ds.Spec.Template.Spec.NodeSelector = map[string]string{"kubernetes.io/os": "linux"}
			return ds
		}(),
		wantColumns: []string{"Name", "Desired", "Current", "Ready", "Up-to-date", "Available", "Node Selector", "Age", "Containers*", "Images*", "Selector*"},
		wantCells:   []any{"agent", int64(5), int64(4), int64(3), int64(2), int64(1), "kubernetes.io/os=linux", "3h", "agent", "agent:2", "<none>"},
	}, {
		name: "controller revision of a stateful set",
		obj: &appsv1.ControllerRevision{
			ObjectMeta: func() metav1.ObjectMeta {
				m := objectMeta("db-7f8b")
				m.OwnerReferences = []metav1.OwnerReference{
					{APIVersion: "v1", Kind: "ConfigMap", Name: "not-the-controller"},
					{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "db", Controller: ptr(true)},
				}
				return m
			}(),
			Revision: 4,
		},
		wantColumns: []string{"Name", "Controller", "Revision", "Age"},
		wantCells:   []any{"db-7f8b", "statefulset.apps/db", int64(4), "3h"},
	}, {
		name:        "controller revision without a controller",
		obj:         &appsv1.ControllerRevision{ObjectMeta: objectMeta("orphan"), Revision: 1},
		wantColumns: []string{"Name", "Controller", "Revision", "Age"},
		wantCells:   []any{"orphan", "<none>", int64(1), "3h"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			table := convert(t, tt.obj)
			if diff := cmp.Diff(tt.wantColumns, columnNames(table)); diff != "" {
				t.Errorf("columns (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantCells, table.Rows[0].Cells); diff != "" {
				t.Errorf("cells (-want +got):\n%s", diff)
			}
		})
	}
}

func TestControllerRevisionWithABadOwner(t *testing.T) {
	cr := &appsv1.ControllerRevision{ObjectMeta: objectMeta("cr")}
	cr.OwnerReferences = []metav1.OwnerReference{{APIVersion: "a/b/c", Kind: "StatefulSet", Name: "db", Controller: ptr(true)}}
	c := New(WithClock(func() time.Time { return testNow }))
	if _, err := c.ConvertToTable(t.Context(), &appsv1.ControllerRevisionList{Items: []appsv1.ControllerRevision{*cr}}, nil); err == nil {
		t.Error("got no error for an owner reference with an unparsable apiVersion")
	}
}

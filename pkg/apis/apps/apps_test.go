package apps_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/apps"
	"github.com/kapi-dev/kapi/pkg/apis/internal/reference"
)

func TestDeploymentDefaultsMatchReference(t *testing.T) {
	input, output, err := reference.Defaulting("deployment")
	if err != nil {
		t.Fatal(err)
	}
	scheme := runtime.NewScheme()
	if err := appsv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := apps.AddDefaults(scheme); err != nil {
		t.Fatal(err)
	}
	d := &appsv1.Deployment{}
	if err := json.Unmarshal(input, d); err != nil {
		t.Fatal(err)
	}
	scheme.Default(d)

	got, err := reference.ToJSONMap(d)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{}
	if err := json.Unmarshal(output, &want); err != nil {
		t.Fatal(err)
	}
	// Set by the server on create, not by defaulting.
	reference.RemoveFields(want, "metadata.creationTimestamp", "metadata.resourceVersion", "metadata.uid", "metadata.generation")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defaulted deployment differs from kube-apiserver's (-want +got):\n%s", diff)
	}
}

func TestSetDefaultsDeploymentKeepsWhatIsSet(t *testing.T) {
	maxSurge := intstr.FromInt32(0)
	d := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{
		Replicas: ptr(int32(0)),
		Strategy: appsv1.DeploymentStrategy{
			Type:          appsv1.RollingUpdateDeploymentStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &maxSurge},
		},
		RevisionHistoryLimit: ptr(int32(0)),
	}}
	apps.SetDefaultsDeployment(d)
	if *d.Spec.Replicas != 0 || *d.Spec.RevisionHistoryLimit != 0 {
		t.Errorf("explicit zeros were overwritten: replicas %d, revisionHistoryLimit %d", *d.Spec.Replicas, *d.Spec.RevisionHistoryLimit)
	}
	if ru := d.Spec.Strategy.RollingUpdate; ru.MaxSurge.IntValue() != 0 || ru.MaxUnavailable.String() != "25%" {
		t.Errorf("rolling update = surge %s, unavailable %s; want 0 and the default 25%%", ru.MaxSurge.String(), ru.MaxUnavailable.String())
	}

	recreate := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}}}
	apps.SetDefaultsDeployment(recreate)
	if recreate.Spec.Strategy.RollingUpdate != nil {
		t.Error("a Recreate deployment got rolling update parameters")
	}
}

// validDeployment returns a defaulted deployment that passes validation.
func validDeployment() *appsv1.Deployment {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", ResourceVersion: "1"},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: v1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       v1.PodSpec{Containers: []v1.Container{{Name: "web", Image: "nginx:1.27"}}},
			},
		},
	}
	apps.SetDefaultsDeployment(d)
	return d
}

func TestValidateDeployment(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*appsv1.Deployment)
		want   []string
	}{
		{name: "valid", modify: func(*appsv1.Deployment) {}},
		{
			// A missing selector selects nothing, so the template's labels
			// are reported too, as kube-apiserver does.
			name:   "selector is required",
			modify: func(d *appsv1.Deployment) { d.Spec.Selector = nil },
			want: []string{
				"spec.selector: Required value",
				`spec.template.metadata.labels: Invalid value: {"app":"web"}: ` + "`selector` does not match template `labels`",
			},
		},
		{
			name:   "an empty selector would select every pod",
			modify: func(d *appsv1.Deployment) { d.Spec.Selector = &metav1.LabelSelector{} },
			want:   []string{"spec.selector: Invalid value: {}: empty selector is invalid for deployment"},
		},
		{
			name:   "the template must carry the selected labels",
			modify: func(d *appsv1.Deployment) { d.Spec.Template.Labels = map[string]string{"app": "other"} },
			want:   []string{`spec.template.metadata.labels: Invalid value: {"app":"other"}: ` + "`selector` does not match template `labels`"},
		},
		{
			name:   "pods of a deployment run for ever",
			modify: func(d *appsv1.Deployment) { d.Spec.Template.Spec.RestartPolicy = v1.RestartPolicyNever },
			want:   []string{`spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"`},
		},
		{
			name:   "no active deadline",
			modify: func(d *appsv1.Deployment) { d.Spec.Template.Spec.ActiveDeadlineSeconds = ptr(int64(10)) },
			want:   []string{"spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported"},
		},
		{
			name:   "template containers are validated",
			modify: func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "" },
			want:   []string{"spec.template.spec.containers[0].image: Required value"},
		},
		{
			name:   "negative replicas",
			modify: func(d *appsv1.Deployment) { d.Spec.Replicas = ptr(int32(-1)) },
			want:   []string{"spec.replicas: Invalid value: -1: must be greater than or equal to 0"},
		},
		{
			name: "unknown strategy",
			modify: func(d *appsv1.Deployment) {
				d.Spec.Strategy = appsv1.DeploymentStrategy{Type: "BlueGreen"}
			},
			want: []string{`spec.strategy: Unsupported value: {"Type":"BlueGreen","RollingUpdate":null}: supported values: "Recreate", "RollingUpdate"`},
		},
		{
			name: "Recreate takes no rolling update parameters",
			modify: func(d *appsv1.Deployment) {
				d.Spec.Strategy.Type = appsv1.RecreateDeploymentStrategyType
			},
			want: []string{"spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"},
		},
		{
			name: "a rollout must be able to make progress",
			modify: func(d *appsv1.Deployment) {
				zero := intstr.FromInt32(0)
				d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxSurge: &zero, MaxUnavailable: &zero}
			},
			want: []string{"spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0"},
		},
		{
			name: "at most all pods unavailable",
			modify: func(d *appsv1.Deployment) {
				tooMany := intstr.FromString("150%")
				d.Spec.Strategy.RollingUpdate.MaxUnavailable = &tooMany
			},
			want: []string{`spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "150%": must not be greater than 100%`},
		},
		{
			name: "progress deadline after minReadySeconds",
			modify: func(d *appsv1.Deployment) {
				d.Spec.MinReadySeconds = 600
			},
			want: []string{"spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds"},
		},
		{
			name:   "metadata is validated",
			modify: func(d *appsv1.Deployment) { d.Finalizers = []string{"unqualified"} },
			want:   []string{`metadata.finalizers[0]: Invalid value: "unqualified": name is neither a standard finalizer name nor is it fully qualified`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := validDeployment()
			tc.modify(d)
			assertErrors(t, apps.ValidateDeployment(d), tc.want)
		})
	}
}

func TestValidateDeploymentUpdate(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*appsv1.Deployment)
		want   []string
	}{
		{name: "scaling", modify: func(d *appsv1.Deployment) { d.Spec.Replicas = ptr(int32(5)) }},
		{name: "new image", modify: func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:1.28" }},
		{
			name: "the selector is immutable",
			modify: func(d *appsv1.Deployment) {
				d.Spec.Selector.MatchLabels["tier"] = "front"
				d.Spec.Template.Labels["tier"] = "front"
			},
			want: []string{`spec.selector: Invalid value: {"matchLabels":{"app":"web","tier":"front"}}: field is immutable`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			oldD := validDeployment()
			newD := oldD.DeepCopy()
			tc.modify(newD)
			assertErrors(t, apps.ValidateDeploymentUpdate(newD, oldD), tc.want)
		})
	}
}

func TestValidateDeploymentStatusUpdate(t *testing.T) {
	tests := []struct {
		name        string
		old, status appsv1.DeploymentStatus
		want        []string
	}{
		{
			name:   "consistent counts",
			status: appsv1.DeploymentStatus{Replicas: 3, UpdatedReplicas: 3, ReadyReplicas: 2, AvailableReplicas: 2},
		},
		{
			name:   "negative count",
			status: appsv1.DeploymentStatus{UnavailableReplicas: -1},
			want:   []string{"status.unavailableReplicas: Invalid value: -1: must be greater than or equal to 0"},
		},
		{
			name:   "more available than ready",
			status: appsv1.DeploymentStatus{Replicas: 3, ReadyReplicas: 1, AvailableReplicas: 2},
			want:   []string{"status.availableReplicas: Invalid value: 2: cannot be greater than readyReplicas"},
		},
		{
			name:   "more ready than replicas",
			status: appsv1.DeploymentStatus{Replicas: 1, ReadyReplicas: 2},
			want:   []string{"status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas"},
		},
		{
			name:   "the collision count never goes down",
			old:    appsv1.DeploymentStatus{CollisionCount: ptr(int32(2))},
			status: appsv1.DeploymentStatus{CollisionCount: ptr(int32(1))},
			want:   []string{"status.collisionCount: Invalid value: 1: cannot be decremented"},
		},
		{
			name: "the collision count cannot be removed",
			old:  appsv1.DeploymentStatus{CollisionCount: ptr(int32(2))},
			want: []string{"status.collisionCount: Invalid value: 0: cannot be decremented"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			oldD := validDeployment()
			oldD.Status = tc.old
			newD := oldD.DeepCopy()
			newD.Status = tc.status
			assertErrors(t, apps.ValidateDeploymentStatusUpdate(newD, oldD), tc.want)
		})
	}
}

func assertErrors(t *testing.T, errs field.ErrorList, want []string) {
	t.Helper()
	var got []string
	for _, err := range errs {
		got = append(got, err.Error())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors differ (-want +got):\n%s", diff)
	}
}

func ptr[T any](v T) *T { return &v }

// TestReferenceDeploymentIsValid checks that the deployment kube-apiserver
// created passes our validation, new and as an unchanged update.
func TestReferenceDeploymentIsValid(t *testing.T) {
	_, output, err := reference.Defaulting("deployment")
	if err != nil {
		t.Fatal(err)
	}
	d := &appsv1.Deployment{}
	if err := json.Unmarshal(output, d); err != nil {
		t.Fatal(err)
	}
	assertErrors(t, apps.ValidateDeployment(d), nil)
	assertErrors(t, apps.ValidateDeploymentUpdate(d, d), nil)
	assertErrors(t, apps.ValidateDeploymentStatusUpdate(d, d), nil)
}

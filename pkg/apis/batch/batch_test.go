package batch_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/batch"
	"github.com/kapi-dev/kapi/pkg/apis/internal/reference"
)

// TestJobDefaultsMatchReference defaults the job kube-apiserver defaulted
// and compares. The generated selector and labels are the strategy's, not
// defaulting's, and are left out.
func TestJobDefaultsMatchReference(t *testing.T) {
	input, output, err := reference.Defaulting("job")
	if err != nil {
		t.Fatal(err)
	}
	scheme := runtime.NewScheme()
	if err := batchv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := batch.AddDefaults(scheme); err != nil {
		t.Fatal(err)
	}
	job := &batchv1.Job{}
	if err := json.Unmarshal(input, job); err != nil {
		t.Fatal(err)
	}
	scheme.Default(job)
	got, err := reference.ToJSONMap(job)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{}
	if err := json.Unmarshal(output, &want); err != nil {
		t.Fatal(err)
	}
	reference.RemoveFields(want, "metadata.creationTimestamp", "metadata.resourceVersion", "metadata.uid", "metadata.generation",
		"metadata.labels", "spec.selector", "spec.template.metadata.labels")
	reference.RemoveFields(got, "spec.template.metadata")
	reference.RemoveFields(want, "spec.template.metadata")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defaulted job differs from kube-apiserver's (-want +got):\n%s", diff)
	}
}

// TestReferenceJobIsValid checks that the job kube-apiserver created
// passes our validation, new, as an unchanged update and as a status
// update.
func TestReferenceJobIsValid(t *testing.T) {
	_, output, err := reference.Defaulting("job")
	if err != nil {
		t.Fatal(err)
	}
	job := &batchv1.Job{}
	if err := json.Unmarshal(output, job); err != nil {
		t.Fatal(err)
	}
	assertErrors(t, batch.ValidateJob(job), nil)
	assertErrors(t, batch.ValidateJobUpdate(job, job), nil)
	assertErrors(t, batch.ValidateJobStatusUpdate(job, job), nil)
}

func TestSetDefaultsJob(t *testing.T) {
	perIndex := &batchv1.Job{Spec: batchv1.JobSpec{Completions: ptr(int32(3)), BackoffLimitPerIndex: ptr(int32(1)),
		PodFailurePolicy: &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
			OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget}},
		}}}}}
	batch.SetDefaultsJob(perIndex)
	if *perIndex.Spec.Parallelism != 1 || *perIndex.Spec.BackoffLimit != 2147483647 {
		t.Errorf("parallelism %d, backoffLimit %d; want 1 and unlimited", *perIndex.Spec.Parallelism, *perIndex.Spec.BackoffLimit)
	}
	if *perIndex.Spec.PodReplacementPolicy != batchv1.Failed {
		t.Errorf("a job with a pod failure policy replaces pods %s, want once Failed", *perIndex.Spec.PodReplacementPolicy)
	}
	if s := perIndex.Spec.PodFailurePolicy.Rules[0].OnPodConditions[0].Status; s != corev1.ConditionTrue {
		t.Errorf("pod condition pattern status = %q, want True", s)
	}
}

func TestSetDefaultsCronJobLeavesTheJobSpecToTheJobs(t *testing.T) {
	cj := &batchv1.CronJob{}
	batch.SetDefaultsCronJob(cj)
	if cj.Spec.ConcurrencyPolicy != batchv1.AllowConcurrent || *cj.Spec.SuccessfulJobsHistoryLimit != 3 || *cj.Spec.FailedJobsHistoryLimit != 1 {
		t.Errorf("cron job defaults: %+v", cj.Spec)
	}
	if js := cj.Spec.JobTemplate.Spec; js.Completions != nil || js.BackoffLimit != nil || js.Suspend != nil {
		t.Errorf("the job template's spec got a Job's defaults: %+v", js)
	}
	if cj.Spec.JobTemplate.Spec.Template.Spec.DNSPolicy != corev1.DNSClusterFirst {
		t.Error("the job template's pod template was not defaulted")
	}
}

// validJob returns a job as the server stores it: defaulted, with the
// generated selector and labels.
func validJob() *batchv1.Job {
	uid := types.UID("0b5c6d5e-1111-2222-3333-444455556666")
	generated := map[string]string{
		"controller-uid": string(uid), "job-name": "pi",
		batchv1.ControllerUidLabel: string(uid), batchv1.JobNameLabel: "pi",
	}
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "pi", Namespace: "default", UID: uid, ResourceVersion: "1"},
		Spec: batchv1.JobSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{batchv1.ControllerUidLabel: string(uid)}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: generated},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers:    []corev1.Container{{Name: "pi", Image: "perl"}},
				},
			},
		},
	}
	batch.SetDefaultsJob(job)
	return job
}

func TestValidateJob(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*batchv1.Job)
		want   []string
	}{
		{name: "valid", modify: func(*batchv1.Job) {}},
		{
			name:   "a generated selector needs the generated labels",
			modify: func(j *batchv1.Job) { delete(j.Spec.Template.Labels, batchv1.JobNameLabel) },
			want:   []string{"spec.template.metadata.labels[batch.kubernetes.io/job-name]: Required value: must be 'pi'"},
		},
		{
			name:   "pods of a job end",
			modify: func(j *batchv1.Job) { j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyAlways },
			want:   []string{`spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"`},
		},
		{
			name: "per-index limits need indexed completion",
			modify: func(j *batchv1.Job) {
				j.Spec.BackoffLimitPerIndex = ptr(int32(1))
			},
			want: []string{"spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode"},
		},
		{
			name: "managedBy is a domain-prefixed path",
			modify: func(j *batchv1.Job) {
				j.Spec.ManagedBy = ptr("controller")
			},
			want: []string{`spec.managedBy: Invalid value: "controller": must be a domain-prefixed path (such as "acme.io/foo")`},
		},
		{
			name: "a pod failure policy rule needs one requirement and only Never restarts",
			modify: func(j *batchv1.Job) {
				j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
				j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{Action: batchv1.PodFailurePolicyActionFailJob}}}
			},
			want: []string{
				"spec.podFailurePolicy.rules[0]: Invalid value: specifying one of OnExitCodes and OnPodConditions is required",
				`spec.podReplacementPolicy: Unsupported value: "TerminatingOrFailed": supported values: "Failed"`,
				`spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is specified`,
			},
		},
		{
			name: "exit codes are ordered, distinct and not 0 for In",
			modify: func(j *batchv1.Job) {
				j.Spec.PodReplacementPolicy = ptr(batchv1.Failed)
				j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
					Action:      batchv1.PodFailurePolicyActionIgnore,
					OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{2, 0, 2}},
				}}}
			},
			want: []string{
				"spec.podFailurePolicy.rules[0].onExitCodes.values[1]: Invalid value: 0: must not be 0 for the In operator",
				"spec.podFailurePolicy.rules[0].onExitCodes.values[2]: Duplicate value: 2",
				"spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: [2,0,2]: must be ordered",
			},
		},
		{
			name: "succeeded indexes below completions",
			modify: func(j *batchv1.Job) {
				j.Spec.CompletionMode = ptr(batchv1.IndexedCompletion)
				j.Spec.Completions = ptr(int32(3))
				j.Spec.SuccessPolicy = &batchv1.SuccessPolicy{Rules: []batchv1.SuccessPolicyRule{{SucceededIndexes: ptr("0-3")}}}
			},
			want: []string{`spec.successPolicy.rules[0].succeededIndexes: Invalid value: "0-3": error parsing succeededIndexes: too large index: "3"`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			j := validJob()
			tc.modify(j)
			assertErrors(t, batch.ValidateJob(j), tc.want)
		})
	}
}

func TestValidateJobUpdate(t *testing.T) {
	old := validJob()
	changed := validJob()
	changed.Spec.Template.Spec.Containers[0].Image = "perl:5"
	errs := batch.ValidateJobUpdate(changed, old)
	if len(errs) != 1 || errs[0].Field != "spec.template" || errs[0].Detail != "field is immutable" {
		t.Fatalf("changing the template of a running job: %v", errs)
	}

	// A suspended job that never started may change its pods' resources
	// and scheduling, nothing else.
	old.Spec.Suspend = ptr(true)
	resized := old.DeepCopy()
	resized.Spec.Template.Spec.NodeSelector = map[string]string{"zone": "a"}
	resized.Spec.Template.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: mustQuantity("1")}
	assertErrors(t, batch.ValidateJobUpdate(resized, old), nil)
	resized.Spec.Template.Spec.Containers[0].Image = "perl:5"
	errs = batch.ValidateJobUpdate(resized, old)
	if len(errs) != 1 || errs[0].Field != "spec.template.spec" {
		t.Errorf("changing the image of a suspended job: %v", errs)
	}
}

func TestValidateJobStatusUpdate(t *testing.T) {
	old := validJob()
	old.Status.Succeeded = 2
	job := old.DeepCopy()
	job.Status.Succeeded = 1
	job.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}
	assertErrors(t, batch.ValidateJobStatusUpdate(job, old), []string{
		"status.completionTime: Required value: completionTime is required for Complete jobs",
		"status.conditions: Invalid value: cannot set Complete=True condition without the SuccessCriteriaMet=true condition",
		"status.startTime: Required value: startTime is required for finished job",
		"status.succeeded: Invalid value: 1: cannot decrease the succeeded counter",
	})
}

func TestValidateCronJob(t *testing.T) {
	valid := func() *batchv1.CronJob {
		cj := &batchv1.CronJob{
			ObjectMeta: metav1.ObjectMeta{Name: "hello", Namespace: "default"},
			Spec: batchv1.CronJobSpec{
				Schedule: "*/5 * * * *",
				JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{
					Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyOnFailure, Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
				}}},
			},
		}
		batch.SetDefaultsCronJob(cj)
		return cj
	}
	tests := []struct {
		name   string
		modify func(*batchv1.CronJob)
		want   []string
	}{
		{name: "valid", modify: func(*batchv1.CronJob) {}},
		{name: "descriptors are schedules", modify: func(cj *batchv1.CronJob) { cj.Spec.Schedule = "@every 1h" }},
		{
			name:   "five fields",
			modify: func(cj *batchv1.CronJob) { cj.Spec.Schedule = "* * *" },
			want:   []string{`spec.schedule: Invalid value: "* * *": expected exactly 5 fields, found 3: [* * *]`},
		},
		{
			name:   "no time zone in the schedule",
			modify: func(cj *batchv1.CronJob) { cj.Spec.Schedule = "TZ=UTC 0 * * * *" },
			want:   []string{`spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead`},
		},
		{
			name:   "a known time zone",
			modify: func(cj *batchv1.CronJob) { cj.Spec.TimeZone = ptr("Mars/Olympus") },
			want:   []string{`spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus`},
		},
		{
			name:   "the job template's selector is generated",
			modify: func(cj *batchv1.CronJob) { cj.Spec.JobTemplate.Spec.ManualSelector = ptr(true) },
			want:   []string{`spec.jobTemplate.spec.manualSelector: Unsupported value: true: supported values: "nil", "false"`},
		},
		{
			name:   "room for the timestamp of the jobs' names",
			modify: func(cj *batchv1.CronJob) { cj.Name = "a123456789a123456789a123456789a123456789a123456789abc" },
			want:   []string{`metadata.name: Invalid value: "a123456789a123456789a123456789a123456789a123456789abc": must be no more than 52 characters`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cj := valid()
			tc.modify(cj)
			assertErrors(t, batch.ValidateCronJob(cj), tc.want)
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

func mustQuantity(s string) resource.Quantity { return resource.MustParse(s) }

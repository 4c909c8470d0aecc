package printers

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestJobColumns(t *testing.T) {
	want := []string{"Name", "Status", "Completions", "Duration", "Age", "Containers*", "Images*", "Selector*"}
	if diff := cmp.Diff(want, columnNames(convert(t, &batchv1.JobList{}))); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
}

func TestJob(t *testing.T) {
	jobCondition := func(t batchv1.JobConditionType, s corev1.ConditionStatus) batchv1.JobCondition {
		return batchv1.JobCondition{Type: t, Status: s}
	}
	tests := []struct {
		name     string
		spec     batchv1.JobSpec
		status   batchv1.JobStatus
		deleting bool
		// The Status, Completions and Duration cells.
		want []any
	}{{
		name: "a job not started yet",
		spec: batchv1.JobSpec{Completions: ptr(int32(1)), Parallelism: ptr(int32(1))},
		want: []any{"Running", "0/1", ""},
	}, {
		name:   "a running job lasts as long as it has been running",
		spec:   batchv1.JobSpec{Completions: ptr(int32(5)), Parallelism: ptr(int32(2))},
		status: batchv1.JobStatus{Succeeded: 2, StartTime: agoPtr(4 * time.Minute)},
		want:   []any{"Running", "2/5", "4m"},
	}, {
		name:   "a complete job lasted until its completion",
		spec:   batchv1.JobSpec{Completions: ptr(int32(1))},
		status: batchv1.JobStatus{Succeeded: 1, StartTime: agoPtr(2 * time.Hour), CompletionTime: agoPtr(time.Hour + 59*time.Minute + 30*time.Second), Conditions: []batchv1.JobCondition{jobCondition(batchv1.JobComplete, corev1.ConditionTrue)}},
		want:   []any{"Complete", "1/1", "30s"},
	}, {
		name:   "a work queue with parallel workers",
		spec:   batchv1.JobSpec{Parallelism: ptr(int32(3))},
		status: batchv1.JobStatus{Succeeded: 1},
		want:   []any{"Running", "1/1 of 3", ""},
	}, {
		name: "a work queue with a single worker",
		spec: batchv1.JobSpec{Parallelism: ptr(int32(1))},
		want: []any{"Running", "0/1", ""},
	}, {
		name:   "a failed job",
		spec:   batchv1.JobSpec{Completions: ptr(int32(1))},
		status: batchv1.JobStatus{Conditions: []batchv1.JobCondition{jobCondition(batchv1.JobFailureTarget, corev1.ConditionTrue), jobCondition(batchv1.JobFailed, corev1.ConditionTrue)}},
		want:   []any{"Failed", "0/1", ""},
	}, {
		name:     "a job being deleted",
		spec:     batchv1.JobSpec{Completions: ptr(int32(1))},
		status:   batchv1.JobStatus{Conditions: []batchv1.JobCondition{jobCondition(batchv1.JobSuspended, corev1.ConditionTrue)}},
		deleting: true,
		want:     []any{"Terminating", "0/1", ""},
	}, {
		name:   "a suspended job",
		spec:   batchv1.JobSpec{Completions: ptr(int32(1))},
		status: batchv1.JobStatus{Conditions: []batchv1.JobCondition{jobCondition(batchv1.JobSuspended, corev1.ConditionTrue)}},
		want:   []any{"Suspended", "0/1", ""},
	}, {
		name:   "a job about to fail",
		spec:   batchv1.JobSpec{Completions: ptr(int32(1))},
		status: batchv1.JobStatus{Conditions: []batchv1.JobCondition{jobCondition(batchv1.JobFailureTarget, corev1.ConditionTrue)}},
		want:   []any{"FailureTarget", "0/1", ""},
	}, {
		name:   "conditions that are not true do not count",
		spec:   batchv1.JobSpec{Completions: ptr(int32(1))},
		status: batchv1.JobStatus{Conditions: []batchv1.JobCondition{jobCondition(batchv1.JobSuspended, corev1.ConditionFalse)}},
		want:   []any{"Running", "0/1", ""},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			job := &batchv1.Job{ObjectMeta: objectMeta("job"), Spec: tt.spec, Status: tt.status}
			if tt.deleting {
				job.DeletionTimestamp = agoPtr(time.Second)
			}
			got := rowCells(t, job)[1:4]
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Status, Completions, Duration (-want +got):\n%s", diff)
			}
		})
	}
}

func TestJobWideColumns(t *testing.T) {
	job := &batchv1.Job{
		ObjectMeta: objectMeta("pi"),
		Spec: batchv1.JobSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"batch.kubernetes.io/controller-uid": "1234"}},
			Template: template("pi", "perl:5.34"),
		},
	}
	want := []any{"3h", "pi", "perl:5.34", "batch.kubernetes.io/controller-uid=1234"}
	if diff := cmp.Diff(want, rowCells(t, job)[4:]); diff != "" {
		t.Errorf("Age, Containers, Images, Selector (-want +got):\n%s", diff)
	}
}

func TestCronJob(t *testing.T) {
	jobTemplate := batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: template("backup", "restic")}}
	tests := []struct {
		name    string
		cronJob batchv1.CronJob
		want    []any
	}{{
		name: "a cron job never scheduled",
		cronJob: batchv1.CronJob{
			Spec: batchv1.CronJobSpec{Schedule: "0 3 * * *", JobTemplate: jobTemplate},
		},
		want: []any{"backup", "0 3 * * *", "<none>", "<unset>", int64(0), "<none>", "3h", "backup", "restic", "<none>"},
	}, {
		name: "a cron job with a time zone, running",
		cronJob: batchv1.CronJob{
			Spec: batchv1.CronJobSpec{Schedule: "*/5 * * * *", TimeZone: ptr("Europe/Paris"), Suspend: ptr(false), JobTemplate: jobTemplate},
			Status: batchv1.CronJobStatus{
				Active:           []corev1.ObjectReference{{Name: "backup-1"}, {Name: "backup-2"}},
				LastScheduleTime: agoPtr(150 * time.Second),
			},
		},
		want: []any{"backup", "*/5 * * * *", "Europe/Paris", "False", int64(2), "2m30s", "3h", "backup", "restic", "<none>"},
	}, {
		name: "a suspended cron job",
		cronJob: batchv1.CronJob{
			Spec: batchv1.CronJobSpec{Schedule: "@daily", Suspend: ptr(true), JobTemplate: jobTemplate},
		},
		want: []any{"backup", "@daily", "<none>", "True", int64(0), "<none>", "3h", "backup", "restic", "<none>"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cj := tt.cronJob
			cj.ObjectMeta = objectMeta("backup")
			table := convert(t, &batchv1.CronJobList{Items: []batchv1.CronJob{cj}})
			wantColumns := []string{"Name", "Schedule", "Timezone", "Suspend", "Active", "Last Schedule", "Age", "Containers*", "Images*", "Selector*"}
			if diff := cmp.Diff(wantColumns, columnNames(table)); diff != "" {
				t.Errorf("columns (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, table.Rows[0].Cells); diff != "" {
				t.Errorf("cells (-want +got):\n%s", diff)
			}
		})
	}
}

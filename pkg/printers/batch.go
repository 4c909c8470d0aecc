package printers

import (
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	batchv1beta1 "k8s.io/api/batch/v1beta1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
)

// The printers of batch/v1. kube-apiserver describes the CronJob columns
// with the batch/v1beta1 documentation of their fields.

var jobColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("Status", "string", "Status of the job."),
	column("Completions", "string", batchv1.JobStatus{}.SwaggerDoc()["succeeded"]),
	column("Duration", "string", "Time required to complete the job."),
	ageColumn,
	containersColumn,
	imagesColumn,
	wide(column("Selector", "string", batchv1.JobSpec{}.SwaggerDoc()["selector"])),
}

func printJob(job *batchv1.Job, now time.Time) []any {
	var completions string
	switch {
	case job.Spec.Completions != nil:
		completions = fmt.Sprintf("%d/%d", job.Status.Succeeded, *job.Spec.Completions)
	case int32Value(job.Spec.Parallelism) > 1:
		completions = fmt.Sprintf("%d/1 of %d", job.Status.Succeeded, *job.Spec.Parallelism)
	default:
		completions = fmt.Sprintf("%d/1", job.Status.Succeeded)
	}

	var took string
	switch start, end := job.Status.StartTime, job.Status.CompletionTime; {
	case start == nil:
	case end == nil:
		took = duration.HumanDuration(now.Sub(start.Time))
	default:
		took = duration.HumanDuration(end.Sub(start.Time))
	}

	names, images := containerCells(job.Spec.Template.Spec.Containers)
	return []any{
		job.Name,
		jobStatus(job),
		completions,
		took,
		since(job.CreationTimestamp, now),
		names,
		images,
		metav1.FormatLabelSelector(job.Spec.Selector),
	}
}

// jobStatus is the job's state, by order of precedence: Complete, Failed,
// Terminating, Suspended, FailureTarget, Running.
func jobStatus(job *batchv1.Job) string {
	switch {
	case jobConditionTrue(job, batchv1.JobComplete):
		return "Complete"
	case jobConditionTrue(job, batchv1.JobFailed):
		return "Failed"
	case job.DeletionTimestamp != nil:
		return "Terminating"
	case jobConditionTrue(job, batchv1.JobSuspended):
		return "Suspended"
	case jobConditionTrue(job, batchv1.JobFailureTarget):
		return "FailureTarget"
	default:
		return "Running"
	}
}

// jobConditionTrue tells whether the first condition of type t is true.
func jobConditionTrue(job *batchv1.Job, t batchv1.JobConditionType) bool {
	for _, c := range job.Status.Conditions {
		if c.Type == t {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

var (
	cronJobSpecDoc   = batchv1beta1.CronJobSpec{}.SwaggerDoc()
	cronJobStatusDoc = batchv1beta1.CronJobStatus{}.SwaggerDoc()
)

var cronJobColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("Schedule", "string", cronJobSpecDoc["schedule"]),
	column("Timezone", "string", cronJobSpecDoc["timeZone"]),
	column("Suspend", "boolean", cronJobSpecDoc["suspend"]),
	column("Active", "integer", cronJobStatusDoc["active"]),
	column("Last Schedule", "string", cronJobStatusDoc["lastScheduleTime"]),
	ageColumn,
	containersColumn,
	imagesColumn,
	wide(column("Selector", "string", batchv1.JobSpec{}.SwaggerDoc()["selector"])),
}

// printCronJob renders a cron job. Its Suspend cell is a string (True,
// False or <unset>) although the column says boolean, as kube-apiserver's.
func printCronJob(cj *batchv1.CronJob, now time.Time) []any {
	lastSchedule := "<none>"
	if t := cj.Status.LastScheduleTime; t != nil {
		lastSchedule = since(*t, now)
	}
	timeZone := "<none>"
	if cj.Spec.TimeZone != nil {
		timeZone = *cj.Spec.TimeZone
	}
	template := &cj.Spec.JobTemplate.Spec
	names, images := containerCells(template.Template.Spec.Containers)
	return []any{
		cj.Name,
		cj.Spec.Schedule,
		timeZone,
		boolPtr(cj.Spec.Suspend),
		int64(len(cj.Status.Active)),
		lastSchedule,
		since(cj.CreationTimestamp, now),
		names,
		images,
		metav1.FormatLabelSelector(template.Selector),
	}
}

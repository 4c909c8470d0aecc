package batch

import (
	"math"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kapi-dev/kapi/pkg/apis/core"
)

// SetDefaultsJob applies the defaults of a Job: one completion at a time
// when neither count is given, six retries (unlimited ones when each
// index has its own limit), not suspended, pods replaced once failed
// (once terminating too, unless a pod failure policy decides), a
// generated selector; the job's labels are its template's when it has
// none. Then the defaults of its pod template.
func SetDefaultsJob(job *batchv1.Job) {
	spec := &job.Spec
	if spec.Completions == nil && spec.Parallelism == nil {
		spec.Completions = ptr[int32](1)
		spec.Parallelism = ptr[int32](1)
	}
	if spec.Parallelism == nil {
		spec.Parallelism = ptr[int32](1)
	}
	if spec.BackoffLimit == nil {
		if spec.BackoffLimitPerIndex != nil {
			spec.BackoffLimit = ptr[int32](math.MaxInt32)
		} else {
			spec.BackoffLimit = ptr[int32](6)
		}
	}
	if spec.CompletionMode == nil {
		spec.CompletionMode = ptr(batchv1.NonIndexedCompletion)
	}
	if spec.Suspend == nil {
		spec.Suspend = ptr(false)
	}
	if spec.PodReplacementPolicy == nil {
		if spec.PodFailurePolicy != nil {
			spec.PodReplacementPolicy = ptr(batchv1.Failed)
		} else {
			spec.PodReplacementPolicy = ptr(batchv1.TerminatingOrFailed)
		}
	}
	if spec.ManualSelector == nil {
		spec.ManualSelector = ptr(false)
	}
	if labels := spec.Template.Labels; labels != nil && len(job.Labels) == 0 {
		job.Labels = labels
	}
	setDefaultsTemplateOfJobSpec(spec)
}

// setDefaultsTemplateOfJobSpec applies the defaults of the parts of a
// JobSpec that have their own: the status of a pod failure policy's
// condition patterns, and the pod template.
func setDefaultsTemplateOfJobSpec(spec *batchv1.JobSpec) {
	if p := spec.PodFailurePolicy; p != nil {
		for i := range p.Rules {
			for j := range p.Rules[i].OnPodConditions {
				if p.Rules[i].OnPodConditions[j].Status == "" {
					p.Rules[i].OnPodConditions[j].Status = corev1.ConditionTrue
				}
			}
		}
	}
	core.SetDefaultsPodTemplateSpec(&spec.Template)
}

// SetDefaultsCronJob applies the defaults of a CronJob: concurrent runs
// allowed, not suspended, three successful and one failed job kept. Its
// job template's spec gets only the defaults of its pod template and pod
// failure policy: the rest is defaulted in each Job the CronJob creates.
func SetDefaultsCronJob(cj *batchv1.CronJob) {
	spec := &cj.Spec
	if spec.ConcurrencyPolicy == "" {
		spec.ConcurrencyPolicy = batchv1.AllowConcurrent
	}
	if spec.Suspend == nil {
		spec.Suspend = ptr(false)
	}
	if spec.SuccessfulJobsHistoryLimit == nil {
		spec.SuccessfulJobsHistoryLimit = ptr[int32](3)
	}
	if spec.FailedJobsHistoryLimit == nil {
		spec.FailedJobsHistoryLimit = ptr[int32](1)
	}
	setDefaultsTemplateOfJobSpec(&spec.JobTemplate.Spec)
}

func ptr[T any](v T) *T { return &v }

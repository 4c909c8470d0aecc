package gated

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kapi-dev/kapi/pkg/features"
)

// WorkloadWithJob serves a Job's spec.scheduling; kube-apiserver 1.37
// leaves it off.
const WorkloadWithJob = "WorkloadWithJob"

// JobSpec drops the disabled fields of a Job's spec, or of a CronJob's
// job template, and of its pod template; old is nil on create.
func JobSpec(g features.Gates, spec, old *batchv1.JobSpec) {
	Drop(g, jobSpecFeatures, spec, old)
	var oldTemplate *corev1.PodTemplateSpec
	if old != nil {
		oldTemplate = &old.Template
	}
	PodTemplate(g, &spec.Template, oldTemplate)
}

var jobSpecFeatures = []Feature[*batchv1.JobSpec]{
	{
		Gate: WorkloadWithJob,
		Used: func(s *batchv1.JobSpec) bool { return s.Scheduling != nil },
		Drop: func(s *batchv1.JobSpec) { s.Scheduling = nil },
	},
}

package batch

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
)

// JobSpecWarnings are the warnings of a job's spec at fldPath (spec of a
// Job, spec.jobTemplate.spec of a CronJob): an Indexed job too large for
// its failed indexes to be tracked, and its pod template's.
func JobSpecWarnings(fldPath *field.Path, spec *batchv1.JobSpec) []string {
	var warnings []string
	if spec.CompletionMode != nil && *spec.CompletionMode == batchv1.IndexedCompletion {
		var completions, parallelism int32
		if spec.Completions != nil {
			completions = *spec.Completions
		}
		if spec.Parallelism != nil {
			parallelism = *spec.Parallelism
		}
		if completions > 100_000 && parallelism > 10_000 {
			warnings = append(warnings, fmt.Sprintf("%s: In Indexed Jobs with a number of completions higher than 10^5 and a parallelism higher than 10^4, Kubernetes might not be able to track completedIndexes when a big number of indexes fail", fldPath))
		}
	}
	return append(warnings, core.PodTemplateWarnings(fldPath.Child("template"), &spec.Template)...)
}

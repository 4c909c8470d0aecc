// Package cronjob is the REST storage of batch/v1 cronjobs and of their
// /status.
package cronjob

import (
	"context"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kapi-dev/kapi/pkg/apis/batch"
	"github.com/kapi-dev/kapi/pkg/registry/batch/job"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct{ generic.DefaultStrategy }

// Strategy is the behaviour of cronjobs: metadata.generation counts
// changes of the spec, and the status is written only through /status.
var Strategy = strategy{generic.DefaultStrategy{Namespaced: true}}

func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	cj := obj.(*batchv1.CronJob)
	cj.Status = batchv1.CronJobStatus{}
	cj.Generation = 1
	// spec.scheduling needs the WorkloadWithJob feature, off by default.
	cj.Spec.JobTemplate.Spec.Scheduling = nil
}

// GetResetFields is the status, written through /status only.
func (strategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("batch/v1", []string{"status"})
}

func (strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	cj, oldCJ := obj.(*batchv1.CronJob), old.(*batchv1.CronJob)
	cj.Status = oldCJ.Status
	if oldCJ.Spec.JobTemplate.Spec.Scheduling == nil {
		cj.Spec.JobTemplate.Spec.Scheduling = nil
	}
	if !apiequality.Semantic.DeepEqual(cj.Spec, oldCJ.Spec) {
		cj.Generation++
	}
}

func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return batch.ValidateCronJob(obj.(*batchv1.CronJob))
}

func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return batch.ValidateCronJobUpdate(obj.(*batchv1.CronJob), old.(*batchv1.CronJob))
}

// WarningsOnCreate: the name of a cron job goes into its jobs' pods'
// names and hostnames.
// Then those of its job template.
func (strategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	cj := obj.(*batchv1.CronJob)
	return append(job.NameWarnings(cj.Name), batch.JobSpecWarnings(jobSpecPath, &cj.Spec.JobTemplate.Spec)...)
}

// jobSpecPath is where a cron job's job spec is.
var jobSpecPath = field.NewPath("spec", "jobTemplate", "spec")

// WarningsOnUpdate: those of the job template, when the spec changed; and
// a schedule kept with TZ= should move to timeZone. The path in the text
// is kube-apiserver's, spec.spec.schedule.
func (strategy) WarningsOnUpdate(_ context.Context, obj, old runtime.Object) []string {
	cj := obj.(*batchv1.CronJob)
	var warnings []string
	if cj.Generation != old.(*batchv1.CronJob).Generation {
		warnings = batch.JobSpecWarnings(jobSpecPath, &cj.Spec.JobTemplate.Spec)
	}
	if strings.Contains(cj.Spec.Schedule, "TZ") {
		warnings = append(warnings, "cannot use TZ or CRON_TZ in spec.spec.schedule, use timeZone instead, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details")
	}
	return warnings
}

type statusStrategy struct{ strategy }

// GetResetFields is what /status keeps: the spec.
func (statusStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("batch/v1", []string{"spec"})
}

func (statusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	obj.(*batchv1.CronJob).Spec = old.(*batchv1.CronJob).Spec
}

// ValidateUpdate checks nothing, as kube-apiserver.
func (statusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return batch.ValidateCronJobStatusUpdate(obj.(*batchv1.CronJob), old.(*batchv1.CronJob))
}

func (statusStrategy) WarningsOnUpdate(context.Context, runtime.Object, runtime.Object) []string {
	return nil
}

// Storage is the REST storage of cronjobs and their /status.
type Storage struct {
	CronJob *generic.Store
	Status  *generic.SubresourceREST
}

// NewStorage returns the storage of cronjobs.
func NewStorage(opts generic.RESTOptions) (*Storage, error) {
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &batchv1.CronJob{} },
		NewListFunc:               func() runtime.Object { return &batchv1.CronJobList{} },
		DefaultQualifiedResource:  batchv1.Resource("cronjobs"),
		SingularQualifiedResource: batchv1.Resource("cronjob"),
		KeyPrefix:                 "/cronjobs",
		CreateStrategy:            Strategy,
		UpdateStrategy:            Strategy,
		DeleteStrategy:            Strategy,
		ShortNamesList:            []string{"cj"},
		CategoriesList:            []string{"all"},
	}
	if err := opts.Complete(s, batchv1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{CronJob: s, Status: generic.NewSubresourceREST(s, statusStrategy{Strategy})}, nil
}

// Map returns the storage by path: "cronjobs" and "cronjobs/status".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.CronJob.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.CronJob, plural + "/status": s.Status}
}

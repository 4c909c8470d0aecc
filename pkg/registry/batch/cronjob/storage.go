// Package cronjob is the REST storage of batch/v1 cronjobs and of their
// /status.
package cronjob

import (
	"context"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/apis/batch"
	"github.com/kapi-dev/kapi/pkg/features"
	"github.com/kapi-dev/kapi/pkg/registry/batch/job"
	"github.com/kapi-dev/kapi/pkg/registry/gated"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct {
	generic.SpecStrategy[*batchv1.CronJob]
}

// Strategy is the behaviour of cronjobs: metadata.generation counts
// changes of the spec, and the status is written only through /status.
var Strategy = newStrategy(features.Gates{})

// newStrategy is Strategy for gates, which decide the fields of the job
// template that are kept.
func newStrategy(gates features.Gates) strategy {
	return strategy{generic.SpecStrategy[*batchv1.CronJob]{
		DefaultStrategy:    generic.DefaultStrategy{Namespaced: true},
		APIVersions:        []string{"batch/v1"},
		Spec:               generic.FieldPart(func(cj *batchv1.CronJob) *batchv1.CronJobSpec { return &cj.Spec }),
		Status:             generic.FieldPart(func(cj *batchv1.CronJob) *batchv1.CronJobStatus { return &cj.Status }),
		CountGenerations:   true,
		ValidateFunc:       batch.ValidateCronJob,
		ValidateUpdateFunc: batch.ValidateCronJobUpdate,
		DropDisabled:       func(cj, old *batchv1.CronJob) { gated.JobSpec(gates, &cj.Spec.JobTemplate.Spec, jobSpecOf(old)) },
	}}
}

// jobSpecOf is the job template's spec of old, nil on create.
func jobSpecOf(old *batchv1.CronJob) *batchv1.JobSpec {
	if old == nil {
		return nil
	}
	return &old.Spec.JobTemplate.Spec
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

// statusStrategy checks nothing, as kube-apiserver.
var statusStrategy = generic.StatusStrategy[*batchv1.CronJob]{
	SpecStrategy:             Strategy.SpecStrategy,
	ValidateStatusUpdateFunc: batch.ValidateCronJobStatusUpdate,
}

// Storage is the REST storage of cronjobs and their /status.
type Storage struct {
	CronJob *generic.Store
	Status  *generic.SubresourceREST
}

// NewStorage returns the storage of cronjobs.
func NewStorage(opts generic.RESTOptions, gates features.Gates) (*Storage, error) {
	st := newStrategy(gates)
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &batchv1.CronJob{} },
		NewListFunc:               func() runtime.Object { return &batchv1.CronJobList{} },
		DefaultQualifiedResource:  batchv1.Resource("cronjobs"),
		SingularQualifiedResource: batchv1.Resource("cronjob"),
		KeyPrefix:                 "/cronjobs",
		CreateStrategy:            st,
		UpdateStrategy:            st,
		DeleteStrategy:            st,
		ShortNamesList:            []string{"cj"},
		CategoriesList:            []string{"all"},
	}
	if err := opts.Complete(s, batchv1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{CronJob: s, Status: generic.NewSubresourceREST(s, statusStrategy)}, nil
}

// Map returns the storage by path: "cronjobs" and "cronjobs/status".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.CronJob.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.CronJob, plural + "/status": s.Status}
}

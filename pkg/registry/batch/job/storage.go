// Package job is the REST storage of batch/v1 jobs and of their /status.
package job

import (
	"context"
	"fmt"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kapi-dev/kapi/pkg/apis/batch"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/endpoints/warning"
	"github.com/kapi-dev/kapi/pkg/features"
	"github.com/kapi-dev/kapi/pkg/registry/gated"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

type strategy struct {
	generic.SpecStrategy[*batchv1.Job]
}

// Strategy is the behaviour of jobs: unless the selector is manual, the
// server generates it from the job's uid and labels the pod template to
// match; metadata.generation counts changes of the spec; the status is
// written only through /status. Deleting a job through batch/v1 orphans
// its pods unless the client says otherwise, as kube-apiserver does for
// compatibility.
var Strategy = newStrategy(features.Gates{})

// newStrategy is Strategy for gates, which decide the fields of the job
// spec and its pod template that are kept.
func newStrategy(gates features.Gates) strategy {
	return strategy{generic.SpecStrategy[*batchv1.Job]{
		DefaultStrategy:    generic.DefaultStrategy{Namespaced: true},
		APIVersions:        []string{"batch/v1"},
		Spec:               generic.FieldPart(func(job *batchv1.Job) *batchv1.JobSpec { return &job.Spec }),
		Status:             generic.FieldPart(func(job *batchv1.Job) *batchv1.JobStatus { return &job.Status }),
		CountGenerations:   true,
		ValidateFunc:       batch.ValidateJob,
		ValidateUpdateFunc: batch.ValidateJobUpdate,
		DropDisabled:       func(job, old *batchv1.Job) { gated.JobSpec(gates, &job.Spec, jobSpecOf(old)) },
	}}
}

// DefaultGarbageCollectionPolicy is Orphan in batch/v1.
func (strategy) DefaultGarbageCollectionPolicy(ctx context.Context) rest.GarbageCollectionPolicy {
	if info, ok := request.RequestInfoFrom(ctx); ok && info.APIGroup == batchv1.GroupName && info.APIVersion == "v1" {
		return rest.OrphanDependents
	}
	return rest.DeleteDependents
}

func (s strategy) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	job := obj.(*batchv1.Job)
	if job.Spec.ManualSelector == nil || !*job.Spec.ManualSelector {
		generateSelector(job)
	}
	s.SpecStrategy.PrepareForCreate(ctx, obj)
}

// jobSpecOf is the spec of old, nil on create.
func jobSpecOf(old *batchv1.Job) *batchv1.JobSpec {
	if old == nil {
		return nil
	}
	return &old.Spec
}

// generateSelector labels the pod template with the job's name and uid
// (legacy and batch.kubernetes.io labels; labels the user set are left
// for validation to judge) and selects the uid.
func generateSelector(job *batchv1.Job) {
	if job.Spec.Template.Labels == nil {
		job.Spec.Template.Labels = map[string]string{}
	}
	labels := job.Spec.Template.Labels
	for _, l := range []struct{ key, value string }{
		{"job-name", job.Name},
		{batchv1.JobNameLabel, job.Name},
		{"controller-uid", string(job.UID)},
		{batchv1.ControllerUidLabel, string(job.UID)},
	} {
		if _, found := labels[l.key]; !found {
			labels[l.key] = l.value
		}
	}
	if job.Spec.Selector == nil {
		job.Spec.Selector = &metav1.LabelSelector{}
	}
	if job.Spec.Selector.MatchLabels == nil {
		job.Spec.Selector.MatchLabels = map[string]string{}
	}
	if _, found := job.Spec.Selector.MatchLabels[batchv1.ControllerUidLabel]; !found {
		job.Spec.Selector.MatchLabels[batchv1.ControllerUidLabel] = string(job.UID)
	}
}

// WarningsOnCreate: a job's name goes into its pods' names and hostnames;
// and those of its spec.
func (strategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	job := obj.(*batchv1.Job)
	return append(NameWarnings(job.Name), batch.JobSpecWarnings(field.NewPath("spec"), &job.Spec)...)
}

// WarningsOnUpdate are those of the spec, when it changed.
func (strategy) WarningsOnUpdate(_ context.Context, obj, old runtime.Object) []string {
	job := obj.(*batchv1.Job)
	if job.Generation == old.(*batchv1.Job).Generation {
		return nil
	}
	return batch.JobSpecWarnings(field.NewPath("spec"), &job.Spec)
}

// NameWarnings warns of a job or cron job name that is not a DNS label.
func NameWarnings(name string) []string {
	if msgs := validation.IsDNS1123Label(name); len(msgs) != 0 {
		return []string{fmt.Sprintf("metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: %v", msgs)}
	}
	return nil
}

var statusStrategy = generic.StatusStrategy[*batchv1.Job]{
	SpecStrategy:             Strategy.SpecStrategy,
	ValidateStatusUpdateFunc: batch.ValidateJobStatusUpdate,
}

// selectableFields are the fields jobs can be selected by.
func selectableFields(obj runtime.Object) fields.Set {
	return fields.Set{"status.successful": strconv.Itoa(int(obj.(*batchv1.Job).Status.Succeeded))}
}

// REST is the storage of jobs: the generic store, warning on deletes
// that would orphan pods without the client asking.
type REST struct {
	*generic.Store
}

// deleteWarning is kube-apiserver's warning on a delete of jobs that
// orphans their pods by default.
const deleteWarning = "child pods are preserved by default when jobs are deleted; " +
	"set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning"

func (r *REST) warnOrphaning(ctx context.Context, opts *metav1.DeleteOptions) {
	if opts != nil && opts.PropagationPolicy == nil && opts.OrphanDependents == nil &&
		Strategy.DefaultGarbageCollectionPolicy(ctx) == rest.OrphanDependents {
		warning.AddWarning(ctx, deleteWarning)
	}
}

// Delete deletes a job, warning when its pods are orphaned by default.
func (r *REST) Delete(ctx context.Context, name string, deleteValidation rest.ValidateObjectFunc, opts *metav1.DeleteOptions) (runtime.Object, bool, error) {
	r.warnOrphaning(ctx, opts)
	return r.Store.Delete(ctx, name, deleteValidation, opts)
}

// DeleteCollection deletes jobs, warning as Delete does.
func (r *REST) DeleteCollection(ctx context.Context, deleteValidation rest.ValidateObjectFunc, opts *metav1.DeleteOptions, listOpts *metav1.ListOptions) (runtime.Object, error) {
	r.warnOrphaning(ctx, opts)
	return r.Store.DeleteCollection(ctx, deleteValidation, opts, listOpts)
}

// Storage is the REST storage of jobs and their /status.
type Storage struct {
	Job    *REST
	Status *generic.SubresourceREST
}

// NewStorage returns the storage of jobs.
func NewStorage(opts generic.RESTOptions, gates features.Gates) (*Storage, error) {
	st := newStrategy(gates)
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &batchv1.Job{} },
		NewListFunc:               func() runtime.Object { return &batchv1.JobList{} },
		DefaultQualifiedResource:  batchv1.Resource("jobs"),
		SingularQualifiedResource: batchv1.Resource("job"),
		KeyPrefix:                 "/jobs",
		FieldsFunc:                selectableFields,
		UnknownFieldSelector:      func(f string) error { return fmt.Errorf("field label %q not supported for Job", f) },
		CreateStrategy:            st,
		UpdateStrategy:            st,
		DeleteStrategy:            st,
		CategoriesList:            []string{"all"},
	}
	if err := opts.Complete(s, batchv1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	return &Storage{Job: &REST{Store: s}, Status: generic.NewSubresourceREST(s, statusStrategy)}, nil
}

// Map returns the storage by path: "jobs" and "jobs/status".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.Job.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.Job, plural + "/status": s.Status}
}

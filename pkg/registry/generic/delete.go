package generic

import (
	"context"
	"errors"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/registry/rest"
	"github.com/kapi-dev/kapi/pkg/storage"
)

// Finalizers the API server itself adds for a delete's propagation policy.
// The garbage collector removes them; until then the object stays, its
// deletionTimestamp set.
const (
	FinalizerOrphanDependents = metav1.FinalizerOrphanDependents
	FinalizerDeleteDependents = metav1.FinalizerDeleteDependents
)

func asStorageError(err error, target **storage.Error) bool { return errors.As(err, target) }

// Delete deletes the named object, or marks it for deletion when
// finalizers or a grace period hold it.
func (s *Store) Delete(ctx context.Context, name string, deleteValidation rest.ValidateObjectFunc, opts *metav1.DeleteOptions) (runtime.Object, bool, error) {
	key, err := s.key(ctx, name)
	if err != nil {
		return nil, false, err
	}
	if opts == nil {
		opts = &metav1.DeleteOptions{}
	}
	// The handlers validate what clients send; in-process callers are
	// held to the same rules. A negative grace period is not an error:
	// kube-apiserver accepts it (graceful strategies treat it as zero).
	if errs := metav1validation.ValidateDeleteOptions(opts); len(errs) > 0 {
		return nil, false, apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "DeleteOptions"}, "", errs)
	}
	existing := s.NewFunc()
	if err := s.Storage.Get(ctx, key, storage.GetOptions{}, existing); err != nil {
		return nil, false, s.interpretError(err, name)
	}
	if err := s.checkPreconditions(existing, opts.Preconditions, name); err != nil {
		return nil, false, err
	}
	if deleteValidation != nil {
		if err := deleteValidation(ctx, existing.DeepCopyObject()); err != nil {
			return nil, false, err
		}
	}

	if m, err := meta.Accessor(existing); err == nil {
		if current := m.GetDeletionGracePeriodSeconds(); m.GetDeletionTimestamp() != nil && current != nil && *current > 0 {
			return s.shortenGracePeriod(ctx, key, name, existing, *current, opts)
		}
	}
	graceful, pending, err := s.markForDeletion(ctx, key, name, existing, opts)
	if err != nil {
		return nil, false, err
	}
	if pending != nil {
		// Finalizers or a grace period keep the object for now.
		return pending, false, nil
	}
	_ = graceful
	if isDryRun(opts.DryRun) {
		return s.deleteResult(existing), true, nil
	}
	return s.deleteNow(ctx, key, name, opts.Preconditions)
}

// deleteNow removes the object from storage and answers as a completed
// delete does.
func (s *Store) deleteNow(ctx context.Context, key, name string, pre *metav1.Preconditions) (runtime.Object, bool, error) {
	out, err := s.removeFromStorage(ctx, key, name, pre)
	if err != nil {
		return nil, false, err
	}
	return s.deleteResult(out), true, nil
}

// removeFromStorage removes the object from storage and returns it as it
// was last stored.
func (s *Store) removeFromStorage(ctx context.Context, key, name string, pre *metav1.Preconditions) (runtime.Object, error) {
	out := s.NewFunc()
	var sp *storage.Preconditions
	if pre != nil {
		sp = &storage.Preconditions{UID: pre.UID, ResourceVersion: pre.ResourceVersion}
	}
	validate := func(_ context.Context, cur runtime.Object) error {
		return s.checkPreconditions(cur, pre, name)
	}
	if err := s.Storage.Delete(ctx, key, out, sp, validate); err != nil {
		return nil, s.interpretError(err, name)
	}
	if s.AfterDelete != nil {
		s.AfterDelete(ctx, out)
	}
	return out, nil
}

// deleteResult is what a completed delete answers: the object, or a Success
// Status naming it.
func (s *Store) deleteResult(obj runtime.Object) runtime.Object {
	if s.ReturnDeletedObject {
		return obj
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return obj
	}
	return &metav1.Status{
		Status: metav1.StatusSuccess,
		Details: &metav1.StatusDetails{
			Name:  m.GetName(),
			Group: s.DefaultQualifiedResource.Group,
			Kind:  s.DefaultQualifiedResource.Resource,
			UID:   m.GetUID(),
		},
	}
}

// checkPreconditions compares the delete's preconditions with the current
// object, with kube-apiserver's messages.
func (s *Store) checkPreconditions(obj runtime.Object, pre *metav1.Preconditions, name string) error {
	if pre == nil {
		return nil
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	byKind := schema.GroupResource{Group: s.DefaultQualifiedResource.Group, Resource: s.kind().Kind}
	if pre.UID != nil && *pre.UID != m.GetUID() {
		return apierrors.NewConflict(byKind, name, fmt.Errorf(
			"the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", *pre.UID, m.GetUID()))
	}
	if pre.ResourceVersion != nil && *pre.ResourceVersion != m.GetResourceVersion() {
		return apierrors.NewConflict(byKind, name, fmt.Errorf(
			"the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified", *pre.ResourceVersion, m.GetResourceVersion()))
	}
	return nil
}

// markForDeletion handles the deletes that do not remove the object yet:
// an object with finalizers (its own, or those its propagation policy
// adds) and a graceful delete get a deletionTimestamp and stay. It returns
// the updated object in pending when that is the case.
func (s *Store) markForDeletion(ctx context.Context, key, name string, existing runtime.Object, opts *metav1.DeleteOptions) (graceful bool, pending runtime.Object, err error) {
	em, err := meta.Accessor(existing)
	if err != nil {
		return false, nil, apierrors.NewInternalError(err)
	}
	gracePeriod := s.gracePeriod(ctx, existing, opts)
	graceful = gracePeriod != nil && *gracePeriod > 0
	finalizers := s.finalizersAfterDelete(ctx, em, opts)
	alreadyDeleting := em.GetDeletionTimestamp() != nil
	if !graceful && len(finalizers) == 0 {
		return false, nil, nil
	}
	if alreadyDeleting && !graceful && slices.Equal(finalizers, em.GetFinalizers()) {
		// A repeated delete of an object already waiting on its
		// finalizers changes nothing.
		return false, existing, nil
	}
	out := s.NewFunc()
	dryRun := isDryRun(opts.DryRun)
	var result runtime.Object
	err = s.Storage.GuaranteedUpdate(ctx, key, out, false, nil, func(cur runtime.Object, _ storage.ResponseMeta) (runtime.Object, error) {
		if err := s.checkPreconditions(cur, opts.Preconditions, name); err != nil {
			return nil, err
		}
		obj := cur.DeepCopyObject()
		m, _ := meta.Accessor(obj)
		finalizers := s.finalizersAfterDelete(ctx, m, opts)
		now := s.now()
		if m.GetDeletionTimestamp() == nil {
			ts := now
			if graceful {
				ts = metav1.NewTime(now.Add(secondsDuration(*gracePeriod)))
			}
			m.SetDeletionTimestamp(&ts)
			// The deletion is a change observers of the generation
			// must see, as kube-apiserver counts it.
			if g := m.GetGeneration(); g > 0 {
				m.SetGeneration(g + 1)
			}
		}
		var zero int64
		if graceful {
			m.SetDeletionGracePeriodSeconds(gracePeriod)
		} else if m.GetDeletionGracePeriodSeconds() == nil {
			m.SetDeletionGracePeriodSeconds(&zero)
		}
		m.SetFinalizers(finalizers)
		if gs, ok := s.DeleteStrategy.(interface {
			PrepareForDelete(ctx context.Context, obj runtime.Object)
		}); ok {
			gs.PrepareForDelete(ctx, obj)
		}
		result = obj
		if dryRun {
			return cur, nil
		}
		return obj, nil
	})
	if err != nil {
		return false, nil, s.interpretError(err, name)
	}
	if dryRun {
		return graceful, result, nil
	}
	return graceful, out, nil
}

// shortenGracePeriod is a delete of an object whose graceful deletion is
// under way, with current seconds of grace. As in kube-apiserver, a delete
// may only shorten the grace period: one that asks for no period, or a
// period as long or longer, changes nothing and answers with the object.
// A shorter period moves the deletion timestamp with it (to the time of
// the first delete plus the new period); a period of 0 or less then
// removes the object at once, unless finalizers keep it, answering with
// its last state. (kube-apiserver 1.37.1 removes the object even when
// such a delete is a dry run; kapi honours the dry run.)
func (s *Store) shortenGracePeriod(ctx context.Context, key, name string, existing runtime.Object, current int64, opts *metav1.DeleteOptions) (runtime.Object, bool, error) {
	if opts.GracePeriodSeconds == nil || *opts.GracePeriodSeconds >= current {
		return existing, false, nil
	}
	period := max(*opts.GracePeriodSeconds, 0)
	dryRun := isDryRun(opts.DryRun)
	out := s.NewFunc()
	var result runtime.Object
	var finalizers []string
	err := s.Storage.GuaranteedUpdate(ctx, key, out, false, nil, func(cur runtime.Object, _ storage.ResponseMeta) (runtime.Object, error) {
		if err := s.checkPreconditions(cur, opts.Preconditions, name); err != nil {
			return nil, err
		}
		obj := cur.DeepCopyObject()
		m, _ := meta.Accessor(obj)
		if ts, grace := m.GetDeletionTimestamp(), m.GetDeletionGracePeriodSeconds(); ts != nil && grace != nil {
			requested := metav1.NewTime(ts.Add(secondsDuration(period - *grace)))
			m.SetDeletionTimestamp(&requested)
		}
		m.SetDeletionGracePeriodSeconds(&period)
		finalizers = s.finalizersAfterDelete(ctx, m, opts)
		m.SetFinalizers(finalizers)
		result = obj
		if dryRun {
			return cur, nil
		}
		return obj, nil
	})
	if err != nil {
		return nil, false, s.interpretError(err, name)
	}
	if dryRun {
		return result, false, nil
	}
	if period > 0 || len(finalizers) > 0 {
		return out, false, nil
	}
	return s.deleteNow(ctx, key, name, opts.Preconditions)
}

// gracePeriod is the grace period a graceful delete strategy grants, or
// nil for resources deleted at once.
func (s *Store) gracePeriod(ctx context.Context, obj runtime.Object, opts *metav1.DeleteOptions) *int64 {
	gs, ok := s.DeleteStrategy.(rest.GracefulDeleteStrategy)
	if !ok {
		return nil
	}
	o := &rest.GracefulDeleteOptions{GracePeriodSeconds: opts.GracePeriodSeconds}
	if !gs.CheckGracefulDelete(ctx, obj, o) {
		return nil
	}
	return o.GracePeriodSeconds
}

// finalizersAfterDelete is the object's finalizer list once the delete's
// propagation policy is applied: Orphan adds the orphan finalizer,
// Foreground the foregroundDeletion one, Background removes both.
func (s *Store) finalizersAfterDelete(ctx context.Context, m metav1.Object, opts *metav1.DeleteOptions) []string {
	policy := propagationPolicy(opts)
	if policy == nil && s.DeleteStrategy != nil && s.DeleteStrategy.DefaultGarbageCollectionPolicy(ctx) == rest.OrphanDependents {
		orphan := metav1.DeletePropagationOrphan
		policy = &orphan
	}
	current := m.GetFinalizers()
	if m.GetDeletionTimestamp() == nil {
		for _, f := range s.FinalizersOnDelete {
			if !slices.Contains(current, f) {
				current = append(slices.Clip(current), f)
			}
		}
	}
	if policy == nil {
		// Without a policy, a finalizer the object already has decides.
		return current
	}
	out := make([]string, 0, len(current)+1)
	for _, f := range current {
		if f != FinalizerOrphanDependents && f != FinalizerDeleteDependents {
			out = append(out, f)
		}
	}
	switch *policy {
	case metav1.DeletePropagationOrphan:
		out = append(out, FinalizerOrphanDependents)
	case metav1.DeletePropagationForeground:
		out = append(out, FinalizerDeleteDependents)
	}
	return out
}

// propagationPolicy folds the deprecated orphanDependents option into the
// propagation policy.
func propagationPolicy(opts *metav1.DeleteOptions) *metav1.DeletionPropagation {
	if opts.PropagationPolicy != nil {
		return opts.PropagationPolicy
	}
	if opts.OrphanDependents != nil {
		p := metav1.DeletePropagationBackground
		if *opts.OrphanDependents {
			p = metav1.DeletePropagationOrphan
		}
		return &p
	}
	return nil
}

// DeleteCollection deletes every object the list options select and
// returns them as they were listed, before the delete (as kube-apiserver
// does: a dry run answers the same list). Every delete is held to the
// options' preconditions; the first failure other than NotFound ends the
// request.
func (s *Store) DeleteCollection(ctx context.Context, deleteValidation rest.ValidateObjectFunc, opts *metav1.DeleteOptions, listOpts *metav1.ListOptions) (runtime.Object, error) {
	lo := listOpts.DeepCopy()
	lo.Limit, lo.Continue = 0, ""
	list, err := s.List(ctx, lo)
	if err != nil {
		return nil, err
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	deleted := make([]runtime.Object, 0, len(items))
	for _, item := range items {
		m, err := meta.Accessor(item)
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		_, _, err = s.Delete(ctxWithNamespace(ctx, m.GetNamespace()), m.GetName(), deleteValidation, opts.DeepCopy())
		if err != nil {
			if apierrors.IsNotFound(err) {
				continue // gone already: that is what was asked.
			}
			return nil, err
		}
		deleted = append(deleted, item)
	}
	if err := meta.SetList(list, deleted); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return list, nil
}

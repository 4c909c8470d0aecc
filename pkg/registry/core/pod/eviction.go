package pod

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"

	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// DisruptionBudgets are the PodDisruptionBudgets an eviction honours
// (the policy/v1 storage).
type DisruptionBudgets interface {
	// List returns the budgets of a namespace.
	List(ctx context.Context, namespace string) ([]policyv1.PodDisruptionBudget, error)
	// Get returns one budget, read again after a conflict.
	Get(ctx context.Context, namespace, name string) (*policyv1.PodDisruptionBudget, error)
	// UpdateStatus writes a budget's status; a budget changed since it
	// was read is a Conflict.
	UpdateStatus(ctx context.Context, pdb *policyv1.PodDisruptionBudget) error
}

// maxDisruptedPods bounds the evictions a budget records before its
// controller confirms them, as kube-apiserver does.
const maxDisruptedPods = 2000

// evictionRetry is kube-apiserver's backoff for evictions that meet
// conflicts: 20 tries, half a second apart.
var evictionRetry = wait.Backoff{Steps: 20, Duration: 500 * time.Millisecond, Factor: 1.0, Jitter: 0.1}

var evictionKind = policyv1.SchemeGroupVersion.WithKind("Eviction")

// EvictionREST is pods/eviction: a POST of a policy/v1 Eviction deletes
// the pod if its PodDisruptionBudget allows, and takes one disruption
// from the budget.
type EvictionREST struct {
	pods   *generic.Store
	status *generic.SubresourceREST
	pdbs   DisruptionBudgets
}

var (
	_ rest.Creater                  = &EvictionREST{}
	_ rest.GroupVersionKindProvider = &EvictionREST{}
)

func (r *EvictionREST) New() runtime.Object   { return &policyv1.Eviction{} }
func (r *EvictionREST) Destroy()              {}
func (r *EvictionREST) NamespaceScoped() bool { return true }
func (r *EvictionREST) GroupVersionKind(schema.GroupVersion) schema.GroupVersionKind {
	return evictionKind
}

// Create evicts the pod the Eviction names.
func (r *EvictionREST) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, opts *metav1.CreateOptions) (runtime.Object, error) {
	eviction := obj.(*policyv1.Eviction)
	name := eviction.Name
	if info, ok := request.RequestInfoFrom(ctx); ok && info.Name != "" {
		name = info.Name
	}
	if name != eviction.Name {
		return nil, apierrors.NewBadRequest("name in URL does not match name in Eviction object")
	}
	if d := eviction.DeleteOptions; d != nil && d.IgnoreStoreReadErrorWithClusterBreakingPotential != nil && *d.IgnoreStoreReadErrorWithClusterBreakingPotential {
		return nil, apierrors.NewInvalid(evictionKind.GroupKind(), name, field.ErrorList{
			field.Invalid(field.NewPath("deleteOptions").Child("ignoreStoreReadErrorWithClusterBreakingPotential"), true, "can not be set for pod eviction, try after removing the option"),
		})
	}
	deleteOptions, err := evictionDeleteOptions(eviction, opts)
	if err != nil {
		return nil, err
	}
	if createValidation != nil {
		if err := createValidation(ctx, eviction.DeepCopyObject()); err != nil {
			return nil, err
		}
	}

	// A pod that is not running (or is going already) is evicted
	// whatever its budgets say.
	var pod *corev1.Pod
	deleted := false
	retryable := apierrors.IsConflict
	if hasResourceVersion(deleteOptions) {
		retryable = func(error) bool { return false }
	}
	err = retry.OnError(evictionRetry, retryable, func() error {
		if pod, err = r.get(ctx, name); err != nil {
			return err
		}
		if !ignoresBudgets(pod) {
			return nil
		}
		opts := deleteOptions
		if enforcesResourceVersion(pod) && !hasResourceVersion(deleteOptions) {
			opts = withResourceVersion(deleteOptions, pod.ResourceVersion)
		}
		if err := r.markAndDelete(ctx, name, opts); err != nil {
			return err
		}
		deleted = true
		return nil
	})
	switch {
	case err != nil:
		return nil, err
	case deleted:
		return &metav1.Status{Status: metav1.StatusSuccess}, nil
	}

	budgets, err := r.budgetsOf(ctx, pod)
	if err != nil {
		return nil, err
	}
	if len(budgets) > 1 {
		return &metav1.Status{
			Status:  metav1.StatusFailure,
			Message: "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
			Code:    500,
		}, nil
	}
	pinned := false // delete only the pod that was judged
	if len(budgets) == 1 {
		pdb := &budgets[0]
		switch {
		case !podReady(pod) && pdb.Spec.UnhealthyPodEvictionPolicy != nil && *pdb.Spec.UnhealthyPodEvictionPolicy == policyv1.AlwaysAllow,
			!podReady(pod) && pdb.Status.CurrentHealthy >= pdb.Status.DesiredHealthy && pdb.Status.DesiredHealthy > 0:
			// An unhealthy pod does not count against the budget.
			pinned = true
		default:
			refresh := false
			err := retry.RetryOnConflict(evictionRetry, func() error {
				if refresh {
					if pdb, err = r.pdbs.Get(ctx, pod.Namespace, pdb.Name); err != nil {
						return err
					}
				}
				if err := r.takeDisruption(ctx, pod.Name, *pdb, len(deleteOptions.DryRun) > 0); err != nil {
					refresh = true
					return err
				}
				return nil
			})
			if wait.Interrupted(err) {
				err = apierrors.NewTimeoutError(fmt.Sprintf("couldn't update PodDisruptionBudget %q due to conflicts", pdb.Name), 10)
			}
			if err != nil {
				return nil, err
			}
		}
	}
	opts2 := deleteOptions
	if pinned {
		opts2 = withResourceVersion(deleteOptions, pod.ResourceVersion)
	}
	if err := r.markAndDelete(ctx, name, opts2); err != nil {
		if apierrors.IsConflict(err) && pinned && !hasResourceVersion(deleteOptions) {
			return nil, budgetBusy(budgets[0].Name)
		}
		return nil, err
	}
	return &metav1.Status{Status: metav1.StatusSuccess}, nil
}

// evictionDeleteOptions are the Eviction's delete options with the
// request's dry-run, which must agree with theirs.
func evictionDeleteOptions(eviction *policyv1.Eviction, opts *metav1.CreateOptions) (*metav1.DeleteOptions, error) {
	switch d := eviction.DeleteOptions; {
	case d == nil:
		return &metav1.DeleteOptions{DryRun: opts.DryRun}, nil
	case len(d.DryRun) == 0:
		d.DryRun = opts.DryRun
		return d, nil
	case len(opts.DryRun) == 0:
		return d, nil
	case !reflect.DeepEqual(opts.DryRun, d.DryRun):
		return nil, fmt.Errorf("Non-matching dry-run options in request and content: %v and %v", opts.DryRun, d.DryRun)
	}
	return eviction.DeleteOptions, nil
}

func (r *EvictionREST) get(ctx context.Context, name string) (*corev1.Pod, error) {
	obj, err := r.pods.Get(ctx, name, &metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return obj.(*corev1.Pod), nil
}

// ignoresBudgets: a pod that has finished, is not running yet or is
// being deleted is evicted freely.
func ignoresBudgets(pod *corev1.Pod) bool {
	switch pod.Status.Phase {
	case corev1.PodSucceeded, corev1.PodFailed, corev1.PodPending:
		return true
	}
	return pod.DeletionTimestamp != nil
}

func enforcesResourceVersion(pod *corev1.Pod) bool {
	switch pod.Status.Phase {
	case corev1.PodSucceeded, corev1.PodFailed:
		return false
	}
	return pod.DeletionTimestamp == nil
}

func hasResourceVersion(opts *metav1.DeleteOptions) bool {
	return opts.Preconditions != nil && opts.Preconditions.ResourceVersion != nil
}

func withResourceVersion(opts *metav1.DeleteOptions, rv string) *metav1.DeleteOptions {
	out := opts.DeepCopy()
	if out.Preconditions == nil {
		out.Preconditions = &metav1.Preconditions{}
	}
	out.Preconditions.ResourceVersion = &rv
	return out
}

func podReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// markAndDelete gives the pod the DisruptionTarget condition (unless the
// eviction is a dry run) and deletes it with opts.
func (r *EvictionREST) markAndDelete(ctx context.Context, name string, opts *metav1.DeleteOptions) error {
	if len(opts.DryRun) == 0 {
		updated, _, err := r.status.Update(ctx, name, disruptionTarget{opts.Preconditions}, nil, nil, false, &metav1.UpdateOptions{})
		if err != nil {
			return err
		}
		if hasResourceVersion(opts) {
			opts = withResourceVersion(opts, updated.(*corev1.Pod).ResourceVersion)
		}
	}
	_, _, err := r.pods.Delete(ctx, name, nil, opts)
	return err
}

// disruptionTarget marks the current pod as about to be evicted, if the
// preconditions hold.
type disruptionTarget struct{ preconditions *metav1.Preconditions }

func (d disruptionTarget) UpdatedObject(_ context.Context, old runtime.Object) (runtime.Object, error) {
	if old == nil {
		return nil, errors.New("the pod is gone")
	}
	pod := old.(*corev1.Pod).DeepCopy()
	if p := d.preconditions; p != nil {
		gr := schema.GroupResource{Resource: "Pod"}
		if p.UID != nil && *p.UID != "" && *p.UID != pod.UID {
			return nil, apierrors.NewConflict(gr, pod.Name, fmt.Errorf("the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", *p.UID, pod.UID))
		}
		if p.ResourceVersion != nil && *p.ResourceVersion != "" && *p.ResourceVersion != pod.ResourceVersion {
			return nil, apierrors.NewConflict(gr, pod.Name, fmt.Errorf("the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified", *p.ResourceVersion, pod.ResourceVersion))
		}
	}
	setPodCondition(pod, corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: "EvictionByEvictionAPI", Message: "Eviction API: evicting"})
	return pod, nil
}

// setPodCondition sets a condition, its transition time moving only when
// its status changes.
func setPodCondition(pod *corev1.Pod, c corev1.PodCondition) {
	now := metav1.Now()
	for i := range pod.Status.Conditions {
		cur := &pod.Status.Conditions[i]
		if cur.Type != c.Type {
			continue
		}
		if cur.Status != c.Status {
			cur.LastTransitionTime = now
		}
		cur.Status, cur.Reason, cur.Message = c.Status, c.Reason, c.Message
		return
	}
	c.LastTransitionTime = now
	pod.Status.Conditions = append(pod.Status.Conditions, c)
}

// budgetsOf are the budgets of the pod's namespace whose selector
// selects it.
func (r *EvictionREST) budgetsOf(ctx context.Context, pod *corev1.Pod) ([]policyv1.PodDisruptionBudget, error) {
	all, err := r.pdbs.List(ctx, pod.Namespace)
	if err != nil {
		return nil, err
	}
	var out []policyv1.PodDisruptionBudget
	for _, pdb := range all {
		if pdb.Namespace != pod.Namespace {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil || !sel.Matches(labels.Set(pod.Labels)) {
			continue
		}
		out = append(out, pdb)
	}
	return out, nil
}

// takeDisruption takes one of the budget's allowed disruptions for the
// pod, recording it in disruptedPods, or says why it cannot.
func (r *EvictionREST) takeDisruption(ctx context.Context, podName string, pdb policyv1.PodDisruptionBudget, dryRun bool) error {
	if pdb.Status.ObservedGeneration < pdb.Generation {
		return budgetBusy(pdb.Name)
	}
	refuse := func(reason, cause string) error {
		err := apierrors.NewForbidden(policyv1.Resource("poddisruptionbudget"), pdb.Name, errors.New(reason))
		err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{
			Type: policyv1.DisruptionBudgetCause, Message: fmt.Sprintf("The disruption budget %s does not allow evicting pods currently: %s", pdb.Name, cause),
		})
		return err
	}
	if pdb.Status.DisruptionsAllowed < 0 {
		return refuse("pdb disruptions allowed is negative", "pdb disruptions allowed is negative")
	}
	if len(pdb.Status.DisruptedPods) > maxDisruptedPods {
		return refuse("DisruptedPods map too big - too many evictions not confirmed by PDB controller", "too many pending evictions not confirmed by PDB controller")
	}
	if pdb.Status.DisruptionsAllowed == 0 {
		err := apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0)
		cond := apimeta.FindStatusCondition(pdb.Status.Conditions, policyv1.DisruptionAllowedCondition)
		var msg string
		switch {
		case cond != nil && cond.Status == metav1.ConditionFalse && cond.Message != "" && cond.Reason == policyv1.SyncFailedReason:
			msg = fmt.Sprintf("The disruption budget %s does not allow evicting pods currently because it failed sync: %s", pdb.Name, cond.Message)
		case pdb.Status.CurrentHealthy <= pdb.Status.DesiredHealthy:
			msg = fmt.Sprintf("The disruption budget %s needs %d healthy pods and has %d currently", pdb.Name, pdb.Status.DesiredHealthy, pdb.Status.CurrentHealthy)
		case cond != nil && cond.Status == metav1.ConditionFalse && cond.Message != "":
			msg = fmt.Sprintf("The disruption budget %s does not allow evicting pods currently (%s): %s", pdb.Name, cond.Reason, cond.Message)
		default:
			msg = fmt.Sprintf("The disruption budget %s does not allow evicting pods currently", pdb.Name)
		}
		err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{Type: policyv1.DisruptionBudgetCause, Message: msg})
		return err
	}
	pdb.Status.DisruptionsAllowed--
	if pdb.Status.DisruptionsAllowed == 0 {
		apimeta.SetStatusCondition(&pdb.Status.Conditions, metav1.Condition{
			Type: policyv1.DisruptionAllowedCondition, Status: metav1.ConditionFalse,
			Reason: policyv1.InsufficientPodsReason, ObservedGeneration: pdb.Status.ObservedGeneration,
		})
	}
	if dryRun {
		return nil
	}
	if pdb.Status.DisruptedPods == nil {
		pdb.Status.DisruptedPods = map[string]metav1.Time{}
	}
	pdb.Status.DisruptedPods[podName] = metav1.Now()
	return r.pdbs.UpdateStatus(ctx, &pdb)
}

// budgetBusy is the 429 of a budget its controller has not caught up
// with.
func budgetBusy(name string) error {
	err := apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 10)
	err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{
		Type: policyv1.DisruptionBudgetCause, Message: fmt.Sprintf("The disruption budget %s is still being processed by the server.", name),
	})
	return err
}

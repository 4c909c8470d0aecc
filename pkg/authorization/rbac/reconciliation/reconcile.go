// Package reconciliation puts the RBAC bootstrap policy in place when
// kapi starts, as kube-apiserver's rbac/bootstrap-roles post-start hook
// does: it creates what is missing and brings back what was removed,
// without taking away what administrators added.
//
// For each object of the policy:
//   - missing: it is created (a namespaced one after its namespace, which
//     is created if need be);
//   - present with annotation rbac.authorization.kubernetes.io/autoupdate
//     "false": it is left alone, whatever it lacks (the administrator's
//     opt-out);
//   - present otherwise: the policy's labels and annotations are added
//     where the object lacks the key (an existing value wins); rules the
//     object's rules do not cover are appended, one verb and resource at
//     a time; extra rules stay; for a ClusterRole, missing aggregation
//     selectors are appended, extra ones stay, and an aggregationRule the
//     policy does not have is removed (the role's rules would otherwise be
//     overwritten by the aggregation controller); the rules of aggregated
//     roles are the controller's business, so the policy declares none;
//   - a binding is given its missing subjects (extra ones stay); one whose
//     roleRef differs, which the API does not let anyone change, is
//     deleted (on its uid) and created anew.
//
// Everything is done through client-go's typed clients, so it runs the
// same against kapi's loopback client and client-go's fake clientset.
package reconciliation

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"

	"github.com/kapi-dev/kapi/pkg/apis/rbac"
	"github.com/kapi-dev/kapi/pkg/authorization/rbac/bootstrappolicy"
	"github.com/kapi-dev/kapi/pkg/client"
)

// PostStartHookName is the name kube-apiserver gives the hook, which
// /readyz reports as poststarthook/rbac/bootstrap-roles.
const PostStartHookName = "rbac/bootstrap-roles"

// Config is what Ensure needs.
type Config struct {
	ClusterRoles        client.Interface[*rbacv1.ClusterRole, *rbacv1.ClusterRoleList]
	ClusterRoleBindings client.Interface[*rbacv1.ClusterRoleBinding, *rbacv1.ClusterRoleBindingList]
	Roles               client.Namespaced[*rbacv1.Role, *rbacv1.RoleList]
	RoleBindings        client.Namespaced[*rbacv1.RoleBinding, *rbacv1.RoleBindingList]
	Namespaces          client.Interface[*corev1.Namespace, *corev1.NamespaceList]
	Policy              bootstrappolicy.Policy
	Logger              *slog.Logger
	// Interval and Timeout bound the wait for the API to answer:
	// kube-apiserver tries every second for 30 seconds. Zero means those.
	Interval, Timeout time.Duration
}

// Ensure waits until the RBAC API answers, then reconciles every object
// of the policy. A failure on one object is logged and does not stop the
// others, as in kube-apiserver: the more of the policy is in place, the
// better. Ensure fails only when the API never answered within the
// timeout (kube-apiserver then stops: a cluster without its policy is
// not usable) or ctx ended.
func Ensure(ctx context.Context, c Config) error {
	log := c.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	interval, timeout := c.Interval, c.Timeout
	if interval == 0 {
		interval = time.Second
	}
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	r := &reconciler{c: c, log: log}
	err := wait.PollUntilContextTimeout(ctx, interval, timeout, true, func(ctx context.Context) (bool, error) {
		// The API answers once storage does: list before writing. The
		// lists are also the first read of every object, so that on a
		// fresh cluster the policy costs only its creates, and on a
		// restart, with the policy in place, no request at all.
		if err := r.list(ctx); err != nil {
			log.Warn("waiting for the RBAC API", "err", err)
			return false, nil
		}
		if err := r.primeAggregated(ctx); err != nil {
			log.Warn("priming aggregated clusterroles", "err", err)
			return false, nil
		}
		if err := r.primeSplitBindings(ctx); err != nil {
			log.Warn("priming split clusterrolebindings", "err", err)
			return false, nil
		}
		r.all(ctx)
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("unable to initialize roles: %w", err)
	}
	return nil
}

type reconciler struct {
	c   Config
	log *slog.Logger
	// listed are the objects of each kind found at the start, by
	// namespace/name.
	listed struct {
		clusterRoles        map[string]*rbacv1.ClusterRole
		clusterRoleBindings map[string]*rbacv1.ClusterRoleBinding
		roles               map[string]*rbacv1.Role
		roleBindings        map[string]*rbacv1.RoleBinding
	}
}

// list reads every object of the four kinds.
func (r *reconciler) list(ctx context.Context) error {
	all := metav1.ListOptions{}
	crs, err := r.c.ClusterRoles.List(ctx, all)
	if err != nil {
		return err
	}
	crbs, err := r.c.ClusterRoleBindings.List(ctx, all)
	if err != nil {
		return err
	}
	rs, err := r.c.Roles(metav1.NamespaceAll).List(ctx, all)
	if err != nil {
		return err
	}
	rbs, err := r.c.RoleBindings(metav1.NamespaceAll).List(ctx, all)
	if err != nil {
		return err
	}
	r.listed.clusterRoles = byName(crs.Items)
	r.listed.clusterRoleBindings = byName(crbs.Items)
	r.listed.roles = byName(rs.Items)
	r.listed.roleBindings = byName(rbs.Items)
	return nil
}

// byName indexes objects by namespace/name.
func byName[O any, T interface {
	*O
	metav1.Object
}](items []O) map[string]T {
	m := make(map[string]T, len(items))
	for i := range items {
		o := T(&items[i])
		m[o.GetNamespace()+"/"+o.GetName()] = o
	}
	return m
}

// read returns the object as the server has it: for a first attempt, as
// the initial lists found it (an update made from a stale copy fails
// with a conflict, a create with AlreadyExists, and the retry reads
// again); for a retry, from the server.
func read[T metav1.Object](ctx context.Context, s store[T], listed map[string]T, attempt int, namespace, name string) (T, error) {
	if attempt > 0 || listed == nil {
		return s.get(ctx, namespace, name)
	}
	if o, ok := listed[namespace+"/"+name]; ok {
		return o, nil
	}
	var none T
	return none, apierrors.NewNotFound(schema.GroupResource{Group: rbacv1.GroupName}, name)
}

// parallelism bounds how many objects are reconciled at once. Each costs
// a read and, on a fresh cluster, a write; etcd commits concurrent writes
// together, so the policy's 141 objects take a few commits rather than 141
// round trips one after the other, and the server is ready that much
// sooner (/readyz waits for this hook).
const parallelism = 16

func (r *reconciler) all(ctx context.Context) {
	var wg sync.WaitGroup
	slots := make(chan struct{}, parallelism)
	reconcile := func(kind, name string, run func(listed bool) (op, error)) {
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			r.one(ctx, kind, name, run)
		}()
	}
	p := r.c.Policy
	for i := range p.ClusterRoles {
		want := &p.ClusterRoles[i]
		reconcile("clusterrole", want.Name, func(listed bool) (op, error) {
			return reconcileRole(ctx, clusterRoles{r.c.ClusterRoles}, onlyIf(listed, r.listed.clusterRoles), want)
		})
	}
	for i := range p.ClusterRoleBindings {
		want := &p.ClusterRoleBindings[i]
		reconcile("clusterrolebinding", want.Name, func(listed bool) (op, error) {
			return reconcileBinding(ctx, clusterRoleBindings{r.c.ClusterRoleBindings}, onlyIf(listed, r.listed.clusterRoleBindings), want)
		})
	}
	for i := range p.Roles {
		want := &p.Roles[i]
		reconcile("role", want.Namespace+"/"+want.Name, func(listed bool) (op, error) {
			return reconcileRole(ctx, roles{r.c.Roles(want.Namespace), r.c.Namespaces}, onlyIf(listed, r.listed.roles), want)
		})
	}
	for i := range p.RoleBindings {
		want := &p.RoleBindings[i]
		reconcile("rolebinding", want.Namespace+"/"+want.Name, func(listed bool) (op, error) {
			return reconcileBinding(ctx, roleBindings{r.c.RoleBindings(want.Namespace), r.c.Namespaces}, onlyIf(listed, r.listed.roleBindings), want)
		})
	}
	wg.Wait()
}

// one reconciles an object, again on a conflict (someone wrote it between
// our read and our write) or when the server is briefly unavailable (as
// kube-apiserver is while it updates storage versions). The first run may
// start from the initial lists (listed true); a run again, after a
// conflict, must not.
func (r *reconciler) one(ctx context.Context, kind, name string, run func(listed bool) (op, error)) {
	retriable := func(err error) bool { return apierrors.IsConflict(err) || apierrors.IsServiceUnavailable(err) }
	listed := true
	err := retry.OnError(retry.DefaultBackoff, retriable, func() error {
		o, err := run(listed)
		listed = false
		if err != nil {
			return err
		}
		switch o {
		case opProtected:
			r.log.Warn("skipped reconcile-protected "+kind+" with missing permissions or subjects", "name", name)
		case opNone:
		default:
			r.log.Debug(string(o)+"d "+kind, "name", name)
		}
		return nil
	})
	if err != nil {
		r.log.Error("unable to reconcile "+kind, "name", name, "err", err)
	}
}

// onlyIf returns m if cond holds, nil otherwise.
func onlyIf[T any](cond bool, m map[string]T) map[string]T {
	if cond {
		return m
	}
	return nil
}

// op is what reconciling an object did.
type op string

const (
	opNone      op = "none"
	opCreate    op = "create"
	opUpdate    op = "update"
	opRecreate  op = "recreate"
	opProtected op = "protected" // changes were needed; autoupdate=false forbade them
)

// maxAttempts bounds the re-runs when the object appears or disappears
// between our read and our write.
const maxAttempts = 3

// ruleOwner is a Role or a ClusterRole.
type ruleOwner interface {
	*rbacv1.Role | *rbacv1.ClusterRole
	metav1.Object
}

// store reads and writes one kind of object.
type store[T any] interface {
	get(ctx context.Context, namespace, name string) (T, error)
	create(ctx context.Context, obj T) error
	update(ctx context.Context, obj T) error
}

func reconcileRole[T ruleOwner](ctx context.Context, s store[T], listed map[string]T, want T) (op, error) {
	for attempt := 0; attempt < maxAttempts; attempt++ {
		have, err := read(ctx, s, listed, attempt, want.GetNamespace(), want.GetName())
		if apierrors.IsNotFound(err) {
			err := s.create(ctx, deepCopy(want))
			if apierrors.IsAlreadyExists(err) {
				continue
			}
			return opCreate, err
		}
		if err != nil {
			return opNone, err
		}
		next, changed := mergedRole(have, want)
		if !changed {
			return opNone, nil
		}
		if protected(have) {
			return opProtected, nil
		}
		err = s.update(ctx, next)
		if apierrors.IsNotFound(err) {
			continue
		}
		return opUpdate, err
	}
	return opNone, errors.New("exceeded maximum attempts")
}

// mergedRole is have with what want adds to it; changed says whether that
// differs from have.
func mergedRole[T ruleOwner](have, want T) (T, bool) {
	next := deepCopy(have)
	changed := mergeMeta(next, want)
	rules, wantRules := rulesOf(next), rulesOf(want)
	// The missing rules come broken down, one verb on one resource (or
	// URL) each, so a role an administrator narrowed regains only what it
	// lacks, piece by piece, as kube-apiserver's reconciler appends them.
	if _, missing := rbac.Covers(*rules, *wantRules); len(missing) > 0 {
		*rules = append(*rules, missing...)
		changed = true
	}
	if cr, ok := any(next).(*rbacv1.ClusterRole); ok {
		wantAgg := any(want).(*rbacv1.ClusterRole).AggregationRule
		switch {
		case wantAgg == nil && cr.AggregationRule != nil:
			cr.AggregationRule = nil
			changed = true
		case wantAgg != nil:
			var missing []metav1.LabelSelector
			for _, s := range wantAgg.ClusterRoleSelectors {
				if cr.AggregationRule == nil || !hasSelector(cr.AggregationRule.ClusterRoleSelectors, s) {
					missing = append(missing, *s.DeepCopy())
				}
			}
			if len(missing) > 0 {
				if cr.AggregationRule == nil {
					cr.AggregationRule = &rbacv1.AggregationRule{}
				}
				cr.AggregationRule.ClusterRoleSelectors = append(cr.AggregationRule.ClusterRoleSelectors, missing...)
				changed = true
			}
		}
	}
	return next, changed
}

func hasSelector(set []metav1.LabelSelector, s metav1.LabelSelector) bool {
	for _, x := range set {
		if equality.Semantic.DeepEqual(x, s) {
			return true
		}
	}
	return false
}

func rulesOf[T ruleOwner](o T) *[]rbacv1.PolicyRule {
	switch o := any(o).(type) {
	case *rbacv1.Role:
		return &o.Rules
	case *rbacv1.ClusterRole:
		return &o.Rules
	}
	panic("unreachable")
}

// binding is a RoleBinding or a ClusterRoleBinding.
type binding interface {
	*rbacv1.RoleBinding | *rbacv1.ClusterRoleBinding
	metav1.Object
}

// bindingStore also deletes: a binding's roleRef cannot be changed.
type bindingStore[T any] interface {
	store[T]
	delete(ctx context.Context, namespace, name string, uid types.UID) error
}

func reconcileBinding[T binding](ctx context.Context, s bindingStore[T], listed map[string]T, want T) (op, error) {
	for attempt := 0; attempt < maxAttempts+1; attempt++ {
		have, err := read(ctx, s, listed, attempt, want.GetNamespace(), want.GetName())
		if apierrors.IsNotFound(err) {
			err := s.create(ctx, deepCopy(want))
			if apierrors.IsAlreadyExists(err) {
				continue
			}
			return opCreate, err
		}
		if err != nil {
			return opNone, err
		}
		if *roleRefOf(have) != *roleRefOf(want) {
			if protected(have) {
				return opProtected, nil
			}
			err := s.delete(ctx, have.GetNamespace(), have.GetName(), have.GetUID())
			switch {
			case apierrors.IsConflict(err):
				continue // replaced meanwhile: look again
			case err != nil && !apierrors.IsNotFound(err):
				return opNone, err
			}
			err = s.create(ctx, deepCopy(want))
			if apierrors.IsAlreadyExists(err) {
				continue
			}
			return opRecreate, err
		}
		next := deepCopy(have)
		changed := mergeMeta(next, want)
		subjects := subjectsOf(next)
		for _, w := range *subjectsOf(want) {
			if !containsSubject(*subjects, w) {
				*subjects = append(*subjects, w)
				changed = true
			}
		}
		if !changed {
			return opNone, nil
		}
		if protected(have) {
			return opProtected, nil
		}
		err = s.update(ctx, next)
		if apierrors.IsNotFound(err) {
			continue
		}
		return opUpdate, err
	}
	return opNone, errors.New("exceeded maximum attempts")
}

func containsSubject(set []rbacv1.Subject, s rbacv1.Subject) bool {
	for _, x := range set {
		if x == s {
			return true
		}
	}
	return false
}

func roleRefOf[T binding](o T) *rbacv1.RoleRef {
	switch o := any(o).(type) {
	case *rbacv1.RoleBinding:
		return &o.RoleRef
	case *rbacv1.ClusterRoleBinding:
		return &o.RoleRef
	}
	panic("unreachable")
}

func subjectsOf[T binding](o T) *[]rbacv1.Subject {
	switch o := any(o).(type) {
	case *rbacv1.RoleBinding:
		return &o.Subjects
	case *rbacv1.ClusterRoleBinding:
		return &o.Subjects
	}
	panic("unreachable")
}

// protected: an administrator set autoupdate to "false".
func protected(o metav1.Object) bool {
	return o.GetAnnotations()[bootstrappolicy.AutoUpdateAnnotation] == "false"
}

// mergeMeta adds want's labels and annotations whose keys o lacks;
// values o has win.
func mergeMeta(o, want metav1.Object) bool {
	changed := false
	if l, c := addMissing(o.GetLabels(), want.GetLabels()); c {
		o.SetLabels(l)
		changed = true
	}
	if a, c := addMissing(o.GetAnnotations(), want.GetAnnotations()); c {
		o.SetAnnotations(a)
		changed = true
	}
	return changed
}

func addMissing(have, want map[string]string) (map[string]string, bool) {
	var out map[string]string
	for k, v := range want {
		if _, ok := have[k]; ok {
			continue
		}
		if out == nil {
			out = make(map[string]string, len(have)+len(want))
			for hk, hv := range have {
				out[hk] = hv
			}
		}
		out[k] = v
	}
	return out, out != nil
}

func deepCopy[T interface{ metav1.Object }](o T) T {
	switch o := any(o).(type) {
	case *rbacv1.Role:
		return any(o.DeepCopy()).(T)
	case *rbacv1.ClusterRole:
		return any(o.DeepCopy()).(T)
	case *rbacv1.RoleBinding:
		return any(o.DeepCopy()).(T)
	case *rbacv1.ClusterRoleBinding:
		return any(o.DeepCopy()).(T)
	}
	panic(fmt.Sprintf("unexpected %T", o))
}

// primeAggregated: admin, edit and view became aggregated roles in
// Kubernetes 1.9 and their rules moved to system:aggregate-to-*. When
// the new role is missing and the old one still carries its own rules
// (customised by an administrator), the old one is copied to the new
// name, so its customisations are aggregated back. kube-apiserver stops
// at the first old role that is already aggregated; kapi goes on to the
// others (in name order), which differs only on a cluster upgraded
// halfway.
func (r *reconciler) primeAggregated(ctx context.Context) error {
	p := r.c.Policy
	olds := make([]string, 0, len(p.ClusterRolesToAggregate))
	for old := range p.ClusterRolesToAggregate {
		olds = append(olds, old)
	}
	sort.Strings(olds)
	client := r.c.ClusterRoles
	for _, old := range olds {
		name := p.ClusterRolesToAggregate[old]
		if _, ok := r.listed.clusterRoles["/"+name]; ok {
			continue
		}
		existing, ok := r.listed.clusterRoles["/"+old]
		if !ok || existing.AggregationRule != nil {
			continue
		}
		copied := existing.DeepCopy()
		copied.ObjectMeta = metav1.ObjectMeta{Name: name, Labels: existing.Labels, Annotations: existing.Annotations}
		r.log.Info("migrating clusterrole", "from", old, "to", name)
		if _, err := client.Create(ctx, copied, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	return nil
}

// primeSplitBindings: system:discovery once granted everyone what
// system:public-info-viewer grants now. When the new binding is missing
// and the old one exists, the new one is created with the old one's
// subjects, labels and annotations, so a cluster that took the public
// info away from anonymous users keeps it that way.
func (r *reconciler) primeSplitBindings(ctx context.Context) error {
	p := r.c.Policy
	olds := make([]string, 0, len(p.ClusterRoleBindingsToSplit))
	for old := range p.ClusterRoleBindingsToSplit {
		olds = append(olds, old)
	}
	sort.Strings(olds)
	client := r.c.ClusterRoleBindings
	for _, old := range olds {
		template := p.ClusterRoleBindingsToSplit[old]
		existing, ok := r.listed.clusterRoleBindings["/"+old]
		if !ok {
			continue
		}
		if _, ok := r.listed.clusterRoleBindings["/"+template.Name]; ok {
			continue
		}
		b := template.DeepCopy()
		b.Subjects, b.Labels, b.Annotations = existing.Subjects, existing.Labels, existing.Annotations
		r.log.Info("splitting clusterrolebinding", "from", old, "to", b.Name)
		if _, err := client.Create(ctx, b, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	return nil
}

// ensureNamespace creates the namespace of a namespaced object before the
// object, as kube-apiserver does: kube-public may not exist yet when the
// hook runs. A Forbidden answer is not an error: the create that
// follows will say what is wrong.
func ensureNamespace(ctx context.Context, namespaces client.Interface[*corev1.Namespace, *corev1.NamespaceList], name string) error {
	_, err := namespaces.Get(ctx, name, metav1.GetOptions{})
	if err == nil {
		return nil
	}
	if !apierrors.IsNotFound(err) && !apierrors.IsForbidden(err) {
		return err
	}
	_, err = namespaces.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) && !apierrors.IsForbidden(err) {
		return err
	}
	return nil
}

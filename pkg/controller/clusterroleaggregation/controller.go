// Package clusterroleaggregation keeps the rules of aggregated
// ClusterRoles up to date, as kube-controller-manager's
// clusterrole-aggregation controller does. kapi runs it in-process
// because it has no controller manager: without it, admin, edit and view
// would stay empty.
//
// A ClusterRole with an aggregationRule gets, as its rules, the rules of
// every other ClusterRole one of its selectors matches: selector by
// selector, matching roles by name, each role's rules in their order,
// leaving out a rule equal to one already taken. This is
// kube-controller-manager's order, which clients see in the role, so it
// is kept exactly (testdata holds what kube-controller-manager 1.37.1
// produced for the same inputs).
//
// Any change to any ClusterRole queues every aggregated role: the set of
// ClusterRoles is small, and the graph of which role feeds which (admin
// aggregates edit, which aggregates view) is not worth tracking. A role
// is written only when its rules differ, so the queue settles.
package clusterroleaggregation

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sort"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	rbaclisters "k8s.io/client-go/listers/rbac/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kapi-dev/kapi/pkg/client"
	"github.com/kapi-dev/kapi/pkg/controller/worker"
)

// FieldManager is the manager the controller applies rules as, the one
// kube-controller-manager uses, so managedFields read the same.
const FieldManager = "clusterrole-aggregation-controller"

// Controller aggregates ClusterRoles.
type Controller struct {
	client client.Interface[*rbacv1.ClusterRole, *rbacv1.ClusterRoleList]
	lister rbaclisters.ClusterRoleLister
	synced cache.InformerSynced
	queue  *worker.Queue
	log    *slog.Logger
}

// New returns a controller that watches ClusterRoles through informer
// and writes aggregated rules through client. Start the informer's
// factory, then call Run.
func New(informer cache.SharedIndexInformer, client client.Interface[*rbacv1.ClusterRole, *rbacv1.ClusterRoleList], log *slog.Logger) (*Controller, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Controller{
		client: client,
		lister: rbaclisters.NewClusterRoleLister(informer.GetIndexer()),
		synced: informer.HasSynced,
		log:    log,
	}
	c.queue = worker.New("ClusterRoleAggregator", c.sync, func(name string, err error) {
		c.log.Warn("aggregating clusterrole failed, retrying", "clusterrole", name, "err", err)
	})
	_, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { c.enqueueAggregated() },
		UpdateFunc: func(any, any) { c.enqueueAggregated() },
		DeleteFunc: func(any) { c.enqueueAggregated() },
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Run processes the queue with the given number of workers until ctx is
// done. It returns once the workers have stopped.
func (c *Controller) Run(ctx context.Context, workers int) {
	c.queue.Run(ctx, workers, c.synced)
}

func (c *Controller) enqueueAggregated() {
	roles, err := c.lister.List(labels.Everything())
	if err != nil {
		c.log.Error("listing clusterroles", "err", err)
		return
	}
	for _, r := range roles {
		if r.AggregationRule != nil {
			c.queue.Add(r.Name)
		}
	}
}

func (c *Controller) sync(ctx context.Context, name string) error {
	role, err := c.lister.Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if role.AggregationRule == nil {
		return nil
	}
	all, err := c.lister.List(labels.Everything())
	if err != nil {
		return err
	}
	rules, err := Aggregate(role, all)
	if err != nil {
		return err
	}
	if equality.Semantic.DeepEqual(rules, role.Rules) {
		return nil
	}
	return c.write(ctx, role, rules)
}

// write sets the role's rules with a forced server-side apply, as
// kube-controller-manager does; a server that does not take apply
// patches answers 415, and then an update does the same.
func (c *Controller) write(ctx context.Context, role *rbacv1.ClusterRole, rules []rbacv1.PolicyRule) error {
	apply, err := json.Marshal(appliedRules{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRole"},
		ObjectMeta: appliedName{Name: role.Name},
		Rules:      rules,
	})
	if err != nil {
		return err
	}
	force := true
	_, err = c.client.Patch(ctx, role.Name, types.ApplyPatchType, apply, metav1.PatchOptions{FieldManager: FieldManager, Force: &force})
	if !apierrors.IsUnsupportedMediaType(err) {
		return err
	}
	updated := role.DeepCopy()
	updated.Rules = rules
	_, err = c.client.Update(ctx, updated, metav1.UpdateOptions{})
	return err
}

// appliedRules is the apply configuration the controller sends: the
// role's name and its rules, nothing else. No rules are left out, as
// kube-controller-manager's apply configuration leaves them out.
type appliedRules struct {
	metav1.TypeMeta `json:",inline"`
	ObjectMeta      appliedName         `json:"metadata"`
	Rules           []rbacv1.PolicyRule `json:"rules,omitempty"`
}

type appliedName struct {
	Name string `json:"name"`
}

// Aggregate returns the rules role aggregates from roles: for each
// selector of its aggregationRule in order, the roles it matches other
// than role itself, by name, and their rules in order, each rule at most
// once. The result is never nil, so that an aggregated role that matches
// nothing reads as having no rules rather than unset ones.
func Aggregate(role *rbacv1.ClusterRole, roles []*rbacv1.ClusterRole) ([]rbacv1.PolicyRule, error) {
	out := []rbacv1.PolicyRule{}
	if role.AggregationRule == nil {
		return out, nil
	}
	byName := append([]*rbacv1.ClusterRole(nil), roles...)
	sort.Slice(byName, func(i, j int) bool { return byName[i].Name < byName[j].Name })
	for i := range role.AggregationRule.ClusterRoleSelectors {
		selector, err := metav1.LabelSelectorAsSelector(&role.AggregationRule.ClusterRoleSelectors[i])
		if err != nil {
			return nil, fmt.Errorf("clusterrole %s: %w", role.Name, err)
		}
		for _, r := range byName {
			if r.Name == role.Name || !selector.Matches(labels.Set(r.Labels)) {
				continue
			}
			for _, rule := range r.Rules {
				if !contains(out, rule) {
					out = append(out, *rule.DeepCopy())
				}
			}
		}
	}
	return out, nil
}

func contains(rules []rbacv1.PolicyRule, rule rbacv1.PolicyRule) bool {
	for _, r := range rules {
		if equality.Semantic.DeepEqual(r, rule) {
			return true
		}
	}
	return false
}

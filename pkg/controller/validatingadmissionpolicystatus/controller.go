// Package validatingadmissionpolicystatus writes the status of
// ValidatingAdmissionPolicies, as kube-controller-manager's
// validatingadmissionpolicy-status controller does: each policy whose
// generation is newer than its status.observedGeneration is type
// checked (see TypeChecker), and its status set, by a forced
// server-side apply of /status as the manager
// "validatingadmissionpolicy-status", to the generation checked and the
// expression warnings found (none: an empty typeChecking). kapi runs it
// in-process because it has no controller manager; the status is
// written a moment after the policy, as in a cluster.
package validatingadmissionpolicystatus

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	admissionregistrationlisters "k8s.io/client-go/listers/admissionregistration/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kapi-dev/kapi/pkg/client"
	"github.com/kapi-dev/kapi/pkg/controller/worker"
)

// FieldManager is the manager the status is applied as, the one
// kube-controller-manager uses, so managedFields read the same.
const FieldManager = "validatingadmissionpolicy-status"

// Checker type checks a policy.
type Checker interface {
	Check(*admissionregistrationv1.ValidatingAdmissionPolicy) []admissionregistrationv1.ExpressionWarning
}

// Controller writes the status of validating admission policies.
type Controller struct {
	client  client.Interface[*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyList]
	lister  admissionregistrationlisters.ValidatingAdmissionPolicyLister
	synced  cache.InformerSynced
	checker Checker
	queue   *worker.Queue
	log     *slog.Logger
}

// New returns a controller that watches policies through informer and
// applies their status through client. Start the informer's factory,
// then call Run.
func New(informer cache.SharedIndexInformer, client client.Interface[*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyList], checker Checker, log *slog.Logger) (*Controller, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Controller{
		client:  client,
		lister:  admissionregistrationlisters.NewValidatingAdmissionPolicyLister(informer.GetIndexer()),
		synced:  informer.HasSynced,
		checker: checker,
		log:     log,
	}
	c.queue = worker.New(FieldManager, c.sync, func(name string, err error) {
		c.log.Warn("writing the status of a validating admission policy failed, retrying", "policy", name, "err", err)
	})
	enqueue := func(obj any) {
		if p, ok := obj.(*admissionregistrationv1.ValidatingAdmissionPolicy); ok {
			c.queue.Add(p.Name)
		}
	}
	_, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
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

func (c *Controller) sync(ctx context.Context, name string) error {
	policy, err := c.lister.Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if policy.Generation <= policy.Status.ObservedGeneration {
		return nil
	}
	warnings, err := c.check(policy)
	if err != nil {
		return err
	}
	apply, err := json.Marshal(appliedStatus{
		TypeMeta:   metav1.TypeMeta{APIVersion: admissionregistrationv1.SchemeGroupVersion.String(), Kind: "ValidatingAdmissionPolicy"},
		ObjectMeta: appliedName{Name: policy.Name},
		Status: status{
			ObservedGeneration: policy.Generation,
			TypeChecking:       typeChecking{ExpressionWarnings: warnings},
		},
	})
	if err != nil {
		return err
	}
	force := true
	_, err = c.client.Patch(ctx, policy.Name, types.ApplyPatchType, apply, metav1.PatchOptions{FieldManager: FieldManager, Force: &force}, "status")
	return err
}

// check type checks a policy; a panic of the checker, on a policy or a
// schema it did not expect, is an error of that policy, not the end of
// the server.
func (c *Controller) check(policy *admissionregistrationv1.ValidatingAdmissionPolicy) (warnings []admissionregistrationv1.ExpressionWarning, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("type checking panicked: %v", r)
		}
	}()
	return c.checker.Check(policy), nil
}

// appliedStatus is the apply configuration the controller sends: the
// policy's name and the fields of the status it owns.
type appliedStatus struct {
	metav1.TypeMeta `json:",inline"`
	ObjectMeta      appliedName `json:"metadata"`
	Status          status      `json:"status"`
}

type appliedName struct {
	Name string `json:"name"`
}

type status struct {
	ObservedGeneration int64        `json:"observedGeneration"`
	TypeChecking       typeChecking `json:"typeChecking"`
}

type typeChecking struct {
	ExpressionWarnings []admissionregistrationv1.ExpressionWarning `json:"expressionWarnings,omitempty"`
}

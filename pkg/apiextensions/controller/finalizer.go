package controller

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/kapi-dev/kapi/pkg/apis/apiextensions"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/registry/apiextensions/customresourcedefinition"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// CleanupFinalizer holds a deleted CRD until its custom resources are gone.
const CleanupFinalizer = customresourcedefinition.CleanupFinalizer

// Instances is the storage of a CRD's custom resources, as the cleanup
// needs it.
type Instances interface {
	rest.Lister
	rest.CollectionDeleter
}

// Cleanup deletes the custom resources of a deleted CRD, then removes the
// cleanup finalizer so that the CRD goes too. It keeps the Terminating
// condition current on the way.
type Cleanup struct {
	lister    Lister
	write     StatusWriter
	instances func(crd *apiextensionsv1.CustomResourceDefinition) Instances
	// Poll is how often the cleanup checks that every instance is gone
	// (instances with finalizers of their own may take a while).
	Poll time.Duration
	*queue
}

// NewCleanup returns the cleanup controller. instances returns the
// storage of a CRD's resources, or nil when they are not served.
func NewCleanup(lister Lister, write StatusWriter, instances func(*apiextensionsv1.CustomResourceDefinition) Instances, log *slog.Logger) *Cleanup {
	c := &Cleanup{lister: lister, write: write, instances: instances, Poll: time.Second}
	c.queue = newQueue("crd-cleanup", log, c.sync)
	return c
}

func (c *Cleanup) sync(ctx context.Context, name string) error {
	crd, ok := c.lister.Get(name)
	if !ok || crd.DeletionTimestamp == nil || !slices.Contains(crd.Finalizers, CleanupFinalizer) {
		return nil
	}
	crd = crd.DeepCopy()
	apiextensions.SetCondition(crd, terminating(metav1.ConditionTrue, "InstanceDeletionInProgress", "CustomResource deletion is in progress"))
	crd, err := c.write(ctx, crd)
	if err != nil {
		return err
	}
	crd = crd.DeepCopy()
	if apiextensions.IsConditionTrue(crd, apiextensionsv1.NamesAccepted) {
		remaining, cond, err := c.deleteInstances(ctx, crd)
		apiextensions.SetCondition(crd, cond)
		if err != nil || remaining > 0 {
			if _, werr := c.write(ctx, crd); werr != nil {
				return werr
			}
			if err != nil {
				return err
			}
			// Instances are going; check again soon.
			c.AddAfter(name, c.Poll)
			return nil
		}
	} else {
		apiextensions.SetCondition(crd, terminating(metav1.ConditionFalse, "NeverEstablished", "resource was never established"))
	}
	crd.Finalizers = slices.DeleteFunc(crd.Finalizers, func(f string) bool { return f == CleanupFinalizer })
	_, err = c.write(ctx, crd)
	return err
}

func terminating(status metav1.ConditionStatus, reason, message string) apiextensionsv1.CustomResourceDefinitionCondition {
	return apiextensionsv1.CustomResourceDefinitionCondition{
		Type: apiextensionsv1.Terminating, Status: apiextensionsv1.ConditionStatus(status), Reason: reason, Message: message,
	}
}

// deleteInstances deletes every custom resource of crd, one namespace at
// a time, and reports how many are still there (held by finalizers).
func (c *Cleanup) deleteInstances(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) (int, apiextensionsv1.CustomResourceDefinitionCondition, error) {
	store := c.instances(crd)
	if store == nil {
		err := fmt.Errorf("unable to find a custom resource client for %s.%s", crd.Status.AcceptedNames.Plural, crd.Spec.Group)
		return 0, terminating(metav1.ConditionTrue, "InstanceDeletionFailed", fmt.Sprintf("could not list instances: %v", err)), err
	}
	items, err := listAll(ctx, store)
	if err != nil {
		return 0, terminating(metav1.ConditionTrue, "InstanceDeletionFailed", fmt.Sprintf("could not list instances: %v", err)), err
	}
	if len(items) == 0 {
		return 0, terminating(metav1.ConditionFalse, "InstanceDeletionCompleted", "removed all instances"), nil
	}
	namespaces := sets.New[string]()
	var errs []error
	for _, item := range items {
		m, err := meta.Accessor(item)
		if err != nil || namespaces.Has(m.GetNamespace()) {
			continue
		}
		namespaces.Insert(m.GetNamespace())
		nsCtx := request.WithNamespace(ctx, m.GetNamespace())
		if _, err := store.DeleteCollection(nsCtx, nil, &metav1.DeleteOptions{}, &metav1.ListOptions{}); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		err := aggregate(errs)
		return 0, terminating(metav1.ConditionTrue, "InstanceDeletionFailed", fmt.Sprintf("could not issue all deletes: %v", err)), err
	}
	left, err := listAll(ctx, store)
	if err != nil {
		return 0, terminating(metav1.ConditionTrue, "InstanceDeletionCheck", fmt.Sprintf("could not confirm zero CustomResources remaining: %v", err)), err
	}
	if len(left) > 0 {
		return len(left), terminating(metav1.ConditionTrue, "InstanceDeletionCheck",
			fmt.Sprintf("could not confirm zero CustomResources remaining: %d left", len(left))), nil
	}
	return 0, terminating(metav1.ConditionFalse, "InstanceDeletionCompleted", "removed all instances"), nil
}

// listAll lists the instances in every namespace, consistently.
func listAll(ctx context.Context, store Instances) ([]runtime.Object, error) {
	list, err := store.List(request.WithNamespace(ctx, ""), &metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	return meta.ExtractList(list)
}

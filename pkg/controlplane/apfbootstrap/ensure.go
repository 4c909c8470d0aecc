// Package apfbootstrap puts the API priority and fairness configuration
// of a new cluster in place and keeps it there, as kube-apiserver's
// priority-and-fairness-config-producer does: the mandatory
// FlowSchemas and PriorityLevelConfigurations are recreated when deleted
// and restored when changed; the suggested ones are recreated when
// deleted and restored only while their apf.kubernetes.io/autoupdate-spec
// annotation is "true" (an object without the annotation counts as
// "true" until its spec was first changed, generation 1); objects that
// carry the annotation set to "true" but are no longer part of the
// configuration are deleted. It writes through the API, as the field
// manager kube-apiserver uses, so the objects' managedFields are
// kube-apiserver's too.
package apfbootstrap

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/apis/flowcontrol"
	"github.com/kapi-dev/kapi/pkg/client"
)

// HookName is the name of kube-apiserver's post-start hook, which
// /readyz reports.
const HookName = "priority-and-fairness-config-producer"

// fieldManager is the manager kube-apiserver writes the objects as.
const fieldManager = "api-priority-and-fairness-config-producer-v1"

// Clients are what the configuration is written with.
type Clients struct {
	FlowSchemas                 client.Interface[*flowcontrolv1.FlowSchema, *flowcontrolv1.FlowSchemaList]
	PriorityLevelConfigurations client.Interface[*flowcontrolv1.PriorityLevelConfiguration, *flowcontrolv1.PriorityLevelConfigurationList]
}

// Interval is how often Run checks the configuration again once it is in
// place: kube-apiserver's minute.
const Interval = time.Minute

// Run ensures the configuration, retrying every second until it is in
// place (or ctx ends), then keeps ensuring it every interval in a
// goroutine until ctx ends. Its error is that of the last attempt when
// ctx ended before the first success.
func Run(ctx context.Context, c Clients, interval time.Duration, log *slog.Logger) error {
	for {
		err := Ensure(ctx, c)
		if err == nil {
			break
		}
		log.Error("APF bootstrap ensurer ran into an error, will retry", "err", err)
		select {
		case <-ctx.Done():
			return fmt.Errorf("unable to initialize the APF bootstrap configuration: %w", err)
		case <-time.After(time.Second):
		}
	}
	go func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if err := Ensure(ctx, c); err != nil && ctx.Err() == nil {
					log.Error("APF bootstrap ensurer ran into an error, will retry", "err", err)
				}
			}
		}
	}()
	return nil
}

// Ensure makes one pass, in kube-apiserver's order: the suggested
// levels and schemas, the mandatory ones, then the removal of objects
// that left the configuration.
func Ensure(ctx context.Context, c Clients) error {
	levels, schemas := levelOps{c.PriorityLevelConfigurations}, schemaOps{c.FlowSchemas}
	steps := []func() error{
		func() error { return ensureAll(ctx, levels, flowcontrol.SuggestedPriorityLevelConfigurations(), false) },
		func() error { return ensureAll(ctx, schemas, flowcontrol.SuggestedFlowSchemas(), false) },
		func() error { return ensureAll(ctx, levels, flowcontrol.MandatoryPriorityLevelConfigurations(), true) },
		func() error { return ensureAll(ctx, schemas, flowcontrol.MandatoryFlowSchemas(), true) },
		func() error {
			return removeUnwanted(ctx, schemas, names(flowcontrol.MandatoryFlowSchemas(), flowcontrol.SuggestedFlowSchemas()))
		},
		func() error {
			return removeUnwanted(ctx, levels, names(flowcontrol.MandatoryPriorityLevelConfigurations(), flowcontrol.SuggestedPriorityLevelConfigurations()))
		},
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// object is a FlowSchema or a PriorityLevelConfiguration.
type object interface {
	*flowcontrolv1.FlowSchema | *flowcontrolv1.PriorityLevelConfiguration
	metav1.Object
}

// ops is what the ensurer does with one kind of object.
type ops[T object] interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
	Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error)
	Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
	list(ctx context.Context) ([]T, error)
	// specMatches says whether current has the bootstrap object's spec,
	// once that spec is defaulted as the server would.
	specMatches(bootstrap, current T) bool
	// withSpec is a copy of current with the bootstrap object's spec.
	withSpec(current, bootstrap T) T
	deepCopy(T) T
}

// ensureAll ensures the objects of one step all at once: they do not
// depend on each other, each costs a read and often a write, and the
// server is not ready until the first pass is done.
func ensureAll[T object](ctx context.Context, o ops[T], boots []T, mandatory bool) error {
	errs := make([]error, len(boots))
	var wg sync.WaitGroup
	for i, b := range boots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = ensure(ctx, o, b, mandatory)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// ensure creates the bootstrap object if it is missing, and otherwise
// revises the spec and the annotation of the one there as the rules say.
func ensure[T object](ctx context.Context, o ops[T], bootstrap T, mandatory bool) error {
	name := bootstrap.GetName()
	var current T
	for {
		var err error
		current, err = o.Get(ctx, name, metav1.GetOptions{})
		if err == nil {
			break
		}
		if !apierrors.IsNotFound(err) {
			return fmt.Errorf("getting %T %q: %w", bootstrap, name, err)
		}
		_, err = o.Create(ctx, o.deepCopy(bootstrap), metav1.CreateOptions{FieldManager: fieldManager})
		if err == nil {
			return nil
		}
		if !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating %T %q: %w", bootstrap, name, err)
		}
		// Created concurrently: look again.
	}
	autoUpdateSpec := mandatory || wantsAutoUpdate(current)
	updateAnnotation := !annotationSays(current, autoUpdateSpec)
	specChanged := autoUpdateSpec && !o.specMatches(bootstrap, current)
	if !updateAnnotation && !specChanged {
		return nil
	}
	revised := o.deepCopy(current)
	if specChanged {
		revised = o.withSpec(current, bootstrap)
	}
	if updateAnnotation {
		annotations := revised.GetAnnotations()
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[flowcontrolv1.AutoUpdateAnnotationKey] = strconv.FormatBool(autoUpdateSpec)
		revised.SetAnnotations(annotations)
	}
	_, err := o.Update(ctx, revised, metav1.UpdateOptions{FieldManager: fieldManager})
	if err != nil && !apierrors.IsConflict(err) {
		return fmt.Errorf("updating %T %q: %w", bootstrap, name, err)
	}
	// On a conflict somebody else wrote it: the next pass looks again.
	return nil
}

// wantsAutoUpdate is the annotation's value; without a valid one, an
// object whose spec nobody changed (generation 1) is kept up to date.
func wantsAutoUpdate(obj metav1.Object) bool {
	if v, err := strconv.ParseBool(obj.GetAnnotations()[flowcontrolv1.AutoUpdateAnnotationKey]); err == nil {
		return v
	}
	return obj.GetGeneration() == 1
}

// annotationSays is whether the object's annotation already holds want.
func annotationSays(obj metav1.Object, want bool) bool {
	v, ok := obj.GetAnnotations()[flowcontrolv1.AutoUpdateAnnotationKey]
	if !ok {
		return false
	}
	b, err := strconv.ParseBool(v)
	return err == nil && b == want
}

// removeUnwanted deletes the objects not in wanted whose annotation says
// they are kept up to date: they were bootstrap objects of an older
// version. Objects without it are somebody's own.
func removeUnwanted[T object](ctx context.Context, o ops[T], wanted map[string]bool) error {
	current, err := o.list(ctx)
	if err != nil {
		return err
	}
	for _, obj := range current {
		if wanted[obj.GetName()] {
			continue
		}
		v, ok := obj.GetAnnotations()[flowcontrolv1.AutoUpdateAnnotationKey]
		if auto, err := strconv.ParseBool(v); !ok || err != nil || !auto {
			continue
		}
		if err := o.Delete(ctx, obj.GetName(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting the unwanted %T %q: %w", obj, obj.GetName(), err)
		}
	}
	return nil
}

func names[T object](lists ...[]T) map[string]bool {
	out := map[string]bool{}
	for _, l := range lists {
		for _, obj := range l {
			out[obj.GetName()] = true
		}
	}
	return out
}

type schemaOps struct {
	client.Interface[*flowcontrolv1.FlowSchema, *flowcontrolv1.FlowSchemaList]
}

func (o schemaOps) list(ctx context.Context) ([]*flowcontrolv1.FlowSchema, error) {
	l, err := o.List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := make([]*flowcontrolv1.FlowSchema, len(l.Items))
	for i := range l.Items {
		out[i] = &l.Items[i]
	}
	return out, nil
}

func (schemaOps) specMatches(bootstrap, current *flowcontrolv1.FlowSchema) bool {
	want := bootstrap.DeepCopy()
	flowcontrol.SetDefaultsFlowSchema(want)
	return apiequality.Semantic.DeepEqual(want.Spec, current.Spec)
}

func (schemaOps) withSpec(current, bootstrap *flowcontrolv1.FlowSchema) *flowcontrolv1.FlowSchema {
	out := current.DeepCopy()
	out.Spec = *bootstrap.Spec.DeepCopy()
	return out
}

func (schemaOps) deepCopy(fs *flowcontrolv1.FlowSchema) *flowcontrolv1.FlowSchema {
	return fs.DeepCopy()
}

type levelOps struct {
	client.Interface[*flowcontrolv1.PriorityLevelConfiguration, *flowcontrolv1.PriorityLevelConfigurationList]
}

func (o levelOps) list(ctx context.Context) ([]*flowcontrolv1.PriorityLevelConfiguration, error) {
	l, err := o.List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := make([]*flowcontrolv1.PriorityLevelConfiguration, len(l.Items))
	for i := range l.Items {
		out[i] = &l.Items[i]
	}
	return out, nil
}

// specMatches compares defaulted specs; of the exempt level only the
// type matters, its exempt settings belong to the cluster's admin.
func (levelOps) specMatches(bootstrap, current *flowcontrolv1.PriorityLevelConfiguration) bool {
	want := bootstrap.DeepCopy()
	flowcontrol.SetDefaultsPriorityLevelConfiguration(want)
	if want.Name == flowcontrolv1.PriorityLevelConfigurationNameExempt {
		if current.Spec.Exempt == nil {
			return false
		}
		want.Spec.Exempt.NominalConcurrencyShares = current.Spec.Exempt.NominalConcurrencyShares
		want.Spec.Exempt.LendablePercent = current.Spec.Exempt.LendablePercent
	}
	return apiequality.Semantic.DeepEqual(want.Spec, current.Spec)
}

func (levelOps) withSpec(current, bootstrap *flowcontrolv1.PriorityLevelConfiguration) *flowcontrolv1.PriorityLevelConfiguration {
	out := current.DeepCopy()
	out.Spec = *bootstrap.Spec.DeepCopy()
	return out
}

func (levelOps) deepCopy(pl *flowcontrolv1.PriorityLevelConfiguration) *flowcontrolv1.PriorityLevelConfiguration {
	return pl.DeepCopy()
}

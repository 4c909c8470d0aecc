// Package apfstatus keeps the Dangling condition of every FlowSchema, as
// the config consumer of kube-apiserver's API priority and fairness does:
// a FlowSchema whose PriorityLevelConfiguration exists has Dangling False
// (reason Found), one whose level does not has Dangling True (reason
// NotFound). The condition is written by server-side apply of the status
// as kube-apiserver's field manager, so the FlowSchemas' status and
// managedFields are kube-apiserver's. The rest of the consumer, the
// priority and fairness of requests, is not here.
package apfstatus

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/pkg/client"
)

// HookName is the name of kube-apiserver's post-start hook, which
// /readyz reports.
const HookName = "priority-and-fairness-config-consumer"

// FieldManager is the manager kube-apiserver applies the condition as.
const FieldManager = "api-priority-and-fairness-config-consumer-v1"

// As kube-apiserver, a FlowSchema written more than maxWritesPerMinute
// times in the last minute (another server disagreeing, say) is left
// alone for a while.
const maxWritesPerMinute = 5

// Run keeps the conditions until ctx ends: it watches FlowSchemas and
// PriorityLevelConfigurations and checks every FlowSchema whenever either
// changes. It returns at once.
func Run(ctx context.Context, clients *client.Set, log *slog.Logger) {
	informers := client.NewInformers(clients)
	schemas := client.InformerFor[*flowcontrolv1.FlowSchema, *flowcontrolv1.FlowSchemaList](informers, "flowschemas")
	levels := client.InformerFor[*flowcontrolv1.PriorityLevelConfiguration, *flowcontrolv1.PriorityLevelConfigurationList](informers, "prioritylevelconfigurations")
	c := &controller{
		schemasClient: client.For[*flowcontrolv1.FlowSchema, *flowcontrolv1.FlowSchemaList](clients, "flowschemas", ""),
		schemas:       schemas.GetStore(), levels: levels.GetStore(), log: log,
		trigger: make(chan struct{}, 1), writes: map[string][]time.Time{},
	}
	handler := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { c.poke() },
		UpdateFunc: func(any, any) { c.poke() },
		DeleteFunc: func(any) { c.poke() },
	}
	for _, inf := range []cache.SharedIndexInformer{schemas, levels} {
		if _, err := inf.AddEventHandler(handler); err != nil {
			log.Error("Unable to watch the APF configuration", "err", err)
			return
		}
	}
	informers.Start(ctx)
	go func() {
		for _, synced := range informers.WaitForCacheSync(ctx) {
			if !synced {
				return
			}
		}
		c.run(ctx)
	}()
}

type controller struct {
	schemasClient   client.Interface[*flowcontrolv1.FlowSchema, *flowcontrolv1.FlowSchemaList]
	schemas, levels cache.Store
	log             *slog.Logger
	// trigger holds a token when the configuration changed since the
	// last check: many changes make one check.
	trigger chan struct{}
	// writes are the times of this minute's writes, by FlowSchema.
	writes map[string][]time.Time
}

func (c *controller) poke() {
	select {
	case c.trigger <- struct{}{}:
	default:
	}
}

// run checks every FlowSchema once at first and then after each change;
// after a failure, or when a FlowSchema was held back, it checks again
// later.
func (c *controller) run(ctx context.Context) {
	c.poke()
	var retry <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.trigger:
		case <-retry:
		}
		retry = nil
		delay, err := c.sync(ctx)
		if err != nil && ctx.Err() == nil {
			c.log.Error("Unable to write the status of FlowSchemas", "err", err)
			delay = time.Second
		}
		if delay > 0 {
			retry = time.After(delay)
		}
	}
}

// sync gives every FlowSchema the Dangling condition it should have. It
// returns how long to wait before checking those it held back, if any.
func (c *controller) sync(ctx context.Context) (time.Duration, error) {
	var delay time.Duration
	now := time.Now()
	for _, obj := range c.schemas.List() {
		fs := obj.(*flowcontrolv1.FlowSchema)
		level := fs.Spec.PriorityLevelConfiguration.Name
		want := desired(level, c.levelExists(level))
		if have := findDangling(fs.Status.Conditions); have != nil &&
			have.Status == want.Status && have.Reason == want.Reason && have.Message == want.Message {
			continue
		}
		if c.heldBack(fs.Name, now) {
			if delay == 0 {
				delay = time.Duration(30+rand.IntN(45)) * time.Second
			}
			continue
		}
		c.writes[fs.Name] = append(c.writes[fs.Name], now)
		// The apply configuration kube-apiserver sends: the condition
		// alone.
		apply, err := json.Marshal(map[string]any{
			"apiVersion": flowcontrolv1.SchemeGroupVersion.String(), "kind": "FlowSchema",
			"metadata": map[string]any{"name": fs.Name},
			"status": map[string]any{"conditions": []any{map[string]any{
				"type": flowcontrolv1.FlowSchemaConditionDangling, "status": want.Status, "reason": want.Reason,
				"message": want.Message, "lastTransitionTime": metav1.NewTime(now),
			}}},
		})
		if err != nil {
			return delay, err
		}
		_, err = c.schemasClient.Patch(ctx, fs.Name, types.ApplyPatchType, apply,
			metav1.PatchOptions{FieldManager: FieldManager, Force: ptr.To(true)}, "status")
		if err != nil && !apierrors.IsNotFound(err) {
			return delay, fmt.Errorf("the Dangling condition of FlowSchema %s: %w", fs.Name, err)
		}
	}
	return delay, nil
}

func (c *controller) levelExists(name string) bool {
	_, exists, err := c.levels.GetByKey(name)
	return err == nil && exists
}

// heldBack is whether name was written too often in the minute before
// now; it forgets older writes.
func (c *controller) heldBack(name string, now time.Time) bool {
	recent := c.writes[name][:0]
	for _, t := range c.writes[name] {
		if now.Sub(t) < time.Minute {
			recent = append(recent, t)
		}
	}
	c.writes[name] = recent
	return len(recent) > maxWritesPerMinute
}

// desired is the Dangling condition of a FlowSchema that names level, in
// kube-apiserver's words.
func desired(level string, exists bool) flowcontrolv1.FlowSchemaCondition {
	if exists {
		return flowcontrolv1.FlowSchemaCondition{Status: flowcontrolv1.ConditionFalse, Reason: "Found",
			Message: fmt.Sprintf("This FlowSchema references the PriorityLevelConfiguration object named %q and it exists", level)}
	}
	return flowcontrolv1.FlowSchemaCondition{Status: flowcontrolv1.ConditionTrue, Reason: "NotFound",
		Message: fmt.Sprintf("This FlowSchema references the PriorityLevelConfiguration object named %q but there is no such object", level)}
}

func findDangling(conditions []flowcontrolv1.FlowSchemaCondition) *flowcontrolv1.FlowSchemaCondition {
	for i := range conditions {
		if conditions[i].Type == flowcontrolv1.FlowSchemaConditionDangling {
			return &conditions[i]
		}
	}
	return nil
}

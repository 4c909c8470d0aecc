package app

import (
	"log/slog"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"

	"github.com/kapi-dev/kapi/pkg/client"
	"github.com/kapi-dev/kapi/pkg/endpoints/discovery"
	"github.com/kapi-dev/kapi/pkg/flowcontrol"
	fcmetrics "github.com/kapi-dev/kapi/pkg/flowcontrol/metrics"
	fcrequest "github.com/kapi-dev/kapi/pkg/flowcontrol/request"
	"github.com/kapi-dev/kapi/pkg/metrics"
	"github.com/kapi-dev/kapi/pkg/server"
)

// buildFlowControl builds API priority and fairness when
// --enable-priority-and-fairness is on and flowcontrol.apiserver.k8s.io
// is served (its configuration is read from it), or returns nil for the
// max-in-flight limits. The server's concurrency limit is the sum of
// the two max-in-flight limits, as in kube-apiserver. The controller
// reads the configuration through the shared informers and starts in
// kube-apiserver's priority-and-fairness-filter post-start hook; its
// dumps are served under /debug/api_priority_and_fairness/.
//
// Each request's seats are estimated from the objects a list reads
// (objectCounts) and the watchers a write notifies (watchCounts).
func buildFlowControl(c *Config, aggregator *server.GenericAPIServer, disc *discovery.Registry, informers *client.Informers, objectCounts fcrequest.ObjectCounts, watchCounts fcrequest.WatchCounts, reg *metrics.Registry, log *slog.Logger) flowControl {
	if !c.EnablePriorityAndFairness || !disc.HasResource(flowcontrolv1.GroupName, "flowschemas") {
		return flowControl{}
	}
	m := fcmetrics.New(reg, time.Now)
	fc := flowcontrol.New(flowcontrol.Config{
		ServerConcurrencyLimit: c.MaxRequestsInflight + c.MaxMutatingRequestsInflight,
		FlowSchemas:            client.InformerFor[*flowcontrolv1.FlowSchema, *flowcontrolv1.FlowSchemaList](informers, "flowschemas"),
		PriorityLevels:         client.InformerFor[*flowcontrolv1.PriorityLevelConfiguration, *flowcontrolv1.PriorityLevelConfigurationList](informers, "prioritylevelconfigurations"),
		Metrics:                m,
		Logger:                 log.With("component", "priority-and-fairness"),
	})
	estimates := fcrequest.DefaultConfig(c.FeatureGates)
	// A queuing level's requests never take more seats than the level
	// may use at once.
	estimates.MaxSeats = fc.MaxSeats
	estimates.ObserveWatchCount = m.ObserveWatchCount
	aggregator.AddPostStartHook("priority-and-fairness-filter", func(ctx server.PostStartHookContext) error {
		go func() {
			if err := fc.Run(ctx.Context); err != nil && ctx.Err() == nil {
				log.Error("API priority and fairness stopped", "err", err)
			}
		}()
		return nil
	})
	for path, h := range fc.DebugHandlers() {
		aggregator.Handle(path, h)
	}
	return flowControl{controller: fc, estimate: fcrequest.NewEstimator(objectCounts, watchCounts, estimates)}
}

// flowControl is API priority and fairness as the filter chain takes it;
// the zero value is the max-in-flight limits.
type flowControl struct {
	controller *flowcontrol.Controller
	estimate   fcrequest.Estimator
}

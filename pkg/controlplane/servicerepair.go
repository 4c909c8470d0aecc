package controlplane

import (
	"context"
	"log/slog"
	"time"

	"github.com/kapi-dev/kapi/pkg/registry/core/service"
	"github.com/kapi-dev/kapi/pkg/server"
)

// serviceRepairInterval is how often the reservations of cluster IPs and
// node ports are reconciled with the Services, kube-apiserver's period.
const serviceRepairInterval = 3 * time.Minute

// serviceRepairHook runs the repair of service reservations
// (service.REST.Repair) once at start-up and then periodically, as
// kube-apiserver's start-service-ip-repair-controllers do: reservations a
// Service lost are put back, orphans released, duplicates logged.
func serviceRepairHook(services *service.REST, logger *slog.Logger) server.PostStartHookFunc {
	repair := func(ctx context.Context) {
		rep, err := services.Repair(ctx)
		if logger == nil {
			return
		}
		if err != nil && ctx.Err() == nil {
			logger.Warn("repairing service reservations", "err", err)
		}
		for _, d := range rep.Duplicates {
			logger.Warn("a cluster IP or node port is used by more than one Service", "service", d)
		}
		if len(rep.Restored) > 0 || rep.ReleasedIPs+rep.ReleasedPorts > 0 {
			logger.Info("repaired service reservations", "restored", rep.Restored, "releasedIPs", rep.ReleasedIPs, "releasedPorts", rep.ReleasedPorts)
		}
	}
	return func(hctx server.PostStartHookContext) error {
		repair(hctx.Context)
		go func() {
			t := time.NewTicker(serviceRepairInterval)
			defer t.Stop()
			for {
				select {
				case <-hctx.Done():
					return
				case <-t.C:
					repair(hctx.Context)
				}
			}
		}()
		return nil
	}
}

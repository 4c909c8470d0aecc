package controlplane

import (
	"context"
	"log/slog"
	"time"

	"github.com/kapi-dev/kapi/pkg/registry/core/service"
	"github.com/kapi-dev/kapi/pkg/registry/core/service/portallocator"
	"github.com/kapi-dev/kapi/pkg/server"
)

// serviceRepairInterval is how often the reservations of cluster IPs and
// node ports are reconciled with the Services, kube-apiserver's period.
const serviceRepairInterval = 3 * time.Minute

// firstRepairTimeout is how long start-up waits for a first repair that
// succeeds.
const firstRepairTimeout = time.Minute

// serviceRepairHook runs the repair of service reservations
// (service.REST.Repair) at start-up and then periodically, as
// kube-apiserver's start-service-ip-repair-controllers do: reservations a
// Service lost are put back, orphans and leaked node ports released,
// duplicates logged. The first pass writes the node port bitmap, without
// which no node port is allocated, so the server is not ready until it
// succeeds; as in kube-apiserver, it is tried again every second for at
// most a minute, then left to the periodic passes.
func serviceRepairHook(services *service.REST, logger *slog.Logger) server.PostStartHookFunc {
	repair := func(ctx context.Context) error {
		rep, err := services.Repair(ctx)
		if logger == nil {
			return err
		}
		if err != nil && ctx.Err() == nil {
			logger.Warn("repairing service reservations", "err", err)
		}
		for _, d := range rep.Duplicates {
			logger.Warn("a cluster IP is used by more than one Service", "service", d)
		}
		if len(rep.Restored) > 0 || rep.ReleasedIPs > 0 {
			logger.Info("repaired service reservations", "restored", rep.Restored, "releasedIPs", rep.ReleasedIPs)
		}
		logNodePortRepair(logger, rep.NodePorts)
		return err
	}
	return func(hctx server.PostStartHookContext) error {
		deadline := time.Now().Add(firstRepairTimeout)
		for repair(hctx.Context) != nil && time.Now().Before(deadline) {
			select {
			case <-hctx.Done():
				return nil
			case <-time.After(time.Second):
			}
		}
		go func() {
			t := time.NewTicker(serviceRepairInterval)
			defer t.Stop()
			for {
				select {
				case <-hctx.Done():
					return
				case <-t.C:
					_ = repair(hctx.Context)
				}
			}
		}()
		return nil
	}
}

// logNodePortRepair logs what the node port repair found, with the
// reasons and messages of the events kube-apiserver's repair records on
// the Services (kapi records no events of its own yet).
func logNodePortRepair(logger *slog.Logger, rep portallocator.RepairReport) {
	if len(rep.Folded) > 0 {
		logger.Info("moved the node port reservations of an older kapi into the bitmap", "ports", rep.Folded)
	}
	for _, p := range rep.Problems {
		logger.Warn(p.Message, "reason", p.Reason, "service", p.Service.String(), "port", p.Port)
	}
	for _, port := range rep.Flagged {
		logger.Warn("the node port may have leaked: flagging for later clean up", "port", port)
	}
	for _, port := range rep.Released {
		logger.Warn("the node port appears to have leaked: cleaning up", "port", port)
	}
}

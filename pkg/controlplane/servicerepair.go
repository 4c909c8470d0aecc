package controlplane

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/client"
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
	var events *nodePortEvents
	repair := func(ctx context.Context) error {
		rep, err := services.Repair(ctx)
		events.record(ctx, rep.NodePorts.Problems)
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
		if clients, err := kubeAPIServerClient(hctx); err == nil {
			events = newNodePortEvents(client.NamespacedFor[*eventsv1.Event, *eventsv1.EventList](clients, "events"))
		} else if logger != nil {
			logger.Warn("the node port repair records no events", "err", err)
		}
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

// logNodePortRepair logs what the node port repair found, as
// kube-apiserver's repair does besides its events.
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

// nodePortEvents records the problems the node port repair finds as
// events on their Services, as kube-apiserver's repair controller does:
// events.k8s.io/v1 Events written through the loopback client as
// kube-apiserver, by the reporting controller
// portallocator-repair-controller, action PortAllocation, with the
// problem's reason and message. kube-apiserver's event recorder folds an
// event repeated within a few minutes into the series of the first; kapi
// writes one event per problem and pass.
type nodePortEvents struct {
	events   client.Namespaced[*eventsv1.Event, *eventsv1.EventList]
	instance string
	now      func() time.Time
}

const nodePortRepairController = "portallocator-repair-controller"

func newNodePortEvents(events client.Namespaced[*eventsv1.Event, *eventsv1.EventList]) *nodePortEvents {
	host, _ := os.Hostname()
	return &nodePortEvents{events: events, instance: nodePortRepairController + "-" + host, now: time.Now}
}

// record writes the events of problems; a nil recorder writes nothing.
// Failures are dropped, as an event recorder drops them.
func (e *nodePortEvents) record(ctx context.Context, problems []portallocator.Problem) {
	if e == nil {
		return
	}
	for _, p := range problems {
		_, _ = e.events(p.Service.Namespace).Create(ctx, e.event(p), metav1.CreateOptions{})
	}
}

// event is the Event of one problem, named as an event recorder names
// it: the Service's name and the time in hexadecimal nanoseconds.
func (e *nodePortEvents) event(p portallocator.Problem) *eventsv1.Event {
	now := e.now()
	return &eventsv1.Event{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s.%x", p.Service.Name, now.UnixNano()), Namespace: p.Service.Namespace},
		EventTime:  metav1.NewMicroTime(now),
		Regarding: corev1.ObjectReference{Kind: "Service", APIVersion: "v1", Namespace: p.Service.Namespace, Name: p.Service.Name,
			UID: p.Service.UID, ResourceVersion: p.Service.ResourceVersion},
		ReportingController: nodePortRepairController,
		ReportingInstance:   e.instance,
		Action:              "PortAllocation",
		Reason:              p.Reason,
		Note:                p.Message,
		Type:                corev1.EventTypeWarning,
	}
}

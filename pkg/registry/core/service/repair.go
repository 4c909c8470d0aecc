package service

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/kapi-dev/kapi/pkg/registry/core/service/ipallocator"
	"github.com/kapi-dev/kapi/pkg/registry/core/service/portallocator"
	"github.com/kapi-dev/kapi/pkg/registry/core/service/reservation"
	"github.com/kapi-dev/kapi/pkg/storage"
)

// RepairReport is what one repair pass found.
type RepairReport struct {
	// Restored are the cluster IP reservations a Service uses that were
	// missing, and are there again ("namespace/name ip").
	Restored []string
	// Duplicates are the cluster IPs two Services use: the reservation
	// names one, the other is reported, as kube-apiserver reports it;
	// nothing can be repaired without changing a Service.
	Duplicates []string
	// ReleasedIPs counts the orphaned cluster IPs released.
	ReleasedIPs int
	// NodePorts is what the repair of the node port bitmap found.
	NodePorts portallocator.RepairReport
}

// Repair reconciles the allocations of cluster IPs and node ports with
// the stored Services, as kube-apiserver's repair controllers do. For
// cluster IPs: a value a Service uses and nobody holds is reserved for it
// again (someone deleted its IPAddress, say), a value held for another
// Service is reported as a duplicate, and reservations whose Service no
// longer uses them are released once past their grace period. For node
// ports, see portallocator.Repair: the bitmap is rebuilt from the
// Services, and a port no Service holds is freed after
// portallocator.LeakPasses passes.
func (r *REST) Repair(ctx context.Context) (RepairReport, error) {
	var rep RepairReport
	// Node ports first: their pass reads the bitmap before the Services,
	// as kube-apiserver's does. A failure there does not stop the repair
	// of cluster IPs.
	var portErr error
	rep.NodePorts, portErr = r.portRepair.RunOnce(ctx, r.nodePortHolders)
	services, err := r.listServices(ctx)
	if err != nil {
		return rep, errors.Join(portErr, err)
	}
	for i := range services {
		svc := &services[i]
		owner := reservation.Owner{Namespace: svc.Namespace, Name: svc.Name}
		for _, ip := range allocatedIPs(svc) {
			err := r.alloc.ips.Allocate(ctx, ip, owner, false)
			var notInRange *ipallocator.ErrNotInRange
			switch {
			case err == nil:
				// Reserve is idempotent only for a missing value: a
				// value held for owner already answers ErrAllocated.
				rep.Restored = append(rep.Restored, owner.String()+" "+ip.String())
			case errors.Is(err, ipallocator.ErrAllocated):
				if held, ok, err := r.alloc.ips.Owner(ctx, ip); err == nil && ok && held != owner {
					rep.Duplicates = append(rep.Duplicates, owner.String()+" "+ip.String())
				}
			case errors.As(err, &notInRange):
				// The ranges changed under the Service: its IP stays.
			default:
				return rep, errors.Join(portErr, err)
			}
		}
	}
	rep.ReleasedIPs, err = r.alloc.ips.Table().ReleaseOrphans(ctx)
	return rep, errors.Join(portErr, err)
}

// listServices reads every stored Service.
func (r *REST) listServices(ctx context.Context) ([]corev1.Service, error) {
	list := &corev1.ServiceList{}
	if err := r.Storage.GetList(ctx, r.KeyPrefix+"/", storage.ListOptions{Recursive: true, Predicate: storage.Everything}, list); err != nil {
		return nil, fmt.Errorf("listing services: %w", err)
	}
	return list.Items, nil
}

// nodePortHolders lists the Services that hold node ports, for the repair
// of the node port bitmap.
func (r *REST) nodePortHolders(ctx context.Context) ([]portallocator.Holder, error) {
	services, err := r.listServices(ctx)
	if err != nil {
		return nil, err
	}
	var out []portallocator.Holder
	for i := range services {
		if ports := repairNodePorts(&services[i]); len(ports) > 0 {
			m := &services[i].ObjectMeta
			out = append(out, portallocator.Holder{Namespace: m.Namespace, Name: m.Name, UID: m.UID, ResourceVersion: m.ResourceVersion, Ports: ports})
		}
	}
	return out, nil
}

// repairNodePorts are the node ports a Service holds as kube-apiserver's
// repair counts them: a port shared by ports of different protocols (DNS
// over TCP and UDP) once, one repeated with the same protocol each time
// (so that the repair reports it), and the health check node port unless
// a TCP port has it already.
func repairNodePorts(svc *corev1.Service) []int {
	var out []int
	protocols := map[int32]map[corev1.Protocol]bool{}
	for _, p := range svc.Spec.Ports {
		if p.NodePort == 0 {
			continue
		}
		seen := protocols[p.NodePort]
		switch {
		case seen == nil:
			protocols[p.NodePort] = map[corev1.Protocol]bool{p.Protocol: true}
			out = append(out, int(p.NodePort))
		case seen[p.Protocol]:
			out = append(out, int(p.NodePort))
		default:
			seen[p.Protocol] = true
		}
	}
	if hc := svc.Spec.HealthCheckNodePort; hc != 0 {
		if seen := protocols[hc]; seen == nil || seen[corev1.ProtocolTCP] {
			out = append(out, int(hc))
		}
	}
	return out
}

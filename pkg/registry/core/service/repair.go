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
	// Restored are the reservations a Service uses that were missing,
	// and are there again ("namespace/name ip" or "... port").
	Restored []string
	// Duplicates are the values two Services use: the reservation names
	// one, the other is reported, as kube-apiserver reports it; nothing
	// can be repaired without changing a Service.
	Duplicates []string
	// ReleasedIPs and ReleasedPorts count the orphans released.
	ReleasedIPs, ReleasedPorts int
}

// Repair reconciles the reservations of cluster IPs and node ports with
// the stored Services, as kube-apiserver's repair controllers do: a value
// a Service uses and nobody holds is reserved for it again (someone
// deleted its IPAddress, say), a value held for another Service is
// reported as a duplicate, and reservations whose Service no longer uses
// them are released once past their grace period.
func (r *REST) Repair(ctx context.Context) (RepairReport, error) {
	var rep RepairReport
	list := &corev1.ServiceList{}
	if err := r.Storage.GetList(ctx, r.KeyPrefix+"/", storage.ListOptions{Recursive: true, Predicate: storage.Everything}, list); err != nil {
		return rep, fmt.Errorf("listing services: %w", err)
	}
	for i := range list.Items {
		svc := &list.Items[i]
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
				return rep, err
			}
		}
		for _, p := range allocatedPorts(svc) {
			err := r.alloc.ports.Allocate(ctx, int(p), owner, false)
			var notInRange *portallocator.ErrNotInRange
			switch {
			case err == nil:
				rep.Restored = append(rep.Restored, fmt.Sprintf("%s %d", owner, p))
			case errors.Is(err, portallocator.ErrAllocated):
				if held, ok, err := r.alloc.ports.Owner(ctx, int(p)); err == nil && ok && held != owner {
					rep.Duplicates = append(rep.Duplicates, fmt.Sprintf("%s %d", owner, p))
				}
			case errors.As(err, &notInRange):
			default:
				return rep, err
			}
		}
	}
	var err error
	if rep.ReleasedIPs, err = r.alloc.ips.Table().ReleaseOrphans(ctx); err != nil {
		return rep, err
	}
	rep.ReleasedPorts, err = r.alloc.ports.Table().ReleaseOrphans(ctx)
	return rep, err
}

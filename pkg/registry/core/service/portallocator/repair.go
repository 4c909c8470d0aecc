package portallocator

import (
	"context"
	"errors"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilnet "k8s.io/apimachinery/pkg/util/net"

	"github.com/kapi-dev/kapi/pkg/storage"
)

// LeakPasses is how many consecutive repair passes must find a port
// allocated and held by no Service before it is freed, as in
// kube-apiserver: an allocation made just before a pass, whose Service is
// not written yet, must not be taken back.
const LeakPasses = 3

// Holder is a Service and the node ports it holds (its health check node
// port included), as the repair sees them. A port the Service lists twice
// for the same protocol is in Ports twice.
type Holder struct {
	Namespace, Name string
	// UID and ResourceVersion are the Service's, for the events that
	// report its ports.
	UID             types.UID
	ResourceVersion string
	Ports           []int
}

func (h Holder) String() string { return h.Namespace + "/" + h.Name }

// Problem is a node port of a Service that the repair reports, with
// kube-apiserver's event reason and message.
type Problem struct {
	Service Holder
	Port    int
	// Reason is PortNotAllocated (the bitmap lacked the port: repaired),
	// PortAlreadyAllocated (another Service holds it too) or
	// PortOutOfRange (the range no longer has it).
	Reason  string
	Message string
}

// RepairReport is what one repair pass found.
type RepairReport struct {
	Problems []Problem
	// Flagged are the ports found leaked for the first time; Released
	// those freed because they had been leaked for LeakPasses passes.
	Flagged, Released []int
	// Folded are the ports of older kapi versions' reservations moved
	// into the bitmap.
	Folded []int
}

// Repair rebuilds the bitmap from the Services, as kube-apiserver's
// node port repair controller does. It remembers leaked ports between
// passes; use one Repair per server, its passes one at a time.
type Repair struct {
	alloc *Allocator
	// leaks counts, per leaked port, the passes left before it is freed.
	leaks map[int]int
	mu    sync.Mutex
	// folded is set once the older reservations have been folded in.
	folded bool
}

// NewRepair returns the repair of a's bitmap.
func NewRepair(a *Allocator) *Repair { return &Repair{alloc: a, leaks: map[int]int{}} }

// conflictRetries is how many times a pass starts again when the bitmap
// changed while it was being rebuilt.
const conflictRetries = 5

var errChanged = errors.New("the bitmap changed during the repair")

// RunOnce makes one repair pass over the Services list returns: it reads
// the bitmap, then the Services, and writes back the bitmap of the ports
// the Services hold and of the leaked ones not yet old enough to free,
// with this server's range. A Service port missing from the bitmap is
// allocated again, a port two Services hold or one outside the range is
// reported. The write is a compare-and-swap: if anything allocated or
// released in between, the pass starts again.
func (r *Repair) RunOnce(ctx context.Context, list func(context.Context) ([]Holder, error)) (RepairReport, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var rep RepairReport
	if !r.folded {
		folded, err := r.alloc.foldLegacy(ctx)
		if err != nil {
			return rep, fmt.Errorf("folding the node port reservations of older kapi versions: %w", err)
		}
		rep.Folded, r.folded = folded, true
	}
	for attempt := 0; ; attempt++ {
		pass, err := r.runOnce(ctx, list)
		if errors.Is(err, errChanged) && attempt < conflictRetries {
			continue
		}
		pass.Folded = rep.Folded
		return pass, err
	}
}

func (r *Repair) runOnce(ctx context.Context, list func(context.Context) ([]Holder, error)) (RepairReport, error) {
	var rep RepairReport
	a := r.alloc
	snapshot, err := a.get(ctx)
	if err != nil {
		return rep, fmt.Errorf("unable to refresh the port allocations: %w", err)
	}
	// The stored bitmap, read with its own range (which may be another
	// one: --service-node-port-range changed).
	stored, storedRange := decodeBitmap(nil), a.portRange
	if snapshot.ResourceVersion != "" {
		pr, err := utilnet.ParsePortRange(snapshot.Range)
		if err != nil {
			return rep, fmt.Errorf("unable to rebuild allocator from snapshot: %w", err)
		}
		storedRange, stored = *pr, decodeBitmap(snapshot.Data)
	}
	storedHas := func(port int) bool {
		return storedRange.Contains(port) && stored.has(port-storedRange.Base)
	}

	holders, err := list(ctx)
	if err != nil {
		return rep, fmt.Errorf("unable to refresh the port block: %w", err)
	}
	rebuilt := decodeBitmap(nil)
	used := map[int]bool{}
	for _, h := range holders {
		for _, port := range h.Ports {
			switch {
			case !a.portRange.Contains(port):
				rep.Problems = append(rep.Problems, Problem{Service: h, Port: port, Reason: "PortOutOfRange",
					Message: fmt.Sprintf("Port %d is not within the port range %s; please recreate service", port, a.portRange.String())})
			case used[port]:
				rep.Problems = append(rep.Problems, Problem{Service: h, Port: port, Reason: "PortAlreadyAllocated",
					Message: fmt.Sprintf("Port %d was assigned to multiple services; please recreate service", port)})
			default:
				used[port] = true
				rebuilt.set(port - a.portRange.Base)
				if !storedHas(port) {
					rep.Problems = append(rep.Problems, Problem{Service: h, Port: port, Reason: "PortNotAllocated",
						Message: fmt.Sprintf("Port %d is not allocated; repairing", port)})
				}
			}
		}
	}

	// Ports allocated and held by no Service have leaked, or belong to a
	// request that has not written its Service yet.
	leaks := map[int]int{}
	stored.offsets(func(o int) {
		port := storedRange.Base + o
		if used[port] {
			return
		}
		left, seen := r.leaks[port]
		if !seen {
			rep.Flagged = append(rep.Flagged, port)
			left = LeakPasses - 1
		}
		if left == 0 {
			rep.Released = append(rep.Released, port)
			return
		}
		leaks[port] = left - 1
		// Kept until then; a port outside today's range cannot be.
		if a.portRange.Contains(port) {
			rebuilt.set(port - a.portRange.Base)
		}
	})

	rv := snapshot.ResourceVersion
	err = a.store.GuaranteedUpdate(ctx, Key, &corev1.RangeAllocation{}, true, nil,
		func(cur runtime.Object, _ storage.ResponseMeta) (runtime.Object, error) {
			ra := cur.(*corev1.RangeAllocation)
			if ra.ResourceVersion != rv {
				return nil, errChanged
			}
			ra.Range = a.portRange.String()
			ra.Data = rebuilt.encode()
			return ra, nil
		})
	if err != nil {
		if errors.Is(err, errChanged) {
			return RepairReport{}, err
		}
		return rep, fmt.Errorf("unable to persist the updated port allocations: %w", err)
	}
	r.leaks = leaks
	return rep, nil
}

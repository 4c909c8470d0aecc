// Package portallocator hands out the node ports of Services from
// --service-node-port-range, in kube-apiserver's format, so that kapi and
// kube-apiserver servers sharing one etcd agree on which ports are taken.
//
// # Storage
//
// All the node ports of a cluster are one object, as in kube-apiserver: a
// core/v1 RangeAllocation at
//
//	<etcd-prefix>/ranges/servicenodeports
//
// stored as protobuf like every core object (and encrypted at rest as
// Services are, with their transformer), whose range is the port
// range as "30000-32767" and whose data is a bitmap of the allocated
// ports: bit i of the big-endian number data encodes (no leading zero
// bytes; no bytes at all when no port is allocated) is set when port
// base+i is allocated. Allocating or releasing a port is a
// compare-and-swap of that one key (storage.GuaranteedUpdate), so two
// servers never hand out the same port; a server whose write loses the
// race reads the winner's bitmap and tries again.
//
// The bitmap says which ports are taken, not by whom. A Service request
// allocates before it writes the Service and releases if the write fails
// (package service), so a server that dies in between leaves a port
// allocated that no Service holds: a leak. The repair (Repair), run at
// start-up and every three minutes as kube-apiserver's
// start-service-ip-repair-controllers does, rebuilds the bitmap from the
// Services and frees such a port only once it has been seen leaked on
// three consecutive passes, so that an allocation whose Service is about
// to be written is not taken back.
//
// The key is written first by the repair at start-up: until it exists,
// allocations fail as kube-apiserver's do ("cannot allocate resources of
// type servicenodeportallocations at this time"). A bitmap stored with
// another range (another --service-node-port-range) is not allocated from
// until the repair has rewritten it with this server's range.
//
// # Allocation
//
// A requested port is allocated if its bit is clear. A port picked by the
// server comes, as in kube-apiserver, from a random start in the range
// above the static band, the first min(max(16, size/32), 128) ports
// (none in a range of 16 ports or fewer), which is left to users who pick
// ports by hand and is used only when the rest is full.
//
// Older kapi versions kept one RangeAllocation per port below
// <etcd-prefix>/ranges/kapi_servicenodeports/, which kube-apiserver never
// reads; the first repair of a server folds those into the bitmap and
// deletes them. (Old and new kapi servers on one etcd, as in a rolling
// upgrade, do not see each other's allocations until then.)
//
// # Differences from kube-apiserver
//
// kube-apiserver's repair counts a leaked port down on every attempt of a
// pass, including attempts that lose the compare-and-swap and start
// again, and never forgets a port it freed, so that a port allocated
// again and seen without its Service on a later pass is freed at once.
// kapi counts passes that succeed, and forgets a port as soon as a pass
// does not find it leaked, so a port is freed only after three
// consecutive successful passes found it leaked. kube-apiserver keeps a
// copy of the bitmap in memory and answers a dry run from it; kapi reads
// etcd.
package portallocator

import (
	"context"
	"errors"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilnet "k8s.io/apimachinery/pkg/util/net"

	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/storage"
)

// Key is where the bitmap of node ports lives, below the etcd prefix, as
// in kube-apiserver.
const Key = "/ranges/servicenodeports"

// Resource is the resource kube-apiserver names the bitmap's storage
// after, in its errors and its encryption configuration.
var Resource = corev1.Resource("servicenodeportallocations")

// ErrAllocated means the port is taken.
var ErrAllocated = errors.New("provided port is already allocated")

// ErrFull means the range has no free port.
var ErrFull = errors.New("range is full")

// ErrNotInRange means the port is outside the node port range.
type ErrNotInRange struct{ ValidPorts string }

func (e *ErrNotInRange) Error() string {
	return fmt.Sprintf("provided port is not in the valid range. The range of valid ports is %s", e.ValidPorts)
}

// errNotInitialized is kube-apiserver's answer to an allocation before
// the bitmap exists.
var errNotInitialized = fmt.Errorf("cannot allocate resources of type %s at this time", Resource.String())

// errRangeMismatch is kube-apiserver's answer to an allocation from a
// bitmap stored with another range.
var errRangeMismatch = errors.New("the provided range does not match the current range")

// Allocator allocates the ports of one range.
type Allocator struct {
	portRange utilnet.PortRange
	// static is the size of the static band at the start of the range,
	// which dynamic allocation uses last.
	static int
	store  storage.Interface
	// mu makes this server's updates of the bitmap one at a time, as
	// kube-apiserver's allocator does: concurrent requests would
	// otherwise all race for the one key, and each success would cost a
	// failed compare-and-swap of every other contender. Servers still
	// race each other, which the compare-and-swap settles.
	mu sync.Mutex
}

// New returns an allocator of pr whose bitmap lives in st, which must
// store core/v1 RangeAllocation objects (see NewStorage).
func New(pr utilnet.PortRange, st storage.Interface) (*Allocator, error) {
	if pr.Size <= 0 || pr.Base <= 0 || pr.Base+pr.Size-1 > 65535 {
		return nil, fmt.Errorf("invalid node port range %q", pr.String())
	}
	return &Allocator{portRange: pr, static: staticBand(pr.Size), store: st}, nil
}

// staticBand is the number of ports at the start of a range of size ports
// that dynamic allocation leaves for last, as kube-apiserver computes it:
// size/32, at least 16 and at most 128, or none in a range of 16 ports or
// fewer.
func staticBand(size int) int {
	const lo, hi, step = 16, 128, 32
	if size <= lo {
		return 0
	}
	return min(max(size/step, lo), hi)
}

// NewStorage returns the storage of the bitmap, from a factory of storage
// for built-in resources. It is the storage of services, as in
// kube-apiserver, whose bitmap is therefore encrypted at rest when (and
// as) Services are.
func NewStorage(f generic.StorageFactory) (storage.Interface, error) {
	return f.NewStorage(corev1.Resource("services"), corev1.SchemeGroupVersion, "",
		func() runtime.Object { return &corev1.RangeAllocation{} }, func() runtime.Object { return &legacyList{} })
}

// Range is the range allocated from, as "30000-32767".
func (a *Allocator) Range() string { return a.portRange.String() }

// Contains reports whether port is in the range.
func (a *Allocator) Contains(port int) bool { return a.portRange.Contains(port) }

// errTaken stops an update that would allocate a taken port.
var errTaken = errors.New("taken")

// Allocate allocates port. A dry run allocates nothing but fails as a
// real one would.
func (a *Allocator) Allocate(ctx context.Context, port int, dryRun bool) error {
	if !a.portRange.Contains(port) {
		return &ErrNotInRange{ValidPorts: a.portRange.String()}
	}
	offset := port - a.portRange.Base
	if dryRun {
		b, err := a.current(ctx)
		if err != nil {
			return err
		}
		if b.has(offset) {
			return ErrAllocated
		}
		return nil
	}
	err := a.update(ctx, func(b bitmap) error {
		if b.has(offset) {
			return errTaken
		}
		b.set(offset)
		return nil
	})
	if errors.Is(err, errTaken) {
		return ErrAllocated
	}
	return err
}

// AllocateNext allocates a free port, picked as kube-apiserver picks it.
func (a *Allocator) AllocateNext(ctx context.Context) (int, error) {
	var picked int
	err := a.update(ctx, func(b bitmap) error {
		offset, ok := b.next(a.portRange.Size, a.static)
		if !ok {
			return ErrFull
		}
		b.set(offset)
		picked = a.portRange.Base + offset
		return nil
	})
	if err != nil {
		return 0, err
	}
	return picked, nil
}

// Release frees port. Releasing a free port, or one outside the range, is
// not an error.
func (a *Allocator) Release(ctx context.Context, port int) error {
	if !a.portRange.Contains(port) {
		return nil
	}
	offset := port - a.portRange.Base
	return a.update(ctx, func(b bitmap) error {
		b.clear(offset)
		return nil
	})
}

// Has reports whether port is allocated.
func (a *Allocator) Has(ctx context.Context, port int) (bool, error) {
	if !a.portRange.Contains(port) {
		return false, nil
	}
	b, err := a.current(ctx)
	if err != nil {
		return false, err
	}
	return b.has(port - a.portRange.Base), nil
}

// Allocated returns the allocated ports, in increasing order.
func (a *Allocator) Allocated(ctx context.Context) ([]int, error) {
	b, err := a.current(ctx)
	if err != nil {
		return nil, err
	}
	var out []int
	b.offsets(func(o int) { out = append(out, a.portRange.Base+o) })
	return out, nil
}

// get reads the stored bitmap object; its resourceVersion is empty when
// there is none.
func (a *Allocator) get(ctx context.Context) (*corev1.RangeAllocation, error) {
	ra := &corev1.RangeAllocation{}
	if err := a.store.Get(ctx, Key, storage.GetOptions{IgnoreNotFound: true}, ra); err != nil {
		return nil, err
	}
	return ra, nil
}

// current reads the stored bitmap, refusing one that does not exist yet
// or is of another range.
func (a *Allocator) current(ctx context.Context) (bitmap, error) {
	ra, err := a.get(ctx)
	if err != nil {
		return bitmap{}, err
	}
	return a.usable(ra)
}

func (a *Allocator) usable(ra *corev1.RangeAllocation) (bitmap, error) {
	if ra.ResourceVersion == "" {
		return bitmap{}, errNotInitialized
	}
	if ra.Range != a.portRange.String() {
		return bitmap{}, errRangeMismatch
	}
	return decodeBitmap(ra.Data), nil
}

// update changes the stored bitmap with change, by compare-and-swap:
// change is called again with the new bitmap if another write got in
// first. An error from change aborts the update.
func (a *Allocator) update(ctx context.Context, change func(bitmap) error) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.store.GuaranteedUpdate(ctx, Key, &corev1.RangeAllocation{}, true, nil,
		func(cur runtime.Object, _ storage.ResponseMeta) (runtime.Object, error) {
			ra := cur.(*corev1.RangeAllocation)
			b, err := a.usable(ra)
			if err != nil {
				return nil, err
			}
			if err := change(b); err != nil {
				return nil, err
			}
			ra.Data = b.encode()
			return ra, nil
		})
}

// Package portallocator hands out the node ports of Services from
// --service-node-port-range.
//
// # Storage
//
// Each allocated port is one small object in storage, created atomically,
// like the cluster IPs of package ipallocator, so that several kapi
// servers sharing one etcd never hand out the same port. The object is a
// core/v1 RangeAllocation (the type kube-apiserver keeps its allocation
// bitmaps in) named after the port, in the namespace of its Service and
// with the Service as its owner reference, at
//
//	<etcd-prefix>/ranges/kapi_servicenodeports/<port>
//
// kube-apiserver keeps one bitmap of all node ports at
// <etcd-prefix>/ranges/servicenodeports, which its repair controller
// rebuilds from the Services. The key prefix is kapi's own and cannot
// collide with anything kube-apiserver or a CRD stores: kube-apiserver
// writes only the two fixed keys serviceips and servicenodeports below
// /ranges, and custom resources live below a group name, which has a dot
// and no underscore. kube-apiserver never reads these keys, so they are
// harmless to it; kapi never reads its bitmap. (Mixing kube-apiserver and
// kapi servers on one etcd is therefore not safe for node ports: each
// would allocate without seeing the other's reservations until
// kube-apiserver's repair runs.)
//
// See package reservation for how a port reserved by a server that died
// before writing its Service is reclaimed.
package portallocator

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/kapi-dev/kapi/pkg/registry/core/service/reservation"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/storage"
)

// KeyPrefix is where the port reservations live, below the etcd prefix.
const KeyPrefix = "/ranges/kapi_servicenodeports/"

// ErrAllocated means the port is taken.
var ErrAllocated = errors.New("provided port is already allocated")

// ErrFull means the range has no free port.
var ErrFull = errors.New("range is full")

// ErrNotInRange means the port is outside the node port range.
type ErrNotInRange struct{ ValidPorts string }

func (e *ErrNotInRange) Error() string {
	return fmt.Sprintf("provided port is not in the valid range. The range of valid ports is %s", e.ValidPorts)
}

// Owner names the Service a port is allocated to.
type Owner = reservation.Owner

// Allocator allocates the ports of one range.
type Allocator struct {
	portRange utilnet.PortRange
	// offset splits the range: dynamic allocation takes ports from
	// [Base+offset, Base+Size) first and from the low band only when that
	// is full, so that ports users pick by hand, conventionally low ones,
	// rarely collide with allocated ones.
	offset int
	table  *reservation.Table
}

// New returns an allocator of pr whose reservations live in st, which
// must store core/v1 RangeAllocation objects (see NewStorage).
func New(pr utilnet.PortRange, st storage.Interface) (*Allocator, error) {
	if pr.Size <= 0 || pr.Base <= 0 || pr.Base+pr.Size-1 > 65535 {
		return nil, fmt.Errorf("invalid node port range %q", pr.String())
	}
	a := &Allocator{portRange: pr, offset: staticBand(pr.Size)}
	rangeSpec := pr.String()
	a.table = reservation.New(st, KeyPrefix, reservation.Kind{
		New:     func() runtime.Object { return &corev1.RangeAllocation{} },
		NewList: func() runtime.Object { return &reservationList{} },
		Make: func(value string, owner Owner, now metav1.Time) runtime.Object {
			return newReservation(value, owner, now, rangeSpec)
		},
		Owner: ownerOf,
	})
	return a, nil
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

// NewStorage returns the storage of port reservations, from a factory of
// storage for built-in resources.
func NewStorage(f generic.StorageFactory) (storage.Interface, error) {
	return f.NewStorage(corev1.Resource("rangeallocations"), corev1.SchemeGroupVersion,
		func() runtime.Object { return &corev1.RangeAllocation{} }, func() runtime.Object { return &reservationList{} })
}

// SetHolds tells the allocator how to learn whether a Service still uses
// a port, which lets it reclaim ports whose Service was never written.
func (a *Allocator) SetHolds(h reservation.HoldsFunc) { a.table.SetHolds(h) }

// Table is the table of reservations, for tests that age them.
func (a *Allocator) Table() *reservation.Table { return a.table }

// Range is the range allocated from, as "30000-32767".
func (a *Allocator) Range() string { return a.portRange.String() }

// Contains reports whether port is in the range.
func (a *Allocator) Contains(port int) bool { return a.portRange.Contains(port) }

// Allocate reserves port for the service named by owner. A dry run
// reserves nothing but fails as a real one would.
func (a *Allocator) Allocate(ctx context.Context, port int, owner Owner, dryRun bool) error {
	if !a.portRange.Contains(port) {
		return &ErrNotInRange{ValidPorts: a.portRange.String()}
	}
	err := a.table.Reserve(ctx, strconv.Itoa(port), owner, dryRun)
	if errors.Is(err, reservation.ErrTaken) {
		return ErrAllocated
	}
	return err
}

// AllocateNext reserves a free port, picked at random so that concurrent
// servers rarely collide, above the static band while there is one free
// there.
func (a *Allocator) AllocateNext(ctx context.Context, owner Owner, dryRun bool) (int, error) {
	base, size := a.portRange.Base, uint64(a.portRange.Size)
	space := reservation.Space{
		Size:  size,
		Value: func(n uint64) string { return strconv.Itoa(base + int(n)) },
		Number: func(v string) (uint64, bool) {
			p, err := strconv.Atoi(v)
			if err != nil || !a.portRange.Contains(p) {
				return 0, false
			}
			return uint64(p - base), true
		},
	}
	offset := uint64(a.offset)
	v, err := a.table.ReserveNext(ctx, space, []reservation.Band{{Lo: offset, Hi: size}, {Lo: 0, Hi: offset}}, owner, dryRun)
	if errors.Is(err, reservation.ErrFull) {
		return 0, ErrFull
	}
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(v)
}

// Release frees port if owner holds it. Releasing a free port is not an
// error.
func (a *Allocator) Release(ctx context.Context, port int, owner Owner) error {
	return a.table.Release(ctx, strconv.Itoa(port), owner)
}

// Owner returns the Service port is allocated to, and false if it is free.
func (a *Allocator) Owner(ctx context.Context, port int) (Owner, bool, error) {
	return a.table.Owner(ctx, strconv.Itoa(port))
}

// newReservation is the object that reserves a port for a Service.
func newReservation(port string, owner Owner, now metav1.Time, rangeSpec string) *corev1.RangeAllocation {
	return &corev1.RangeAllocation{
		ObjectMeta: metav1.ObjectMeta{
			Name:              port,
			Namespace:         owner.Namespace,
			UID:               uuid.NewUUID(),
			CreationTimestamp: now,
			OwnerReferences:   []metav1.OwnerReference{{APIVersion: "v1", Kind: "Service", Name: owner.Name}},
		},
		Range: rangeSpec,
	}
}

// ownerOf is the Service a port reservation names.
func ownerOf(obj runtime.Object) (Owner, bool) {
	ra := obj.(*corev1.RangeAllocation)
	for _, ref := range ra.OwnerReferences {
		if ref.APIVersion == "v1" && ref.Kind == "Service" {
			return Owner{Namespace: ra.Namespace, Name: ref.Name}, true
		}
	}
	return Owner{}, false
}

// reservationList is a list of port reservations, to read them all at
// once. core/v1 has no RangeAllocationList; the list itself is never
// encoded, only its items are decoded.
type reservationList struct {
	metav1.TypeMeta
	metav1.ListMeta
	Items []corev1.RangeAllocation
}

func (l *reservationList) DeepCopyObject() runtime.Object {
	out := &reservationList{TypeMeta: l.TypeMeta}
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]corev1.RangeAllocation, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
	return out
}

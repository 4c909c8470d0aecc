// Package ipallocator hands out the cluster IPs of Services from
// --service-cluster-ip-range. Each allocated IP is a networking.k8s.io/v1
// IPAddress object in storage (key "/ipaddresses/<ip>", as kube-apiserver
// keeps them), created atomically, so several kapi servers sharing one
// etcd can never hand out the same IP, and the state survives restarts
// without a separate bitmap to repair. See package reservation for how an
// IP reserved by a server that died before writing its Service is
// reclaimed.
package ipallocator

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/netip"
	"slices"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/kapi-dev/kapi/pkg/registry/core/service/reservation"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/storage"
)

// ErrAllocated means the IP is taken.
var ErrAllocated = errors.New("provided IP is already allocated")

// ErrFull means the range has no free IP.
var ErrFull = errors.New("range is full")

// ErrNotInRange means the IP is in no service range: neither
// --service-cluster-ip-range nor any ServiceCIDR.
type ErrNotInRange struct{ ValidRange string }

// Error is kube-apiserver's answer since its allocator serves every
// ServiceCIDR.
func (e *ErrNotInRange) Error() string {
	return "the provided network does not match the current range"
}

// Labels kube-apiserver puts on the IPAddress objects of Service IPs.
const (
	labelManagedBy = "ipaddress.kubernetes.io/managed-by"
	labelIPFamily  = "ipaddress.kubernetes.io/ip-family"
	managedBy      = "ipallocator.k8s.io"
)

// Owner names the Service an IP is allocated to.
type Owner = reservation.Owner

// Allocator allocates IPs of one range.
type Allocator struct {
	prefix netip.Prefix
	first  netip.Addr // first allocatable address
	size   uint64     // number of allocatable addresses
	// offset splits the range: dynamic allocation takes IPs from
	// [offset, size) first and [1, offset) only when that is full, so
	// that IPs users pick by hand, conventionally low ones, rarely
	// collide with allocated ones.
	offset uint64
	table  *reservation.Table
	// cidrs, if set, is the storage of ServiceCIDRs: the other ranges,
	// beyond this one, that IPs may be allocated from.
	cidrs storage.Interface
}

// New returns an allocator of cidr whose reservations live in st (the
// storage of IPAddress objects, keyed "/ipaddresses/<ip>").
func New(cidr *net.IPNet, st storage.Interface) (*Allocator, error) {
	table := reservation.New(st, "/ipaddresses/", reservation.Kind{
		New:     func() runtime.Object { return &networkingv1.IPAddress{} },
		NewList: func() runtime.Object { return &networkingv1.IPAddressList{} },
		Make:    newIPAddress,
		Owner:   ownerOf,
	})
	return newRange(cidr, table)
}

// Sibling returns the allocator of another range, the secondary
// --service-cluster-ip-range of a dual-stack cluster, that shares a's
// reservations and ServiceCIDRs: an IP is one IPAddress object whichever
// range it comes from.
func (a *Allocator) Sibling(cidr *net.IPNet) (*Allocator, error) {
	s, err := newRange(cidr, a.table)
	if err != nil {
		return nil, err
	}
	s.cidrs = a.cidrs
	return s, nil
}

// IPv6 reports whether the range is of the IPv6 family.
func (a *Allocator) IPv6() bool { return a.prefix.Addr().Is6() }

// newRange returns the allocator of cidr over the reservations of table.
func newRange(cidr *net.IPNet, table *reservation.Table) (*Allocator, error) {
	p, err := netip.ParsePrefix(cidr.String())
	if err != nil {
		return nil, err
	}
	p = p.Masked()
	bits := p.Addr().BitLen() - p.Bits()
	cidrSize := new(big.Int).Lsh(big.NewInt(1), uint(bits))
	// The network address is never handed out; in IPv4 the broadcast
	// address is not either.
	reserved := int64(1)
	if p.Addr().Is4() {
		reserved = 2
	}
	total := new(big.Int).Sub(cidrSize, big.NewInt(reserved))
	if total.Sign() <= 0 {
		return nil, fmt.Errorf("service range %s is too small", cidr)
	}
	size := uint64(1 << 62)
	if total.IsUint64() && total.Uint64() < size {
		size = total.Uint64()
	}
	return &Allocator{prefix: p, first: p.Addr().Next(), size: size, offset: staticBand(cidrSize), table: table}, nil
}

// NewStorage returns the storage of IP reservations, from a factory of
// storage for built-in resources: the networking.k8s.io ipaddresses that
// package ipaddress serves, read and written here directly.
func NewStorage(f generic.StorageFactory) (storage.Interface, error) {
	return f.NewStorage(networkingv1.Resource("ipaddresses"), networkingv1.SchemeGroupVersion, "",
		func() runtime.Object { return &networkingv1.IPAddress{} }, func() runtime.Object { return &networkingv1.IPAddressList{} })
}

// NewServiceCIDRStorage returns the storage of ServiceCIDRs, which the
// allocator reads to learn the ranges beyond its own.
func NewServiceCIDRStorage(f generic.StorageFactory) (storage.Interface, error) {
	return f.NewStorage(networkingv1.Resource("servicecidrs"), networkingv1.SchemeGroupVersion, "",
		func() runtime.Object { return &networkingv1.ServiceCIDR{} }, func() runtime.Object { return &networkingv1.ServiceCIDRList{} })
}

// SetServiceCIDRs lets the allocator allocate from the ServiceCIDRs in st
// too, as kube-apiserver's does: an IP asked for in any of them, and free
// IPs from them once its own range is full. Call it before the allocator
// is used.
func (a *Allocator) SetServiceCIDRs(st storage.Interface) { a.cidrs = st }

// serviceCIDRRanges are the ranges of the stored ServiceCIDRs, other than
// this allocator's own, of ip's family, that are not being deleted.
func (a *Allocator) serviceCIDRRanges(ctx context.Context, is4 bool) ([]*Allocator, error) {
	if a.cidrs == nil {
		return nil, nil
	}
	list := &networkingv1.ServiceCIDRList{}
	if err := a.cidrs.GetList(ctx, "/servicecidrs/", storage.ListOptions{Recursive: true, Predicate: storage.Everything}, list); err != nil {
		return nil, err
	}
	var out []*Allocator
	for _, sc := range list.Items {
		if sc.DeletionTimestamp != nil {
			continue
		}
		for _, cidr := range sc.Spec.CIDRs {
			p, err := netip.ParsePrefix(cidr)
			if err != nil || p.Addr().Is4() != is4 || p.Masked() == a.prefix {
				continue
			}
			_, ipnet, err := net.ParseCIDR(p.Masked().String())
			if err != nil {
				continue
			}
			// The ranges share this allocator's table: an IP is one
			// object whichever range it was allocated from.
			other, err := newRange(ipnet, a.table)
			if err != nil {
				continue
			}
			out = append(out, other)
		}
	}
	return out, nil
}

// staticBand is the number of IPs at the start of a range of cidrSize
// addresses that dynamic allocation leaves for last, as kube-apiserver
// computes it: cidrSize/16, at least 16 and at most 256, or none in a
// range of 16 addresses or fewer.
func staticBand(cidrSize *big.Int) uint64 {
	const lo, hi, step = 16, 256, 16
	if cidrSize.Cmp(big.NewInt(lo)) <= 0 {
		return 0
	}
	n := new(big.Int).Div(cidrSize, big.NewInt(step))
	switch {
	case n.Cmp(big.NewInt(lo)) < 0:
		return lo
	case n.Cmp(big.NewInt(hi)) > 0:
		return hi
	}
	return n.Uint64()
}

// SetHolds tells the allocator how to learn whether a Service still uses
// its IP, which lets it reclaim IPs whose Service was never written.
func (a *Allocator) SetHolds(h reservation.HoldsFunc) { a.table.SetHolds(h) }

// Table is the table of reservations, for tests that age them.
func (a *Allocator) Table() *reservation.Table { return a.table }

// CIDR is the range allocated from.
func (a *Allocator) CIDR() string { return a.prefix.String() }

// Contains reports whether ip is in the allocatable range.
func (a *Allocator) Contains(ip netip.Addr) bool {
	if !a.prefix.Contains(ip) || ip == a.prefix.Addr() {
		return false
	}
	return !(ip.Is4() && ip == a.broadcast())
}

func (a *Allocator) broadcast() netip.Addr {
	b := a.prefix.Addr().As4()
	host := uint32(1)<<(32-a.prefix.Bits()) - 1
	v := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	v |= host
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

// First is the first allocatable IP, reserved by convention for the
// kubernetes Service.
func (a *Allocator) First() netip.Addr { return a.first }

// Allocate reserves ip for the service named by owner. A dry run reserves
// nothing but fails as a real one would.
func (a *Allocator) Allocate(ctx context.Context, ip netip.Addr, owner Owner, dryRun bool) error {
	if !a.Contains(ip) {
		others, err := a.serviceCIDRRanges(ctx, ip.Is4())
		if err != nil {
			return err
		}
		i := slices.IndexFunc(others, func(o *Allocator) bool { return o.Contains(ip) })
		if i < 0 {
			return &ErrNotInRange{ValidRange: a.prefix.String()}
		}
		return others[i].Allocate(ctx, ip, owner, dryRun)
	}
	err := a.table.Reserve(ctx, ip.String(), owner, dryRun)
	if errors.Is(err, reservation.ErrTaken) {
		return ErrAllocated
	}
	return err
}

// AllocateNext reserves a free IP, picked at random so that concurrent
// servers rarely collide, above the static band while there is one free
// there. The first IP is left to the kubernetes Service.
func (a *Allocator) AllocateNext(ctx context.Context, owner Owner, dryRun bool) (netip.Addr, error) {
	ip, err := a.allocateNext(ctx, owner, dryRun)
	if !errors.Is(err, ErrFull) {
		return ip, err
	}
	// This range is full: the other ServiceCIDRs of its family may not
	// be.
	others, err := a.serviceCIDRRanges(ctx, a.prefix.Addr().Is4())
	if err != nil {
		return netip.Addr{}, err
	}
	for _, o := range others {
		if ip, err := o.allocateNext(ctx, owner, dryRun); !errors.Is(err, ErrFull) {
			return ip, err
		}
	}
	return netip.Addr{}, ErrFull
}

// allocateNext reserves a free IP of this range alone.
func (a *Allocator) allocateNext(ctx context.Context, owner Owner, dryRun bool) (netip.Addr, error) {
	space := reservation.Space{
		Size:  a.size,
		Value: func(n uint64) string { return addOffset(a.first, n).String() },
		Number: func(v string) (uint64, bool) {
			ip, err := netip.ParseAddr(v)
			if err != nil || !a.Contains(ip) {
				return 0, false
			}
			return offsetOf(a.first, ip)
		},
	}
	v, err := a.table.ReserveNext(ctx, space, []reservation.Band{{Lo: max(a.offset, 1), Hi: a.size}, {Lo: 1, Hi: a.offset}}, owner, dryRun)
	if errors.Is(err, reservation.ErrFull) {
		return netip.Addr{}, ErrFull
	}
	if err != nil {
		return netip.Addr{}, err
	}
	return netip.MustParseAddr(v), nil
}

// Release frees ip if owner holds it. Releasing a free IP is not an
// error.
func (a *Allocator) Release(ctx context.Context, ip netip.Addr, owner Owner) error {
	return a.table.Release(ctx, ip.String(), owner)
}

// Owner returns the Service ip is allocated to, and false if it is free.
func (a *Allocator) Owner(ctx context.Context, ip netip.Addr) (Owner, bool, error) {
	return a.table.Owner(ctx, ip.String())
}

// newIPAddress is the IPAddress object kube-apiserver writes for a
// Service's IP.
func newIPAddress(value string, owner Owner, now metav1.Time) runtime.Object {
	ip := netip.MustParseAddr(value)
	return &networkingv1.IPAddress{
		ObjectMeta: metav1.ObjectMeta{
			Name:              value,
			UID:               uuid.NewUUID(),
			Labels:            map[string]string{labelManagedBy: managedBy, labelIPFamily: family(ip)},
			CreationTimestamp: now,
			ManagedFields:     ipAddressManagedFields(now, owner.Namespace != ""),
		},
		Spec: networkingv1.IPAddressSpec{ParentRef: &networkingv1.ParentReference{Resource: "services", Namespace: owner.Namespace, Name: owner.Name}},
	}
}

// ipAddressManagedFields is what kube-apiserver's allocator, a client
// of the API, is recorded as writing: the labels and the parent
// reference.
func ipAddressManagedFields(now metav1.Time, namespaced bool) []metav1.ManagedFieldsEntry {
	parent := `".":{},"f:name":{},"f:resource":{}`
	if namespaced {
		parent = `".":{},"f:name":{},"f:namespace":{},"f:resource":{}`
	}
	fields := `{"f:metadata":{"f:labels":{".":{},"f:` + labelIPFamily + `":{},"f:` + labelManagedBy + `":{}}},"f:spec":{"f:parentRef":{` + parent + `}}}`
	return []metav1.ManagedFieldsEntry{{
		Manager: "kube-apiserver", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "networking.k8s.io/v1",
		Time: &now, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(fields)},
	}}
}

// ownerOf is the Service an IPAddress names as its parent.
func ownerOf(obj runtime.Object) (Owner, bool) {
	ref := obj.(*networkingv1.IPAddress).Spec.ParentRef
	if ref == nil || ref.Group != "" || ref.Resource != "services" {
		return Owner{}, false
	}
	return Owner{Namespace: ref.Namespace, Name: ref.Name}, true
}

func family(ip netip.Addr) string {
	if ip.Is4() {
		return "IPv4"
	}
	return "IPv6"
}

func addOffset(ip netip.Addr, n uint64) netip.Addr {
	b := ip.AsSlice()
	carry := n
	for i := len(b) - 1; i >= 0 && carry > 0; i-- {
		sum := uint64(b[i]) + (carry & 0xff)
		b[i] = byte(sum)
		carry = (carry >> 8) + (sum >> 8)
	}
	out, _ := netip.AddrFromSlice(b)
	return out
}

// offsetOf is the n for which addOffset(base, n) is ip, and false if ip
// is below base or too far above it.
func offsetOf(base, ip netip.Addr) (uint64, bool) {
	d := new(big.Int).Sub(new(big.Int).SetBytes(ip.AsSlice()), new(big.Int).SetBytes(base.AsSlice()))
	if !d.IsUint64() {
		return 0, false
	}
	return d.Uint64(), true
}

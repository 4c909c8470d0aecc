// Package ipallocator hands out the cluster IPs of Services from
// --service-cluster-ip-range. Each allocated IP is a networking.k8s.io/v1
// IPAddress object in storage, created atomically, so several kapi
// servers sharing one etcd can never hand out the same IP, and the state
// survives restarts without a separate bitmap to repair.
package ipallocator

import (
	"context"
	"fmt"
	"math/big"
	"math/rand/v2"
	"net"
	"net/netip"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/storage"
)

// ErrAllocated means the IP is taken.
var ErrAllocated = fmt.Errorf("provided IP is already allocated")

// ErrFull means the range has no free IP.
var ErrFull = fmt.Errorf("range is full")

// ErrNotInRange means the IP is outside the service range.
type ErrNotInRange struct{ ValidRange string }

func (e *ErrNotInRange) Error() string {
	return fmt.Sprintf("the provided IP is not in the valid range. The range of valid IPs is %s", e.ValidRange)
}

// Allocator allocates IPs of one range.
type Allocator struct {
	prefix  netip.Prefix
	first   netip.Addr // first allocatable address
	size    uint64     // number of allocatable addresses
	storage storage.Interface
}

// New returns an allocator of cidr whose reservations live in st (the
// storage of IPAddress objects, keyed "/ipaddresses/<ip>").
func New(cidr *net.IPNet, st storage.Interface) (*Allocator, error) {
	p, err := netip.ParsePrefix(cidr.String())
	if err != nil {
		return nil, err
	}
	p = p.Masked()
	bits := p.Addr().BitLen() - p.Bits()
	total := new(big.Int).Lsh(big.NewInt(1), uint(bits))
	// The network address is never handed out; in IPv4 the broadcast
	// address is not either.
	reserved := int64(1)
	if p.Addr().Is4() {
		reserved = 2
	}
	total.Sub(total, big.NewInt(reserved))
	if total.Sign() <= 0 {
		return nil, fmt.Errorf("service range %s is too small", cidr)
	}
	size := uint64(1 << 62)
	if total.IsUint64() && total.Uint64() < size {
		size = total.Uint64()
	}
	return &Allocator{prefix: p, first: p.Addr().Next(), size: size, storage: st}, nil
}

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

// Allocate reserves ip for the service named by owner.
func (a *Allocator) Allocate(ctx context.Context, ip netip.Addr, owner Owner, dryRun bool) error {
	if !a.Contains(ip) {
		return &ErrNotInRange{ValidRange: a.prefix.String()}
	}
	key := "/ipaddresses/" + ip.String()
	if dryRun {
		existing := &networkingv1.IPAddress{}
		if err := a.storage.Get(ctx, key, storage.GetOptions{IgnoreNotFound: true}, existing); err != nil {
			return err
		}
		if existing.Name != "" {
			return ErrAllocated
		}
		return nil
	}
	obj := &networkingv1.IPAddress{
		ObjectMeta: metav1.ObjectMeta{
			Name:              ip.String(),
			Labels:            map[string]string{"ipaddress.kubernetes.io/managed-by": "ipallocator.k8s.io", "ipaddress.kubernetes.io/ip-family": family(ip)},
			CreationTimestamp: metav1.Now(),
		},
		Spec: networkingv1.IPAddressSpec{ParentRef: &networkingv1.ParentReference{Resource: "services", Namespace: owner.Namespace, Name: owner.Name}},
	}
	if err := a.storage.Create(ctx, key, obj, &networkingv1.IPAddress{}); err != nil {
		if storage.IsExist(err) {
			return ErrAllocated
		}
		return err
	}
	return nil
}

// AllocateNext reserves a random free IP. Random picks spread allocations
// so that concurrent servers rarely collide; a collision just tries again.
func (a *Allocator) AllocateNext(ctx context.Context, owner Owner, dryRun bool) (netip.Addr, error) {
	const attempts = 64
	for i := 0; i < attempts; i++ {
		// The first address is left to the kubernetes Service.
		offset := uint64(1)
		if a.size > 1 {
			offset += rand.Uint64N(a.size - 1)
		}
		ip := addOffset(a.first, offset)
		err := a.Allocate(ctx, ip, owner, dryRun)
		if err == nil {
			return ip, nil
		}
		if err != ErrAllocated {
			return netip.Addr{}, err
		}
	}
	return netip.Addr{}, ErrFull
}

// Release frees ip. Releasing a free IP is not an error.
func (a *Allocator) Release(ctx context.Context, ip netip.Addr) error {
	err := a.storage.Delete(ctx, "/ipaddresses/"+ip.String(), &networkingv1.IPAddress{}, nil, nil)
	if storage.IsNotFound(err) {
		return nil
	}
	return err
}

// Owner names the Service an IP is allocated to.
type Owner struct{ Namespace, Name string }

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

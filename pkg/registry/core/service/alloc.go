package service

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/registry/core/service/ipallocator"
	"github.com/kapi-dev/kapi/pkg/registry/core/service/portallocator"
	"github.com/kapi-dev/kapi/pkg/registry/core/service/reservation"
)

// allocators are what a Service is given its cluster IPs and node ports
// from.
type allocators struct {
	ips   clusterIPAllocators
	ports *portallocator.Allocator
	// families are the IP families of the cluster, primary first.
	families []corev1.IPFamily
}

// clusterIPAllocators are the allocators of the cluster's IP families,
// primary first: one on a single-stack cluster, two on a dual-stack one.
// They share one table of IPAddress objects.
type clusterIPAllocators []*ipallocator.Allocator

// of is the allocator of family, nil if the cluster has not that family.
func (c clusterIPAllocators) of(family corev1.IPFamily) *ipallocator.Allocator {
	for _, a := range c {
		if a.IPv6() == (family == corev1.IPv6Protocol) {
			return a
		}
	}
	return nil
}

// forIP is the allocator of ip's family, or the primary one, whose
// answer for an IP of another family is that it is in no range.
func (c clusterIPAllocators) forIP(ip netip.Addr) *ipallocator.Allocator {
	for _, a := range c {
		if a.IPv6() == ip.Is6() {
			return a
		}
	}
	return c[0]
}

func (c clusterIPAllocators) Allocate(ctx context.Context, ip netip.Addr, owner reservation.Owner, dryRun bool) error {
	return c.forIP(ip).Allocate(ctx, ip, owner, dryRun)
}

func (c clusterIPAllocators) Release(ctx context.Context, ip netip.Addr, owner reservation.Owner) error {
	return c.forIP(ip).Release(ctx, ip, owner)
}

func (c clusterIPAllocators) Owner(ctx context.Context, ip netip.Addr) (reservation.Owner, bool, error) {
	return c.forIP(ip).Owner(ctx, ip)
}

// Table is the table of reservations the allocators share.
func (c clusterIPAllocators) Table() *reservation.Table { return c[0].Table() }

// txn is what one create or update request reserved. Storage has no
// transaction spanning the reservations and the Service write, so the
// request reserves first and, once the write is decided, finishes: on
// failure it releases everything it reserved; on success it releases what
// the old Service had and the stored one no longer has, and what it
// reserved but did not use (an update may be computed several times when
// it races with other writes, each attempt from the then-current
// object).
type txn struct {
	alloc  *allocators
	owner  reservation.Owner
	dryRun bool

	// Reserved by this request, over all attempts.
	heldIPs   map[netip.Addr]bool
	heldPorts map[int32]bool
	// Node ports the current attempt has taken so far.
	attemptPorts map[int32]bool
	// What the object of the last attempt was computed from had
	// allocated; nil for a create.
	oldIPs   []netip.Addr
	oldPorts []int32
}

func (a *allocators) newTxn(owner reservation.Owner, dryRun bool) *txn {
	return &txn{alloc: a, owner: owner, dryRun: dryRun, heldIPs: map[netip.Addr]bool{}, heldPorts: map[int32]bool{}}
}

// startAttempt begins computing the object anew from old (nil on
// create).
func (t *txn) startAttempt(old *corev1.Service) {
	t.attemptPorts = map[int32]bool{}
	t.oldIPs, t.oldPorts = nil, nil
	if old != nil {
		t.oldIPs, t.oldPorts = allocatedIPs(old), allocatedPorts(old)
	}
}

// finish settles the reservations once the write is decided: stored is
// the Service as written, nil if the request failed.
func (t *txn) finish(ctx context.Context, stored *corev1.Service) {
	if t.dryRun {
		return
	}
	// The request may have been cancelled; its reservations must still
	// be settled. A cluster IP release that fails leaves an orphan, which
	// a later allocation reclaims (see package reservation); a node port
	// one leaks the port until the repair frees it (see package
	// portallocator).
	ctx = context.WithoutCancel(ctx)
	keepIPs, keepPorts := map[netip.Addr]bool{}, map[int32]bool{}
	if stored != nil {
		for _, ip := range allocatedIPs(stored) {
			keepIPs[ip] = true
		}
		for _, p := range allocatedPorts(stored) {
			keepPorts[p] = true
		}
	}
	releaseIPs := map[netip.Addr]bool{}
	for ip := range t.heldIPs {
		releaseIPs[ip] = true
	}
	releasePorts := map[int32]bool{}
	for p := range t.heldPorts {
		releasePorts[p] = true
	}
	if stored != nil {
		for _, ip := range t.oldIPs {
			releaseIPs[ip] = true
		}
		for _, p := range t.oldPorts {
			releasePorts[p] = true
		}
	}
	// Cluster IPs outside today's ranges (which an operator may have
	// changed) are released too: a release only ever removes this
	// Service's own reservation. A node port outside the range has no
	// bit to clear.
	for ip := range releaseIPs {
		if !keepIPs[ip] {
			_ = t.alloc.ips.Release(ctx, ip, t.owner)
		}
	}
	for p := range releasePorts {
		if !keepPorts[p] {
			_ = t.alloc.ports.Release(ctx, int(p))
		}
	}
}

// reserveIP reserves ip, unless an earlier attempt of this request did.
func (t *txn) reserveIP(ctx context.Context, ip netip.Addr) error {
	if t.heldIPs[ip] {
		return nil
	}
	if err := t.alloc.ips.Allocate(ctx, ip, t.owner, t.dryRun); err != nil {
		return err
	}
	if !t.dryRun {
		t.heldIPs[ip] = true
	}
	return nil
}

func (t *txn) nextIP(ctx context.Context, family corev1.IPFamily) (netip.Addr, error) {
	a := t.alloc.ips.of(family)
	if a == nil {
		return netip.Addr{}, fmt.Errorf("%s is not configured on this cluster", family)
	}
	ip, err := a.AllocateNext(ctx, t.owner, t.dryRun)
	if err == nil && !t.dryRun {
		t.heldIPs[ip] = true
	}
	return ip, err
}

// reservePort reserves port. A port the current attempt has taken
// already is allocated, as kube-apiserver's allocation sees it; one an
// earlier attempt reserved is this request's to use.
func (t *txn) reservePort(ctx context.Context, port int32) error {
	if t.attemptPorts[port] {
		return portallocator.ErrAllocated
	}
	if !t.heldPorts[port] {
		if err := t.alloc.ports.Allocate(ctx, int(port), t.dryRun); err != nil {
			return err
		}
		if !t.dryRun {
			t.heldPorts[port] = true
		}
	}
	t.attemptPorts[port] = true
	return nil
}

func (t *txn) nextPort(ctx context.Context) (int32, error) {
	if t.dryRun {
		// kube-apiserver answers a dry run with a placeholder, not a free
		// port: one above the highest port the request has taken so far,
		// or 32769 for the first.
		last := int32(32768)
		if len(t.attemptPorts) > 0 {
			last = 0
			for p := range t.attemptPorts {
				last = max(last, p)
			}
		}
		t.attemptPorts[last+1] = true
		return last + 1, nil
	}
	p, err := t.alloc.ports.AllocateNext(ctx)
	if err != nil {
		return 0, err
	}
	port := int32(p)
	t.heldPorts[port] = true
	t.attemptPorts[port] = true
	return port, nil
}

// beginCreate fills in and allocates what a new Service needs, before
// validation, as kube-apiserver does.
func (t *txn) beginCreate(ctx context.Context, svc *corev1.Service) error {
	t.startAttempt(nil)
	normalizeClusterIPs(svc, nil)
	if errs := core.DefaultServiceIPFamilies(svc, nil, t.alloc.families); len(errs) > 0 {
		return invalid(svc, errs...)
	}
	if err := t.allocClusterIPs(ctx, svc, 0); err != nil {
		return err
	}
	if err := t.allocNodePorts(ctx, svc); err != nil {
		return err
	}
	if needsHealthCheckNodePort(svc) {
		return t.allocHealthCheckNodePort(ctx, svc)
	}
	return nil
}

// beginUpdate fills in and allocates what an updated Service needs,
// before validation, as kube-apiserver does. What the update frees is
// released by finish once the update is stored.
func (t *txn) beginUpdate(ctx context.Context, svc, old *corev1.Service) error {
	t.startAttempt(old)
	patchAllocatedValues(svc, old)
	normalizeClusterIPs(svc, old)
	dropTypeDependentFields(svc, old)
	if errs := core.DefaultServiceIPFamilies(svc, old, t.alloc.families); len(errs) > 0 {
		return invalid(svc, errs...)
	}
	// A Service leaving ExternalName needs cluster IPs, and one that
	// gains a second family (SingleStack to PreferDualStack or
	// RequireDualStack) needs its secondary IP. Every other change of
	// cluster IPs is either a release (to ExternalName, or of a secondary
	// IP), done in finish, or refused by validation.
	switch {
	case old.Spec.Type == corev1.ServiceTypeExternalName && svc.Spec.Type != corev1.ServiceTypeExternalName:
		if err := t.allocClusterIPs(ctx, svc, 0); err != nil {
			return err
		}
	case needsClusterIP(old) && len(old.Spec.ClusterIPs) == 1 && old.Spec.ClusterIPs[0] != corev1.ClusterIPNone && len(svc.Spec.IPFamilies) == 2:
		if err := t.allocClusterIPs(ctx, svc, 1); err != nil {
			return err
		}
	}
	if needsNodePort(svc) {
		if err := t.updateNodePorts(ctx, svc, old); err != nil {
			return err
		}
	}
	if !needsHealthCheckNodePort(old) && needsHealthCheckNodePort(svc) {
		return t.allocHealthCheckNodePort(ctx, svc)
	}
	return nil
}

// allocClusterIPs gives a Service that needs them its cluster IPs, one
// per family of spec.ipFamilies from the from'th on (0 on create, 1 when
// an update asks for a secondary family): the one clusterIPs asks for at
// that index, or a free one of the family.
func (t *txn) allocClusterIPs(ctx context.Context, svc *corev1.Service, from int) error {
	spec := &svc.Spec
	if spec.Type == corev1.ServiceTypeExternalName || len(spec.ClusterIPs) > 0 && spec.ClusterIPs[0] == corev1.ClusterIPNone {
		return nil
	}
	// Family defaulting left families the cluster has, and at most one
	// IP per family, in their order.
	ips := slices.Clone(spec.ClusterIPs)
	for i := from; i < len(spec.IPFamilies); i++ {
		if i < len(ips) && ips[i] != "" {
			requested := ips[i]
			ip, err := netip.ParseAddr(requested)
			if err != nil {
				return apierrors.NewInternalError(fmt.Errorf("failed to parse service IP %q", requested))
			}
			if err := t.reserveIP(ctx, ip); err != nil {
				if isAllocationError(err) {
					return invalid(svc, field.Invalid(field.NewPath("spec", "clusterIPs"), spec.ClusterIPs, fmt.Sprintf("failed to allocate IP %s: %v", requested, err)))
				}
				return apierrors.NewInternalError(err)
			}
			continue
		}
		ip, err := t.nextIP(ctx, spec.IPFamilies[i])
		if err != nil {
			return apierrors.NewInternalError(fmt.Errorf("failed to allocate a serviceIP: %v", err))
		}
		if i < len(ips) {
			ips[i] = ip.String()
		} else {
			ips = append(ips, ip.String())
		}
	}
	spec.ClusterIPs = ips[:min(len(ips), len(spec.IPFamilies))]
	if len(spec.ClusterIPs) > 0 {
		spec.ClusterIP = spec.ClusterIPs[0]
	}
	return nil
}

// allocNodePorts gives every port of a new NodePort or LoadBalancer
// Service a node port. Ports with the same port number (the same port
// over TCP and UDP, say) share one, as in kube-apiserver: the one any of
// them asks for, or a free one.
func (t *txn) allocNodePorts(ctx context.Context, svc *corev1.Service) error {
	if !needsNodePort(svc) {
		return nil
	}
	allocate := shouldAllocateNodePorts(svc)
	byPort := map[int32]int32{}
	ports := svc.Spec.Ports
	for i := range ports {
		p := &ports[i]
		if p.NodePort == 0 && !allocate {
			// Nothing is allocated, but requests are honoured.
			continue
		}
		if shared, ok := byPort[p.Port]; ok {
			switch {
			case p.NodePort == 0:
				p.NodePort = shared
			case p.NodePort != shared:
				if err := t.reservePort(ctx, p.NodePort); err != nil {
					return nodePortError(svc, i, p.NodePort, err)
				}
			}
			continue
		}
		np := requestedNodePort(p.Port, ports[i:])
		if np != 0 {
			if err := t.reservePort(ctx, np); err != nil {
				return nodePortError(svc, i, np, err)
			}
		} else {
			var err error
			if np, err = t.nextPort(ctx); err != nil {
				return apierrors.NewInternalError(fmt.Errorf("failed to allocate a nodePort: %v", err))
			}
		}
		p.NodePort = np
		byPort[p.Port] = np
	}
	return nil
}

// requestedNodePort is the node port the first of ports with port number
// port asks for, 0 if none does.
func requestedNodePort(port int32, ports []corev1.ServicePort) int32 {
	for _, p := range ports {
		if p.Port == port && p.NodePort != 0 {
			return p.NodePort
		}
	}
	return 0
}

// serviceNodePort is a node port as kube-apiserver prints it in its
// duplicate error.
type serviceNodePort struct {
	Protocol corev1.Protocol
	NodePort int32
}

// updateNodePorts reserves the node ports an updated NodePort or
// LoadBalancer Service asks for and did not have, and allocates those it
// lacks.
func (t *txn) updateNodePorts(ctx context.Context, svc, old *corev1.Service) error {
	oldPorts := nodePortsOf(old)
	allocate := shouldAllocateNodePorts(svc)
	var seen []serviceNodePort
	for i := range svc.Spec.Ports {
		p := &svc.Spec.Ports[i]
		if p.NodePort == 0 && !allocate {
			continue
		}
		if p.NodePort != 0 {
			if !slices.Contains(oldPorts, p.NodePort) && !t.attemptPorts[p.NodePort] {
				if err := t.reservePort(ctx, p.NodePort); err != nil {
					return nodePortError(svc, i, p.NodePort, err)
				}
			}
		} else {
			np, err := t.nextPort(ctx)
			if err != nil {
				return apierrors.NewInternalError(fmt.Errorf("failed to allocate a nodePort: %v", err))
			}
			p.NodePort = np
		}
		snp := serviceNodePort{Protocol: p.Protocol, NodePort: p.NodePort}
		if slices.Contains(seen, snp) {
			// kube-apiserver answers this with a plain error, a 500.
			return apierrors.NewInternalError(fmt.Errorf("duplicate nodePort: %v", snp))
		}
		seen = append(seen, snp)
	}
	return nil
}

// allocHealthCheckNodePort reserves the health check node port asked for
// or a free one. kube-apiserver answers failures here with a 500.
func (t *txn) allocHealthCheckNodePort(ctx context.Context, svc *corev1.Service) error {
	if hc := svc.Spec.HealthCheckNodePort; hc != 0 {
		if err := t.reservePort(ctx, hc); err != nil {
			return apierrors.NewInternalError(fmt.Errorf("failed to allocate requested HealthCheck NodePort %v: %v", hc, err))
		}
		return nil
	}
	hc, err := t.nextPort(ctx)
	if err != nil {
		return apierrors.NewInternalError(fmt.Errorf("failed to allocate a HealthCheck NodePort %v: %v", hc, err))
	}
	svc.Spec.HealthCheckNodePort = hc
	return nil
}

// nodePortError is kube-apiserver's answer to a node port that cannot be
// had: 422 for one taken or out of range, 500 otherwise.
func nodePortError(svc *corev1.Service, i int, port int32, err error) error {
	var notInRange *portallocator.ErrNotInRange
	if errors.Is(err, portallocator.ErrAllocated) || errors.As(err, &notInRange) {
		return invalid(svc, field.Invalid(field.NewPath("spec", "ports").Index(i).Child("nodePort"), port, err.Error()))
	}
	return apierrors.NewInternalError(err)
}

func isAllocationError(err error) bool {
	var notInRange *ipallocator.ErrNotInRange
	return errors.Is(err, ipallocator.ErrAllocated) || errors.As(err, &notInRange)
}

func invalid(svc *corev1.Service, errs ...*field.Error) error {
	return apierrors.NewInvalid(corev1.SchemeGroupVersion.WithKind("Service").GroupKind(), svc.Name, errs)
}

// allocatedIPs are the cluster IPs a Service holds.
func allocatedIPs(svc *corev1.Service) []netip.Addr {
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		return nil
	}
	var out []netip.Addr
	for _, s := range svc.Spec.ClusterIPs {
		if ip, err := netip.ParseAddr(s); err == nil {
			out = append(out, ip)
		}
	}
	return out
}

// nodePortsOf are the node ports of a Service's ports.
func nodePortsOf(svc *corev1.Service) []int32 {
	var out []int32
	for _, p := range svc.Spec.Ports {
		if p.NodePort != 0 {
			out = append(out, p.NodePort)
		}
	}
	return out
}

// allocatedPorts are the node ports a Service holds, its health check
// node port included.
func allocatedPorts(svc *corev1.Service) []int32 {
	out := nodePortsOf(svc)
	if hc := svc.Spec.HealthCheckNodePort; hc != 0 {
		out = append(out, hc)
	}
	return out
}

func needsClusterIP(svc *corev1.Service) bool {
	return svc.Spec.Type != corev1.ServiceTypeExternalName
}

func needsNodePort(svc *corev1.Service) bool {
	return svc.Spec.Type == corev1.ServiceTypeNodePort || svc.Spec.Type == corev1.ServiceTypeLoadBalancer
}

// shouldAllocateNodePorts reports whether ports without a node port get
// one: NodePort Services always, LoadBalancer ones unless they opt out.
func shouldAllocateNodePorts(svc *corev1.Service) bool {
	switch svc.Spec.Type {
	case corev1.ServiceTypeNodePort:
		return true
	case corev1.ServiceTypeLoadBalancer:
		return svc.Spec.AllocateLoadBalancerNodePorts == nil || *svc.Spec.AllocateLoadBalancerNodePorts
	}
	return false
}

func needsHealthCheckNodePort(svc *corev1.Service) bool {
	return svc.Spec.Type == corev1.ServiceTypeLoadBalancer && svc.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal
}

// externallyAccessible reports whether an external traffic policy
// applies to the Service.
func externallyAccessible(svc *corev1.Service) bool {
	return needsNodePort(svc) || svc.Spec.Type == corev1.ServiceTypeClusterIP && len(svc.Spec.ExternalIPs) > 0
}

// normalizeClusterIPs keeps clusterIP and clusterIPs in step for clients
// that know only the older singular field, as kube-apiserver does before
// anything looks at them. On create, clusterIP alone fills clusterIPs.
// On update, a client that left clusterIPs out but kept clusterIP keeps
// the IPs; one that cleared or changed clusterIP but sent clusterIPs
// unchanged (it read them and did not know them) has clusterIPs follow.
func normalizeClusterIPs(svc, old *corev1.Service) {
	spec := &svc.Spec
	if old == nil {
		if spec.ClusterIP != "" && len(spec.ClusterIPs) == 0 {
			spec.ClusterIPs = []string{spec.ClusterIP}
		}
		return
	}
	if len(spec.ClusterIPs) == 0 && len(old.Spec.ClusterIPs) > 0 && spec.ClusterIP == old.Spec.ClusterIP {
		spec.ClusterIPs = old.Spec.ClusterIPs
	}
	if spec.ClusterIP == old.Spec.ClusterIP || !slices.Equal(spec.ClusterIPs, old.Spec.ClusterIPs) {
		return
	}
	if spec.ClusterIP == "" {
		spec.ClusterIPs = nil
	} else {
		spec.ClusterIPs = []string{spec.ClusterIP}
	}
}

// patchAllocatedValues carries the values the server allocated over to
// an update that leaves them out, so that a client may send the same
// manifest again (kubectl replace, PUT of what it created) without
// knowing them: the cluster IPs, the node ports (matched by port name,
// unless another port now uses the old value) and the health check node
// port.
func patchAllocatedValues(svc, old *corev1.Service) {
	spec := &svc.Spec
	if needsClusterIP(old) && needsClusterIP(svc) {
		if spec.ClusterIP == "" {
			spec.ClusterIP = old.Spec.ClusterIP
		}
		if len(spec.ClusterIPs) == 0 && len(old.Spec.ClusterIPs) > 0 {
			spec.ClusterIPs = old.Spec.ClusterIPs
		}
	}
	if needsNodePort(old) && needsNodePort(svc) {
		newPorts := nodePortsOf(svc)
		byName := map[string]int32{}
		for _, p := range old.Spec.Ports {
			byName[p.Name] = p.NodePort
		}
		for i := range spec.Ports {
			p := &spec.Ports[i]
			if p.NodePort != 0 {
				continue
			}
			// A value the update gives to another port stays there.
			if v := byName[p.Name]; v != 0 && !slices.Contains(newPorts, v) {
				p.NodePort = v
			}
		}
	}
	if needsHealthCheckNodePort(old) && needsHealthCheckNodePort(svc) && spec.HealthCheckNodePort == 0 {
		spec.HealthCheckNodePort = old.Spec.HealthCheckNodePort
	}
}

// dropTypeDependentFields clears, when the type of a Service changes,
// the fields the new type has no use for, as kube-apiserver does: only
// those the client left as they were (it read them and sent them back),
// so that a client changing them as well is told by validation. Cluster
// IPs and node ports cleared here are released once the update is
// stored. The load balancer status is cleared by PrepareForUpdate.
func dropTypeDependentFields(svc, old *corev1.Service) {
	spec, oldSpec := &svc.Spec, &old.Spec
	if needsClusterIP(old) && !needsClusterIP(svc) {
		if spec.ClusterIP == oldSpec.ClusterIP && slices.Equal(spec.ClusterIPs, oldSpec.ClusterIPs) {
			spec.ClusterIP, spec.ClusterIPs = "", nil
		}
		if slices.Equal(spec.IPFamilies, oldSpec.IPFamilies) {
			spec.IPFamilies = nil
		}
		if policyOf(spec.IPFamilyPolicy) == policyOf(oldSpec.IPFamilyPolicy) {
			spec.IPFamilyPolicy = nil
		}
	}
	if needsNodePort(old) && !needsNodePort(svc) && isSubset(nodePortsOf(svc), nodePortsOf(old)) {
		for i := range spec.Ports {
			spec.Ports[i].NodePort = 0
		}
	}
	if needsHealthCheckNodePort(old) && !needsHealthCheckNodePort(svc) && spec.HealthCheckNodePort == oldSpec.HealthCheckNodePort {
		spec.HealthCheckNodePort = 0
	}
	if old.Spec.Type == corev1.ServiceTypeLoadBalancer && svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
		if a, b := spec.AllocateLoadBalancerNodePorts, oldSpec.AllocateLoadBalancerNodePorts; a != nil && b != nil && *a == *b {
			spec.AllocateLoadBalancerNodePorts = nil
		}
		if equalStrings(spec.LoadBalancerClass, oldSpec.LoadBalancerClass) {
			spec.LoadBalancerClass = nil
		}
	}
	if externallyAccessible(old) && !externallyAccessible(svc) && spec.ExternalTrafficPolicy == oldSpec.ExternalTrafficPolicy {
		spec.ExternalTrafficPolicy = ""
	}
	// An ExternalName service has no internal traffic to route.
	if needsClusterIP(old) && !needsClusterIP(svc) && equalTrafficPolicies(spec.InternalTrafficPolicy, oldSpec.InternalTrafficPolicy) {
		spec.InternalTrafficPolicy = nil
	}
}

func equalTrafficPolicies(a, b *corev1.ServiceInternalTrafficPolicy) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

func policyOf(p *corev1.IPFamilyPolicy) corev1.IPFamilyPolicy {
	if p == nil {
		return ""
	}
	return *p
}

func equalStrings(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// isSubset reports whether every value of a is in b.
func isSubset(a, b []int32) bool {
	for _, v := range a {
		if !slices.Contains(b, v) {
			return false
		}
	}
	return true
}

// Package service is the REST storage of core/v1 services and their
// /status. A Service gets its cluster IP and node ports (and health check
// node port) when it is created or updated to a type that needs them, and
// gives them back when it is deleted or no longer needs them.
//
// # Allocation
//
// Cluster IPs and node ports are reserved in storage, in kube-apiserver's
// formats, so that several servers sharing one etcd, kapi or
// kube-apiserver, never hand out the same value: one IPAddress object per
// cluster IP (packages ipallocator and reservation), one bitmap of all the
// node ports (package portallocator).
// As in kube-apiserver, allocation happens before validation and
// validating admission, which therefore see the allocated values, and is
// undone if the request fails. REST wraps the generic Store to do so:
//
//   - Create fills in the IP families, reserves, then lets the Store
//     validate and write; it releases the reservations if that fails.
//   - Update wraps the update's UpdatedObjectInfo, so that each attempt
//     of the Store's read-modify-write is allocated for from the object
//     it is computed from; once the write is decided it releases what the
//     old Service had and the stored one does not (type changes, removed
//     ports), or, on failure, what it reserved.
//   - Deletes release through the Store's AfterDelete hook, which every
//     path that removes a Service runs.
//
// Dry runs reserve nothing but report conflicts as real requests would;
// the node ports they pick are kube-apiserver's placeholders (32769 and
// up), not free ports.
//
// # Dual-stack
//
// With two --service-cluster-ip-range ranges, one per IP family, a
// Service has one cluster IP per family of spec.ipFamilies, filled in from
// its spec.ipFamilyPolicy with the primary family first unless it asks
// otherwise (core.DefaultServiceIPFamilies). An update that gives it a
// second family reserves the secondary IP; one back to SingleStack
// releases it. kube-apiserver creates that secondary IPAddress too, but
// its repair controller may delete it (it can see the IPAddress before the
// Service holding it is written) and restore it on its next pass; kapi
// keeps it throughout.
package service

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/registry/core/service/ipallocator"
	"github.com/kapi-dev/kapi/pkg/registry/core/service/portallocator"
	"github.com/kapi-dev/kapi/pkg/registry/core/service/reservation"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
	"github.com/kapi-dev/kapi/pkg/storage"
)

// strategy is the behaviour of services. The IP family fields, which
// depend on the cluster's service range, are filled in with the
// allocation, before validation.
type strategy struct {
	generic.DefaultStrategy
}

func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	svc := obj.(*corev1.Service)
	svc.Status = corev1.ServiceStatus{}
	normalizeClusterIPs(svc, nil)
}

// GetResetFields is the status, written through /status only.
func (strategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("v1", []string{"status"})
}

func (strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	svc, oldSvc := obj.(*corev1.Service), old.(*corev1.Service)
	svc.Status = oldSvc.Status
	normalizeClusterIPs(svc, oldSvc)
	// Only load balancers have a load balancer status; deprovisioning
	// is asynchronous, but clients need not see that.
	if svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
		svc.Status.LoadBalancer = corev1.LoadBalancerStatus{}
	}
}

func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return core.ValidateService(obj.(*corev1.Service))
}

func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return core.ValidateServiceUpdate(obj.(*corev1.Service), old.(*corev1.Service))
}

// WarningsOnCreate are kube-apiserver's warnings on a Service's spec.
func (strategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	return core.ServiceWarnings(obj.(*corev1.Service))
}

// WarningsOnUpdate are kube-apiserver's warnings on a Service's spec.
func (strategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return core.ServiceWarnings(obj.(*corev1.Service))
}

type statusStrategy struct{ strategy }

// WarningsOnUpdate are kube-apiserver's warnings on a Service's status.
func (statusStrategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return core.ServiceStatusWarnings(obj.(*corev1.Service))
}

// AllowCreateOnUpdate is false for /status: a Service is created only
// through the paths that allocate for it.
func (statusStrategy) AllowCreateOnUpdate() bool { return false }

// GetResetFields is what /status keeps: the spec.
func (statusStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields("v1", []string{"spec"})
}

func (statusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	obj.(*corev1.Service).Spec = old.(*corev1.Service).Spec
}

func (statusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return core.ValidateServiceStatusUpdate(obj.(*corev1.Service), old.(*corev1.Service))
}

// REST is the storage of services: the generic Store, with allocation
// around its creates and updates.
type REST struct {
	*generic.Store
	alloc *allocators
	// portRepair remembers leaked node ports between repair passes.
	portRepair *portallocator.Repair
}

var (
	_ rest.Creater = &REST{}
	_ rest.Updater = &REST{}
	_ rest.Patcher = &REST{}
)

// Storage is the REST storage of services and their /status.
type Storage struct {
	Service *REST
	Status  *generic.SubresourceREST
}

// NewStorage returns the storage of services and of their /status, with
// cluster IPs from clusterIPs (--service-cluster-ip-range: one range, or
// two of different families on a dual-stack cluster, primary first) and
// node ports from nodePorts (--service-node-port-range). The reservations
// of both are stored through opts.StorageFactory (see packages
// ipallocator and portallocator).
func NewStorage(opts generic.RESTOptions, clusterIPs []*net.IPNet, nodePorts utilnet.PortRange) (*Storage, error) {
	if len(clusterIPs) == 0 || len(clusterIPs) > 2 {
		return nil, fmt.Errorf("--service-cluster-ip-range: want one or two ranges, got %d", len(clusterIPs))
	}
	ipStorage, err := ipallocator.NewStorage(opts.StorageFactory)
	if err != nil {
		return nil, err
	}
	primary, err := ipallocator.New(clusterIPs[0], ipStorage)
	if err != nil {
		return nil, fmt.Errorf("--service-cluster-ip-range: %w", err)
	}
	cidrStorage, err := ipallocator.NewServiceCIDRStorage(opts.StorageFactory)
	if err != nil {
		return nil, err
	}
	primary.SetServiceCIDRs(cidrStorage)
	ips := clusterIPAllocators{primary}
	families := []corev1.IPFamily{familyOf(primary)}
	if len(clusterIPs) == 2 {
		secondary, err := primary.Sibling(clusterIPs[1])
		if err != nil {
			return nil, fmt.Errorf("--service-cluster-ip-range: %w", err)
		}
		if secondary.IPv6() == primary.IPv6() {
			return nil, fmt.Errorf("--service-cluster-ip-range: %s and %s are of the same IP family", clusterIPs[0], clusterIPs[1])
		}
		ips = append(ips, secondary)
		families = append(families, familyOf(secondary))
	}
	portStorage, err := portallocator.NewStorage(opts.StorageFactory)
	if err != nil {
		return nil, err
	}
	ports, err := portallocator.New(nodePorts, portStorage)
	if err != nil {
		return nil, fmt.Errorf("--service-node-port-range: %w", err)
	}
	st := strategy{DefaultStrategy: generic.DefaultStrategy{Namespaced: true, CreateOnUpdate: true}}
	r := &REST{alloc: &allocators{ips: ips, ports: ports, families: families}, portRepair: portallocator.NewRepair(ports)}
	r.Store = &generic.Store{
		NewFunc:                   func() runtime.Object { return &corev1.Service{} },
		NewListFunc:               func() runtime.Object { return &corev1.ServiceList{} },
		DefaultQualifiedResource:  corev1.Resource("services"),
		SingularQualifiedResource: corev1.Resource("service"),
		KeyPrefix:                 "/services/specs",
		FieldsFunc: func(obj runtime.Object) fields.Set {
			svc := obj.(*corev1.Service)
			return fields.Set{"spec.clusterIP": svc.Spec.ClusterIP, "spec.type": string(svc.Spec.Type)}
		},
		CreateStrategy: st,
		UpdateStrategy: st,
		DeleteStrategy: st,
		ShortNamesList: []string{"svc"},
		CategoriesList: []string{"all"},
		// kube-apiserver answers a delete with the deleted service.
		ReturnDeletedObject: true,
		AfterDelete:         r.afterDelete,
	}
	if err := opts.Complete(r.Store, corev1.SchemeGroupVersion); err != nil {
		return nil, err
	}
	primary.SetHolds(r.holdsIP)
	return &Storage{Service: r, Status: generic.NewSubresourceREST(r.Store, statusStrategy{st})}, nil
}

// Map returns the storage by path: "services" and "services/status".
func (s *Storage) Map() map[string]rest.Storage {
	plural := s.Service.DefaultQualifiedResource.Resource
	return map[string]rest.Storage{plural: s.Service, plural + "/status": s.Status}
}

// ClusterIPs is the cluster IP allocator of the primary family.
func (r *REST) ClusterIPs() *ipallocator.Allocator { return r.alloc.ips[0] }

func familyOf(a *ipallocator.Allocator) corev1.IPFamily {
	if a.IPv6() {
		return corev1.IPv6Protocol
	}
	return corev1.IPv4Protocol
}

// NodePorts is the node port allocator.
func (r *REST) NodePorts() *portallocator.Allocator { return r.alloc.ports }

// maxGenerateNameAttempts is how many generated names a create tries, as
// the Store does.
const maxGenerateNameAttempts = 8

// Create allocates for a new Service and stores it. A generated name is
// picked here rather than by the Store, because the reservations name
// their Service.
func (r *REST) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, opts *metav1.CreateOptions) (runtime.Object, error) {
	svc, ok := obj.(*corev1.Service)
	generate := ok && svc.Name == "" && svc.GenerateName != ""
	if !ok || svc.Name == "" && !generate {
		// The Store refuses it; there is no one to allocate for.
		return r.Store.Create(ctx, obj, createValidation, opts)
	}
	for i := 1; ; i++ {
		try := svc
		if generate {
			try = svc.DeepCopy()
			try.Name = generic.GenerateName(svc.GenerateName)
		}
		out, err := r.createOnce(ctx, try, createValidation, opts)
		if !generate || !apierrors.IsAlreadyExists(err) || i == maxGenerateNameAttempts {
			return out, err
		}
	}
}

func (r *REST) createOnce(ctx context.Context, svc *corev1.Service, createValidation rest.ValidateObjectFunc, opts *metav1.CreateOptions) (runtime.Object, error) {
	t := r.alloc.newTxn(ownerOf(ctx, svc.Namespace, svc.Name), len(opts.DryRun) > 0)
	if err := t.beginCreate(ctx, svc); err != nil {
		t.finish(ctx, nil)
		return nil, err
	}
	out, err := r.Store.Create(ctx, svc, createValidation, opts)
	stored, _ := out.(*corev1.Service)
	if err != nil {
		stored = nil
	}
	t.finish(ctx, stored)
	return out, err
}

// Update updates a Service, allocating what its new state needs and
// releasing what it no longer does. A PUT of a missing Service creates
// it, as in kube-apiserver.
func (r *REST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc,
	updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	t := r.alloc.newTxn(ownerOf(ctx, "", name), len(opts.DryRun) > 0)
	info := &allocatingUpdate{next: objInfo, txn: t}
	out, created, err := r.Store.Update(ctx, name, info, createValidation, updateValidation, forceAllowCreate, opts)
	stored, _ := out.(*corev1.Service)
	if err != nil {
		stored = nil
	}
	t.finish(ctx, stored)
	return out, created, err
}

// allocatingUpdate computes an updated Service and allocates for it. The
// Store calls it once per attempt of its read-modify-write.
type allocatingUpdate struct {
	next rest.UpdatedObjectInfo
	txn  *txn
}

func (u *allocatingUpdate) UpdatedObject(ctx context.Context, oldObj runtime.Object) (runtime.Object, error) {
	obj, err := u.next.UpdatedObject(ctx, oldObj)
	if err != nil {
		return nil, err
	}
	svc, ok := obj.(*corev1.Service)
	if !ok {
		return obj, nil
	}
	if oldObj == nil {
		return obj, u.txn.beginCreate(ctx, svc)
	}
	old := oldObj.(*corev1.Service)
	if stale(svc, old) {
		// The Store refuses the update with a conflict (or an invalid
		// resourceVersion); allocating for it would be wasted, and
		// a taken node port would hide the conflict.
		u.txn.startAttempt(old)
		return obj, nil
	}
	return obj, u.txn.beginUpdate(ctx, svc, old)
}

// stale reports whether an update names a resourceVersion other than the
// current one, which the Store refuses as it checks it.
func stale(svc, old *corev1.Service) bool {
	if svc.ResourceVersion == "" {
		return false
	}
	want, err := storage.ParseResourceVersion(svc.ResourceVersion)
	if err != nil {
		return true
	}
	current, err := storage.ParseResourceVersion(old.ResourceVersion)
	return err != nil || want != current
}

// afterDelete releases what a deleted Service held. A release that fails
// leaves an orphan or a leak, which a later allocation or the repair
// reclaims.
func (r *REST) afterDelete(ctx context.Context, obj runtime.Object) {
	svc := obj.(*corev1.Service)
	owner := reservation.Owner{Namespace: svc.Namespace, Name: svc.Name}
	ctx = context.WithoutCancel(ctx)
	for _, ip := range allocatedIPs(svc) {
		_ = r.alloc.ips.Release(ctx, ip, owner)
	}
	for _, p := range allocatedPorts(svc) {
		_ = r.alloc.ports.Release(ctx, int(p))
	}
}

// ownerOf names the Service of a request: in the request's namespace, as
// the Store keys it.
func ownerOf(ctx context.Context, namespace, name string) reservation.Owner {
	if ns := request.NamespaceValue(ctx); ns != "" {
		namespace = ns
	}
	return reservation.Owner{Namespace: namespace, Name: name}
}

// stored reads the Service owner from storage, nil if there is none.
func (r *REST) stored(ctx context.Context, owner reservation.Owner) (*corev1.Service, error) {
	for _, s := range []string{owner.Namespace, owner.Name} {
		if s == "" || s == "." || s == ".." || strings.ContainsAny(s, "/%") {
			// No Service can have such a key.
			return nil, nil
		}
	}
	svc := &corev1.Service{}
	key := r.Store.KeyPrefix + "/" + owner.Namespace + "/" + owner.Name
	if err := r.Store.Storage.Get(ctx, key, storage.GetOptions{IgnoreNotFound: true}, svc); err != nil {
		return nil, err
	}
	if svc.ResourceVersion == "" {
		return nil, nil
	}
	return svc, nil
}

// holdsIP reports whether the stored Service owner has the cluster IP.
func (r *REST) holdsIP(ctx context.Context, owner reservation.Owner, value string) (bool, error) {
	svc, err := r.stored(ctx, owner)
	if err != nil || svc == nil {
		return false, err
	}
	ip, err := netip.ParseAddr(value)
	if err != nil {
		return false, nil
	}
	for _, held := range allocatedIPs(svc) {
		if held == ip {
			return true, nil
		}
	}
	return false, nil
}

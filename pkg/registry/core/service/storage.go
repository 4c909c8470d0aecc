// Package service is the REST storage of core/v1 services and their
// /status: cluster IPs are allocated on create and released on delete.
package service

import (
	"context"
	"errors"
	"fmt"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/registry/core/service/ipallocator"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
)

// strategy is the behaviour of services in a cluster whose service range
// has the given IP families.
type strategy struct {
	generic.DefaultStrategy
	families []corev1.IPFamily
}

func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	svc := obj.(*corev1.Service)
	svc.Status = corev1.ServiceStatus{}
	normalizeClusterIPs(svc, nil)
}

func (strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	svc, oldSvc := obj.(*corev1.Service), old.(*corev1.Service)
	svc.Status = oldSvc.Status
	normalizeClusterIPs(svc, oldSvc)
}

// normalizeClusterIPs makes clusterIPs follow clusterIP when a client set
// only the older singular field, as kube-apiserver does before validation.
func normalizeClusterIPs(svc, oldSvc *corev1.Service) {
	spec := &svc.Spec
	if spec.ClusterIP == "" || len(spec.ClusterIPs) > 0 && spec.ClusterIPs[0] == spec.ClusterIP {
		return
	}
	if len(spec.ClusterIPs) == 0 || oldSvc != nil && len(oldSvc.Spec.ClusterIPs) > 0 && oldSvc.Spec.ClusterIPs[0] == spec.ClusterIPs[0] {
		spec.ClusterIPs = append([]string{spec.ClusterIP}, tail(spec.ClusterIPs)...)
	}
}

func tail(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s[1:]
}

// Validate fills in the IP family fields, which depend on the cluster's
// service range and on what the client asked for, and validates. The
// family defaulting reports its own errors, so it runs here rather than
// in PrepareForCreate.
func (s strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	svc := obj.(*corev1.Service)
	if errs := core.DefaultServiceIPFamilies(svc, nil, s.families); len(errs) > 0 {
		return errs
	}
	return core.ValidateService(svc)
}

func (s strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	svc, oldSvc := obj.(*corev1.Service), old.(*corev1.Service)
	if errs := core.DefaultServiceIPFamilies(svc, oldSvc, s.families); len(errs) > 0 {
		return errs
	}
	return core.ValidateServiceUpdate(svc, oldSvc)
}

type statusStrategy struct{ strategy }

func (statusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	obj.(*corev1.Service).Spec = old.(*corev1.Service).Spec
}

func (statusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return core.ValidateServiceStatusUpdate(obj.(*corev1.Service), old.(*corev1.Service))
}

// NewREST returns the storage of services and of their /status, with
// cluster IPs allocated by alloc.
func NewREST(opts generic.RESTOptions, alloc *ipallocator.Allocator) (*generic.Store, *generic.SubresourceREST, error) {
	family := corev1.IPv4Protocol
	if alloc.First().Is6() {
		family = corev1.IPv6Protocol
	}
	st := strategy{DefaultStrategy: generic.DefaultStrategy{Namespaced: true}, families: []corev1.IPFamily{family}}
	s := &generic.Store{
		NewFunc:                   func() runtime.Object { return &corev1.Service{} },
		NewListFunc:               func() runtime.Object { return &corev1.ServiceList{} },
		DefaultQualifiedResource:  corev1.Resource("services"),
		SingularQualifiedResource: corev1.Resource("service"),
		KeyPrefix:                 "/services/specs",
		CreateStrategy:            st,
		UpdateStrategy:            st,
		DeleteStrategy:            st,
		ShortNamesList:            []string{"svc"},
		CategoriesList:            []string{"all"},
		BeginCreate: func(ctx context.Context, obj runtime.Object, dryRun bool) (func(bool), error) {
			return allocateClusterIP(ctx, alloc, obj.(*corev1.Service), dryRun)
		},
		AfterDelete: func(ctx context.Context, obj runtime.Object) {
			for _, ip := range clusterIPs(obj.(*corev1.Service)) {
				_ = alloc.Release(ctx, ip)
			}
		},
	}
	if err := opts.Complete(s, corev1.SchemeGroupVersion); err != nil {
		return nil, nil, err
	}
	return s, generic.NewSubresourceREST(s, statusStrategy{st}), nil
}

// clusterIPs are the allocated IPs of a service.
func clusterIPs(svc *corev1.Service) []netip.Addr {
	var out []netip.Addr
	for _, s := range svc.Spec.ClusterIPs {
		if ip, err := netip.ParseAddr(s); err == nil {
			out = append(out, ip)
		}
	}
	return out
}

// allocateClusterIP gives a service that needs one a cluster IP: the one
// asked for, or the next free. The IP is released if the create fails.
func allocateClusterIP(ctx context.Context, alloc *ipallocator.Allocator, svc *corev1.Service, dryRun bool) (func(bool), error) {
	noop := func(bool) {}
	if svc.Spec.Type == corev1.ServiceTypeExternalName || svc.Spec.ClusterIP == corev1.ClusterIPNone {
		return noop, nil
	}
	owner := ipallocator.Owner{Namespace: svc.Namespace, Name: svc.Name}
	var ip netip.Addr
	fieldPath := field.NewPath("spec", "clusterIPs").Index(0)
	if svc.Spec.ClusterIP != "" {
		requested, err := netip.ParseAddr(svc.Spec.ClusterIP)
		if err != nil {
			return nil, invalid(svc, field.Invalid(fieldPath, svc.Spec.ClusterIP, "must be a valid IP"))
		}
		if err := alloc.Allocate(ctx, requested, owner, dryRun); err != nil {
			return nil, allocationError(svc, fieldPath, err)
		}
		ip = requested
	} else {
		next, err := alloc.AllocateNext(ctx, owner, dryRun)
		if err != nil {
			return nil, allocationError(svc, fieldPath, err)
		}
		ip = next
	}
	svc.Spec.ClusterIP = ip.String()
	svc.Spec.ClusterIPs = []string{ip.String()}
	if dryRun {
		return noop, nil
	}
	return func(ok bool) {
		if !ok {
			_ = alloc.Release(context.WithoutCancel(ctx), ip)
		}
	}, nil
}

// allocationError is kube-apiserver's 422 for an IP that cannot be had.
func allocationError(svc *corev1.Service, path *field.Path, err error) error {
	var notInRange *ipallocator.ErrNotInRange
	switch {
	case errors.Is(err, ipallocator.ErrAllocated), errors.As(err, &notInRange):
		return invalid(svc, field.Invalid(path, svc.Spec.ClusterIP, fmt.Sprintf("failed to allocate IP %s: %v", svc.Spec.ClusterIP, err)))
	case errors.Is(err, ipallocator.ErrFull):
		return apierrors.NewInternalError(fmt.Errorf("failed to allocate a serviceIP: %w", err))
	}
	return apierrors.NewInternalError(err)
}

func invalid(svc *corev1.Service, errs ...*field.Error) error {
	return apierrors.NewInvalid(corev1.SchemeGroupVersion.WithKind("Service").GroupKind(), svc.Name, errs)
}

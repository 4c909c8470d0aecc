// Package rest declares the core API group, served at /api/v1.
package rest

import (
	"context"
	"net"

	corev1 "k8s.io/api/core/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"

	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
	"github.com/kapi-dev/kapi/pkg/features"
	"github.com/kapi-dev/kapi/pkg/registry"
	"github.com/kapi-dev/kapi/pkg/registry/core/componentstatus"
	"github.com/kapi-dev/kapi/pkg/registry/core/configmap"
	"github.com/kapi-dev/kapi/pkg/registry/core/endpoints"
	"github.com/kapi-dev/kapi/pkg/registry/core/event"
	"github.com/kapi-dev/kapi/pkg/registry/core/limitrange"
	"github.com/kapi-dev/kapi/pkg/registry/core/namespace"
	"github.com/kapi-dev/kapi/pkg/registry/core/node"
	"github.com/kapi-dev/kapi/pkg/registry/core/persistentvolume"
	"github.com/kapi-dev/kapi/pkg/registry/core/persistentvolumeclaim"
	"github.com/kapi-dev/kapi/pkg/registry/core/pod"
	"github.com/kapi-dev/kapi/pkg/registry/core/podtemplate"
	"github.com/kapi-dev/kapi/pkg/registry/core/replicationcontroller"
	"github.com/kapi-dev/kapi/pkg/registry/core/resourcequota"
	"github.com/kapi-dev/kapi/pkg/registry/core/secret"
	"github.com/kapi-dev/kapi/pkg/registry/core/service"
	"github.com/kapi-dev/kapi/pkg/registry/core/serviceaccount"
	"github.com/kapi-dev/kapi/pkg/registry/generic"
)

// StorageProvider declares the core group.
type StorageProvider struct {
	// ServiceClusterIPRange is --service-cluster-ip-range, where services
	// get their cluster IPs.
	ServiceClusterIPRange *net.IPNet
	// SecondaryServiceClusterIPRange is the second range of a dual-stack
	// --service-cluster-ip-range, of the other IP family; nil on a
	// single-stack cluster.
	SecondaryServiceClusterIPRange *net.IPNet
	// ServiceNodePortRange is --service-node-port-range.
	ServiceNodePortRange utilnet.PortRange
	// ServiceAccountTokens issue the tokens of serviceaccounts/token;
	// without a signer the subresource is not served.
	ServiceAccountTokens serviceaccount.TokenConfig
	// EtcdHealth checks each etcd server, for componentstatuses.
	EtcdHealth []func(context.Context) error
	// Kubelet is how kubelets are reached; Authorizer checks the create
	// verb on WebSocket upgrades of pods/exec, attach and portforward.
	Kubelet    node.KubeletConfig
	Authorizer authorizer.Authorizer
	// EndpointSlices are where services/proxy finds a service's
	// endpoints; nil (until discovery.k8s.io is served) answers every
	// services/proxy request with kube-apiserver's 503 for a service
	// without endpoints.
	EndpointSlices service.EndpointSlices
	// DisruptionBudgets are the policy/v1 PodDisruptionBudgets that
	// pods/eviction honours; nil (until policy/v1 is served) leaves
	// pods/eviction unserved.
	DisruptionBudgets pod.DisruptionBudgets
	// Gates decide which gated fields are kept (--feature-gates); the
	// zero value is kube-apiserver's defaults.
	Gates features.Gates
}

var _ registry.StorageProvider = StorageProvider{}

func (StorageProvider) GroupName() string { return corev1.GroupName }

func (StorageProvider) GroupPriority() int { return 18000 }

// NewRESTStorage builds the storage of v1.
func (p StorageProvider) NewRESTStorage(opts generic.RESTOptions, served func(version string) bool) (registry.VersionedStorage, error) {
	var g registry.GroupStorage
	if served("v1") {
		v1 := g.Version("v1")
		v1.Add(namespace.NewStorage(opts))
		v1.Add(configmap.NewStorage(opts))
		secrets, err := secret.NewStorage(opts)
		v1.Add(secrets, err)
		v1.Add(endpoints.NewStorage(opts))
		v1.Add(event.NewStorage(opts, corev1.SchemeGroupVersion))
		nodes, err := node.NewStorage(opts, p.Kubelet, p.Gates)
		v1.Add(nodes, err)
		conn := pod.Connections{Authorizer: p.Authorizer}
		if nodes != nil {
			conn.Kubelets = nodes.Kubelets
		}
		pods, err := pod.NewStorage(opts, conn, p.DisruptionBudgets, p.Gates)
		v1.Add(pods, err)
		services, err := service.NewStorage(opts, p.serviceClusterIPRanges(), p.ServiceNodePortRange)
		v1.Add(services, err)
		if services != nil && pods != nil && nodes != nil {
			v1.Add(service.NewProxy(services, pods.Pod, p.EndpointSlices, nodes.Kubelets.ProxyTransport()))
		}
		// Tokens are bound to pods, secrets and nodes, read through
		// their storage.
		if secrets != nil && pods != nil && nodes != nil {
			v1.Add(serviceaccount.NewStorage(opts, p.ServiceAccountTokens, serviceaccount.BoundObjects{Pods: pods.Pod, Secrets: secrets.Secret, Nodes: nodes.Node}))
		}
		v1.Add(persistentvolumeclaim.NewStorage(opts, p.Gates))
		v1.Add(persistentvolume.NewStorage(opts))
		v1.Add(resourcequota.NewStorage(opts))
		v1.Add(limitrange.NewStorage(opts))
		v1.Add(podtemplate.NewStorage(opts, p.Gates))
		v1.Add(replicationcontroller.NewStorage(opts, p.Gates))
		v1.Add(componentstatus.NewStorage(opts, componentstatus.Components(p.EtcdHealth)))
	}
	return g.Result()
}

// serviceClusterIPRanges are the service ranges, primary first.
func (p StorageProvider) serviceClusterIPRanges() []*net.IPNet {
	if p.SecondaryServiceClusterIPRange == nil {
		return []*net.IPNet{p.ServiceClusterIPRange}
	}
	return []*net.IPNet{p.ServiceClusterIPRange, p.SecondaryServiceClusterIPRange}
}

package webhook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"sort"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/yaml"
)

// ServiceGetter reads services from the informer's cache (client-go's
// ServiceLister.Services(namespace) is one).
type ServiceGetter func(namespace, name string) (*corev1.Service, error)

// ClusterIPResolver resolves a service as kube-apiserver does by default
// (without --enable-aggregator-routing): to its cluster IP and the service
// port named, or to its external name. Loopback, if set, answers for the
// kubernetes service in the default namespace: the server calls itself.
type ClusterIPResolver struct {
	Services ServiceGetter
	Loopback *url.URL
}

func (r *ClusterIPResolver) ResolveEndpoint(namespace, name string, port int32) (*url.URL, error) {
	if r.Loopback != nil && namespace == "default" && name == "kubernetes" && port == 443 {
		return r.Loopback, nil
	}
	svc, err := r.Services(namespace, name)
	if err != nil {
		return nil, err
	}
	switch svc.Spec.Type {
	case corev1.ServiceTypeClusterIP, corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeNodePort:
		if svc.Spec.Type == corev1.ServiceTypeClusterIP && svc.Spec.ClusterIP == corev1.ClusterIPNone {
			return nil, fmt.Errorf(`cannot route to service with ClusterIP "None"`)
		}
		for _, p := range svc.Spec.Ports {
			if p.Port == port {
				return &url.URL{Scheme: "https", Host: net.JoinHostPort(svc.Spec.ClusterIP, strconv.Itoa(int(p.Port)))}, nil
			}
		}
		return nil, apierrors.NewServiceUnavailable(fmt.Sprintf("no service port %d found for service %q", port, svc.Name))
	case corev1.ServiceTypeExternalName:
		return &url.URL{Scheme: "https", Host: net.JoinHostPort(svc.Spec.ExternalName, strconv.Itoa(int(port)))}, nil
	}
	return nil, fmt.Errorf("unsupported service type %q", svc.Spec.Type)
}

// EndpointSliceGetter lists the EndpointSlices of a service (those
// labelled kubernetes.io/service-name with its name), from the informer's
// cache.
type EndpointSliceGetter func(namespace, service string) ([]*discoveryv1.EndpointSlice, error)

// EndpointsResolver resolves a service as kube-apiserver does with
// --enable-aggregator-routing: to one of the ready endpoints of its
// EndpointSlices that serve the service port named, picked at random,
// those of the service's first IP family first. Only services with a
// cluster IP (ClusterIP, NodePort, LoadBalancer) can be resolved.
// Loopback, if set, answers for the kubernetes service in the default
// namespace.
type EndpointsResolver struct {
	Services ServiceGetter
	Slices   EndpointSliceGetter
	Loopback *url.URL
}

func (r *EndpointsResolver) ResolveEndpoint(namespace, name string, port int32) (*url.URL, error) {
	if r.Loopback != nil && namespace == "default" && name == "kubernetes" && port == 443 {
		return r.Loopback, nil
	}
	svc, err := r.Services(namespace, name)
	if err != nil {
		return nil, err
	}
	switch svc.Spec.Type {
	case corev1.ServiceTypeClusterIP, corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeNodePort:
	default:
		return nil, fmt.Errorf("unsupported service type %q", svc.Spec.Type)
	}
	var portName string
	found := false
	for _, p := range svc.Spec.Ports {
		if p.Port == port {
			portName, found = p.Name, true
			break
		}
	}
	if !found {
		return nil, apierrors.NewServiceUnavailable(fmt.Sprintf("no service port %d found for service %q", port, svc.Name))
	}
	slices, err := r.Slices(namespace, svc.Name)
	if err != nil {
		return nil, err
	}
	family := corev1.IPFamilyUnknown
	if len(svc.Spec.IPFamilies) > 0 {
		family = svc.Spec.IPFamilies[0]
	}
	if hostPort, ok := readyEndpoint(slices, portName, discoveryv1.AddressType(family)); ok {
		return &url.URL{Scheme: "https", Host: hostPort}, nil
	}
	return nil, apierrors.NewServiceUnavailable(fmt.Sprintf("no endpoints available for service %q", svc.Name))
}

// readyEndpoint picks the address and port of a ready endpoint serving
// portName (an endpoint whose readiness is unknown counts as ready): the
// slices of the preferred address type first, each kind in a random
// order, and within a slice from a random endpoint on.
func readyEndpoint(slices []*discoveryv1.EndpointSlice, portName string, preferred discoveryv1.AddressType) (string, bool) {
	order := rand.Perm(len(slices))
	idx := make([]int, len(slices))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(i, j int) bool {
		a, b := slices[idx[i]], slices[idx[j]]
		if (a.AddressType == preferred) != (b.AddressType == preferred) {
			return a.AddressType == preferred
		}
		return order[idx[i]] < order[idx[j]]
	})
	for _, i := range idx {
		slice := slices[i]
		for _, p := range slice.Ports {
			if p.Name == nil || *p.Name != portName || p.Port == nil || len(slice.Endpoints) == 0 {
				continue
			}
			offset := rand.IntN(len(slice.Endpoints))
			for k := range slice.Endpoints {
				ep := slice.Endpoints[(k+offset)%len(slice.Endpoints)]
				if ep.Conditions.Ready != nil && !*ep.Conditions.Ready {
					continue
				}
				if len(ep.Addresses) == 0 {
					continue
				}
				return net.JoinHostPort(ep.Addresses[0], strconv.Itoa(int(*p.Port))), true
			}
		}
	}
	return "", false
}

// AdmissionConfig is the plugins' configuration in
// --admission-control-config-file: a WebhookAdmissionConfiguration
// (apiserver.config.k8s.io/v1 or v1alpha1), or the older form without
// apiVersion and kind.
type AdmissionConfig struct {
	// KubeConfigFile holds the credentials to call webhooks with.
	KubeConfigFile string `json:"kubeConfigFile"`
}

// ReadAdmissionConfig decodes a plugin's configuration; nil is the empty
// configuration.
func ReadAdmissionConfig(data []byte) (AdmissionConfig, error) {
	var cfg AdmissionConfig
	if len(bytes.TrimSpace(data)) == 0 {
		return cfg, nil
	}
	j, err := yaml.YAMLToJSON(data)
	if err != nil {
		return cfg, err
	}
	var typed struct {
		APIVersion     string `json:"apiVersion"`
		Kind           string `json:"kind"`
		KubeConfigFile string `json:"kubeConfigFile"`
		// StaticManifestsDir is kube-apiserver's, behind a feature gate
		// kapi does not have.
		StaticManifestsDir string `json:"staticManifestsDir"`
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&typed); err != nil {
		// The form before WebhookAdmissionConfiguration nests it.
		var legacy struct {
			Webhook AdmissionConfig `json:"webhook"`
		}
		if lerr := json.Unmarshal(j, &legacy); lerr == nil && legacy.Webhook.KubeConfigFile != "" {
			return legacy.Webhook, nil
		}
		return cfg, err
	}
	if typed.Kind != "" && typed.Kind != "WebhookAdmissionConfiguration" {
		return cfg, fmt.Errorf("unexpected kind %q, want WebhookAdmissionConfiguration", typed.Kind)
	}
	if typed.StaticManifestsDir != "" {
		return cfg, fmt.Errorf("staticManifestsDir %q configured but the ManifestBasedAdmissionControlConfig feature gate is not enabled", typed.StaticManifestsDir)
	}
	cfg.KubeConfigFile = typed.KubeConfigFile
	return cfg, nil
}

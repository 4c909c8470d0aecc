// Package availability keeps the Available condition of every APIService,
// as kube-apiserver's two availability controllers (kube-aggregator's
// controllers/status/local and remote) keep it. The condition is what the
// proxy, discovery and OpenAPI read: a remote group version is served, and
// listed, only while it is True.
//
// The local controller marks every APIService without spec.service
// Available, reason Local. The remote controller checks each APIService
// with one, in kube-apiserver's order, and writes the first failure:
//
//	ServiceNotFound       the Service does not exist
//	ServiceAccessError    it cannot be read (Unknown)
//	ServicePortError      a ClusterIP Service without the port
//	EndpointsAccessError  its EndpointSlices cannot be read (Unknown)
//	EndpointsNotFound     a ClusterIP Service without EndpointSlices
//	MissingEndpoints      no slice with a ready endpoint and the port's name
//	FailedDiscoveryCheck  five GETs of /apis/<group>/<version> at once, through
//	                      the resolver (cluster IP or endpoint) and the proxy's
//	                      transport, as system:kube-aggregator in
//	                      system:masters, each given 5 s (6 s in all), all fail
//	Passed                one of them answered 2xx ("all checks passed")
//
// with kube-apiserver's messages. lastTransitionTime changes only when the
// status does; a status is written (through apiservices/status, as the
// loopback client, so the field manager is kube-apiserver) only when it
// changed. Each APIService is checked when it, its Service or the
// Service's EndpointSlices change, every 30 seconds, and after a failed
// discovery check with a backoff from 5 ms to 30 s.
//
// The metrics are kube-apiserver's: aggregator_unavailable_apiservice (1
// for each APIService not Available, 0 for the others) and
// aggregator_unavailable_apiservice_total (by name and reason, counting
// the changes from Available to not).
package availability

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// Lister reads the APIServices from an informer's cache.
type Lister interface {
	Get(name string) (*apiregistrationv1.APIService, error)
	List(selector labels.Selector) ([]*apiregistrationv1.APIService, error)
}

// StatusWriter writes apiservices/status.
type StatusWriter interface {
	UpdateStatus(ctx context.Context, apiService *apiregistrationv1.APIService, opts metav1.UpdateOptions) (*apiregistrationv1.APIService, error)
}

// Reasons and messages of the Available condition.
const (
	ReasonLocal  = "Local"
	MessageLocal = "Local APIServices are always available"
)

// condition returns the APIService's condition of type t, or nil.
func condition(apiService *apiregistrationv1.APIService, t apiregistrationv1.APIServiceConditionType) *apiregistrationv1.APIServiceCondition {
	for i := range apiService.Status.Conditions {
		if apiService.Status.Conditions[i].Type == t {
			return &apiService.Status.Conditions[i]
		}
	}
	return nil
}

// isAvailable reports whether the Available condition is True.
func isAvailable(apiService *apiregistrationv1.APIService) bool {
	c := condition(apiService, apiregistrationv1.Available)
	return c != nil && c.Status == apiregistrationv1.ConditionTrue
}

// setCondition sets a condition as kube-apiserver does: added if the
// APIService has none of its type; otherwise its reason and message
// replaced, and its status and lastTransitionTime only if the status
// changed.
func setCondition(apiService *apiregistrationv1.APIService, c apiregistrationv1.APIServiceCondition) {
	existing := condition(apiService, c.Type)
	if existing == nil {
		apiService.Status.Conditions = append(apiService.Status.Conditions, c)
		return
	}
	if existing.Status != c.Status {
		existing.Status = c.Status
		existing.LastTransitionTime = c.LastTransitionTime
	}
	existing.Reason = c.Reason
	existing.Message = c.Message
}

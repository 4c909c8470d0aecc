package printers

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// The printer of apiregistration.k8s.io/v1 APIServices, kube-aggregator's
// own table (kube-apiserver's printers have none).

var apiServiceColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("Service", "string", "The reference to the service that hosts this API endpoint."),
	column("Available", "string", "Whether this service is available."),
	ageColumn,
}

// printAPIService renders an APIService: its Service as namespace/name,
// or Local; its Available condition's status, with the reason when it is
// not True, or Unknown before anything has set one.
func printAPIService(s *apiregistrationv1.APIService, now time.Time) []any {
	service := "Local"
	if svc := s.Spec.Service; svc != nil {
		service = svc.Namespace + "/" + svc.Name
	}
	available := string(apiregistrationv1.ConditionUnknown)
	for _, c := range s.Status.Conditions {
		if c.Type != apiregistrationv1.Available {
			continue
		}
		available = string(c.Status)
		if c.Status != apiregistrationv1.ConditionTrue && c.Reason != "" {
			available = fmt.Sprintf("%s (%s)", c.Status, c.Reason)
		}
		break
	}
	return []any{s.Name, service, available, since(s.CreationTimestamp, now)}
}

package printers

import (
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var leaseColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("Holder", "string", coordinationv1.LeaseSpec{}.SwaggerDoc()["holderIdentity"]),
	ageColumn,
}

func printLease(l *coordinationv1.Lease, now time.Time) []any {
	var holder string
	if l.Spec.HolderIdentity != nil {
		holder = *l.Spec.HolderIdentity
	}
	return []any{l.Name, holder, since(l.CreationTimestamp, now)}
}

// scaleColumns are those of the scale subresource. Unlike every other
// table, its Name column has no "name" format.
var scaleColumns = []metav1.TableColumnDefinition{
	column("Name", "string", objectMetaDoc["name"]),
	column("Desired", "integer", autoscalingv1.ScaleSpec{}.SwaggerDoc()["replicas"]),
	column("Available", "integer", autoscalingv1.ScaleStatus{}.SwaggerDoc()["replicas"]),
	ageColumn,
}

func printScale(s *autoscalingv1.Scale, now time.Time) []any {
	return []any{s.Name, int64(s.Spec.Replicas), int64(s.Status.Replicas), since(s.CreationTimestamp, now)}
}

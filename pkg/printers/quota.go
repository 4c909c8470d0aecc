package printers

import (
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var resourceQuotaColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("Request", "string", "Request represents a minimum amount of cpu/memory that a container may consume."),
	column("Limit", "string", "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node."),
	ageColumn,
}

// printResourceQuota renders a quota as "resource: used/hard" for each
// resource it limits, by name: limits.* resources under Limit, the
// others under Request.
func printResourceQuota(rq *corev1.ResourceQuota, now time.Time) []any {
	names := make([]corev1.ResourceName, 0, len(rq.Status.Hard))
	for name := range rq.Status.Hard {
		names = append(names, name)
	}
	slices.Sort(names)

	var requests, limits []string
	for _, name := range names {
		used, hard := rq.Status.Used[name], rq.Status.Hard[name]
		s := string(name) + ": " + used.String() + "/" + hard.String()
		if prefix, _, ok := strings.Cut(string(name), "."); ok && prefix == "limits" {
			limits = append(limits, s)
		} else {
			requests = append(requests, s)
		}
	}
	return []any{rq.Name, strings.Join(requests, ", "), strings.Join(limits, ", "), since(rq.CreationTimestamp, now)}
}

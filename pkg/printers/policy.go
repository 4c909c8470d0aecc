package printers

import (
	"time"

	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The printers of policy/v1 and scheduling.k8s.io/v1.

var podDisruptionBudgetColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("Min Available", "string", "The minimum number of pods that must be available."),
	column("Max Unavailable", "string", "The maximum number of pods that may be unavailable."),
	column("Allowed Disruptions", "integer", "Calculated number of pods that may be disrupted at this time."),
	ageColumn,
}

func printPodDisruptionBudget(pdb *policyv1.PodDisruptionBudget, now time.Time) []any {
	minAvailable, maxUnavailable := "N/A", "N/A"
	if pdb.Spec.MinAvailable != nil {
		minAvailable = pdb.Spec.MinAvailable.String()
	}
	if pdb.Spec.MaxUnavailable != nil {
		maxUnavailable = pdb.Spec.MaxUnavailable.String()
	}
	return []any{pdb.Name, minAvailable, maxUnavailable, int64(pdb.Status.DisruptionsAllowed), since(pdb.CreationTimestamp, now)}
}

var priorityClassDoc = schedulingv1.PriorityClass{}.SwaggerDoc()

var priorityClassColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("Value", "integer", priorityClassDoc["value"]),
	column("Global-Default", "boolean", priorityClassDoc["globalDefault"]),
	ageColumn,
	column("PreemptionPolicy", "string", priorityClassDoc["preemptionPolicy"]),
}

func printPriorityClass(pc *schedulingv1.PriorityClass, now time.Time) []any {
	var preemption string
	if pc.PreemptionPolicy != nil {
		preemption = string(*pc.PreemptionPolicy)
	}
	return []any{pc.Name, int64(pc.Value), pc.GlobalDefault, since(pc.CreationTimestamp, now), preemption}
}

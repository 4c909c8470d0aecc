package printers

import (
	"cmp"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// The printers of flowcontrol.apiserver.k8s.io/v1 (API priority and
// fairness).

var flowSchemaColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("PriorityLevel", "string", flowcontrolv1.PriorityLevelConfigurationReference{}.SwaggerDoc()["name"]),
	column("MatchingPrecedence", "string", flowcontrolv1.FlowSchemaSpec{}.SwaggerDoc()["matchingPrecedence"]),
	column("DistinguisherMethod", "string", flowcontrolv1.FlowSchemaSpec{}.SwaggerDoc()["distinguisherMethod"]),
	ageColumn,
	column("MissingPL", "string", "references a broken or non-existent PriorityLevelConfiguration"),
}

// printFlowSchema renders a flow schema. MissingPL is the status of its
// Dangling condition, or "?" before the APF controller has set one.
func printFlowSchema(fs *flowcontrolv1.FlowSchema, now time.Time) []any {
	distinguisher := "<none>"
	if fs.Spec.DistinguisherMethod != nil {
		distinguisher = string(fs.Spec.DistinguisherMethod.Type)
	}
	missingPL := "?"
	for _, c := range fs.Status.Conditions {
		if c.Type == flowcontrolv1.FlowSchemaConditionDangling {
			missingPL = string(c.Status)
			break
		}
	}
	return []any{
		fs.Name,
		fs.Spec.PriorityLevelConfiguration.Name,
		int64(fs.Spec.MatchingPrecedence),
		distinguisher,
		since(fs.CreationTimestamp, now),
		missingPL,
	}
}

// flowSchemaOrder lists flow schemas in the order they are matched
// against requests: by matching precedence, then by name.
func flowSchemaOrder(a, b runtime.Object) int {
	x, y := a.(*flowcontrolv1.FlowSchema), b.(*flowcontrolv1.FlowSchema)
	return cmp.Or(cmp.Compare(x.Spec.MatchingPrecedence, y.Spec.MatchingPrecedence), cmp.Compare(x.Name, y.Name))
}

var priorityLevelColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("Type", "string", flowcontrolv1.PriorityLevelConfigurationSpec{}.SwaggerDoc()["type"]),
	column("NominalConcurrencyShares", "string", flowcontrolv1.LimitedPriorityLevelConfiguration{}.SwaggerDoc()["nominalConcurrencyShares"]),
	column("Queues", "string", flowcontrolv1.QueuingConfiguration{}.SwaggerDoc()["queues"]),
	column("HandSize", "string", flowcontrolv1.QueuingConfiguration{}.SwaggerDoc()["handSize"]),
	column("QueueLengthLimit", "string", flowcontrolv1.QueuingConfiguration{}.SwaggerDoc()["queueLengthLimit"]),
	ageColumn,
}

// printPriorityLevel renders a priority level. The numbers are those of a
// limited level that queues; others show "<none>".
func printPriorityLevel(pl *flowcontrolv1.PriorityLevelConfiguration, now time.Time) []any {
	var shares, queues, handSize, queueLengthLimit any = "<none>", "<none>", "<none>", "<none>"
	if limited := pl.Spec.Limited; limited != nil {
		shares = int64(int32Value(limited.NominalConcurrencyShares))
		if q := limited.LimitResponse.Queuing; q != nil {
			queues, handSize, queueLengthLimit = int64(q.Queues), int64(q.HandSize), int64(q.QueueLengthLimit)
		}
	}
	return []any{pl.Name, string(pl.Spec.Type), shares, queues, handSize, queueLengthLimit, since(pl.CreationTimestamp, now)}
}

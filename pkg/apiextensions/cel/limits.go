package cel

import kapicel "github.com/kapi-dev/kapi/pkg/cel"

// Limits on the cost of x-kubernetes-validations rules, as kube-apiserver
// sets them. Costs are in CEL's abstract cost units (roughly one per
// operation, a tenth per string character traversed).
const (
	// PerCallLimit bounds the runtime cost of one evaluation of one rule
	// or message expression.
	PerCallLimit = kapicel.PerCallLimit
	// RuntimeCELCostBudget bounds the total runtime cost of all rules
	// evaluated to validate one custom resource write.
	RuntimeCELCostBudget = 10000000
	// StaticEstimatedCostLimit bounds the estimated worst-case cost of one
	// rule (or message expression) multiplied by the number of times it can
	// run in one object.
	StaticEstimatedCostLimit = 10000000
	// StaticEstimatedCRDCostLimit bounds the sum of those estimates over
	// the schema of one CRD version.
	StaticEstimatedCRDCostLimit = 100000000

	// checkFrequency is how many comprehension iterations run between
	// checks for cancellation of the request context.
	checkFrequency = 100
	// maxEvaluatedMessageExpressionSizeBytes bounds the message a
	// messageExpression may produce.
	maxEvaluatedMessageExpressionSizeBytes = 5 * 1024
)

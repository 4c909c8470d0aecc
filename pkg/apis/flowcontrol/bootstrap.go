package flowcontrol

import (
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The configuration kube-apiserver 1.37 puts in place at start-up. The
// mandatory objects are restored whatever their owners did to them; the
// suggested ones only while their apf.kubernetes.io/autoupdate-spec
// annotation is "true". Each function returns fresh objects, as a server
// would send them: not defaulted.

// MandatoryPriorityLevelConfigurations returns the levels every cluster
// has: exempt, for requests never limited, and catch-all, for requests no
// other schema matches.
func MandatoryPriorityLevelConfigurations() []*flowcontrolv1.PriorityLevelConfiguration {
	return []*flowcontrolv1.PriorityLevelConfiguration{
		limitedLevel(flowcontrolv1.PriorityLevelConfigurationNameCatchAll, 5, 0, nil),
		priorityLevel(flowcontrolv1.PriorityLevelConfigurationNameExempt, flowcontrolv1.PriorityLevelConfigurationSpec{
			Type:   flowcontrolv1.PriorityLevelEnablementExempt,
			Exempt: &flowcontrolv1.ExemptPriorityLevelConfiguration{NominalConcurrencyShares: ptr(int32(0)), LendablePercent: ptr(int32(0))},
		}),
	}
}

// SuggestedPriorityLevelConfigurations returns the levels kube-apiserver
// suggests, each queuing its requests.
func SuggestedPriorityLevelConfigurations() []*flowcontrolv1.PriorityLevelConfiguration {
	return []*flowcontrolv1.PriorityLevelConfiguration{
		limitedLevel("system", 30, 33, queuing(64, 6)),
		limitedLevel("node-high", 40, 25, queuing(64, 6)),
		limitedLevel("leader-election", 10, 0, queuing(16, 4)),
		limitedLevel("workload-high", 40, 50, queuing(128, 6)),
		limitedLevel("workload-low", 100, 90, queuing(128, 6)),
		limitedLevel("global-default", 20, 50, queuing(128, 6)),
	}
}

// MandatoryFlowSchemas returns the schemas every cluster has: exempt,
// which sends system:masters to the exempt level, and catch-all, which
// matches everybody last.
func MandatoryFlowSchemas() []*flowcontrolv1.FlowSchema {
	return []*flowcontrolv1.FlowSchema{
		flowSchema(flowcontrolv1.FlowSchemaNameExempt, flowcontrolv1.PriorityLevelConfigurationNameExempt, 1, "",
			everything(groups("system:masters"))),
		flowSchema(flowcontrolv1.FlowSchemaNameCatchAll, flowcontrolv1.PriorityLevelConfigurationNameCatchAll, 10000, flowcontrolv1.FlowDistinguisherMethodByUserType,
			everything(groups("system:unauthenticated", "system:authenticated"))),
	}
}

// SuggestedFlowSchemas returns the schemas kube-apiserver suggests, in
// its order.
func SuggestedFlowSchemas() []*flowcontrolv1.FlowSchema {
	byUser, byNamespace := flowcontrolv1.FlowDistinguisherMethodByUserType, flowcontrolv1.FlowDistinguisherMethodByNamespaceType
	return []*flowcontrolv1.FlowSchema{
		flowSchema("system-nodes", "system", 500, byUser, everything(groups("system:nodes"))),
		flowSchema("system-node-high", "node-high", 400, byUser, flowcontrolv1.PolicyRulesWithSubjects{
			Subjects: groups("system:nodes"),
			ResourceRules: []flowcontrolv1.ResourcePolicyRule{
				{Verbs: all, APIGroups: []string{""}, Resources: []string{"nodes", "nodes/status"}, Namespaces: all, ClusterScope: true},
				{Verbs: all, APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Namespaces: all},
			},
		}),
		flowSchema("probes", flowcontrolv1.PriorityLevelConfigurationNameExempt, 2, "", flowcontrolv1.PolicyRulesWithSubjects{
			Subjects:         groups("system:unauthenticated", "system:authenticated"),
			NonResourceRules: []flowcontrolv1.NonResourcePolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz", "/readyz", "/livez"}}},
		}),
		flowSchema("system-leader-election", "leader-election", 100, byUser, flowcontrolv1.PolicyRulesWithSubjects{
			Subjects: append(users("system:kube-controller-manager", "system:kube-scheduler"), kubeSystemServiceAccounts()...),
			ResourceRules: []flowcontrolv1.ResourcePolicyRule{
				{Verbs: []string{"get", "create", "update"}, APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Namespaces: all},
			},
		}),
		flowSchema("kube-controller-manager", "workload-high", 800, byNamespace, everything(users("system:kube-controller-manager"))),
		flowSchema("kube-scheduler", "workload-high", 800, byNamespace, everything(users("system:kube-scheduler"))),
		flowSchema("kube-system-service-accounts", "workload-high", 900, byNamespace, everything(kubeSystemServiceAccounts())),
		flowSchema("service-accounts", "workload-low", 9000, byUser, everything(groups("system:serviceaccounts"))),
		flowSchema("global-default", "global-default", 9900, byUser, everything(groups("system:unauthenticated", "system:authenticated"))),
	}
}

// all is the one-element list "*" that matches every verb, group,
// resource, namespace or URL.
var all = []string{"*"}

// autoUpdate is the annotation every bootstrap object is created with.
func autoUpdate() metav1.ObjectMeta {
	return metav1.ObjectMeta{Annotations: map[string]string{flowcontrolv1.AutoUpdateAnnotationKey: "true"}}
}

func priorityLevel(name string, spec flowcontrolv1.PriorityLevelConfigurationSpec) *flowcontrolv1.PriorityLevelConfiguration {
	pl := &flowcontrolv1.PriorityLevelConfiguration{ObjectMeta: autoUpdate(), Spec: spec}
	pl.Name = name
	return pl
}

// limitedLevel is a limited level that rejects what exceeds it, or queues
// it when q is given.
func limitedLevel(name string, shares, lendable int32, q *flowcontrolv1.QueuingConfiguration) *flowcontrolv1.PriorityLevelConfiguration {
	response := flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject}
	if q != nil {
		response = flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeQueue, Queuing: q}
	}
	return priorityLevel(name, flowcontrolv1.PriorityLevelConfigurationSpec{
		Type: flowcontrolv1.PriorityLevelEnablementLimited,
		Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
			NominalConcurrencyShares: ptr(shares),
			LendablePercent:          ptr(lendable),
			LimitResponse:            response,
		},
	})
}

func queuing(queues, handSize int32) *flowcontrolv1.QueuingConfiguration {
	return &flowcontrolv1.QueuingConfiguration{Queues: queues, HandSize: handSize, QueueLengthLimit: 50}
}

func flowSchema(name, level string, precedence int32, method flowcontrolv1.FlowDistinguisherMethodType, rules flowcontrolv1.PolicyRulesWithSubjects) *flowcontrolv1.FlowSchema {
	fs := &flowcontrolv1.FlowSchema{
		ObjectMeta: autoUpdate(),
		Spec: flowcontrolv1.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: level},
			MatchingPrecedence:         precedence,
			Rules:                      []flowcontrolv1.PolicyRulesWithSubjects{rules},
		},
	}
	fs.Name = name
	if method != "" {
		fs.Spec.DistinguisherMethod = &flowcontrolv1.FlowDistinguisherMethod{Type: method}
	}
	return fs
}

// everything is the rule that matches every request of the subjects.
func everything(subjects []flowcontrolv1.Subject) flowcontrolv1.PolicyRulesWithSubjects {
	return flowcontrolv1.PolicyRulesWithSubjects{
		Subjects:         subjects,
		ResourceRules:    []flowcontrolv1.ResourcePolicyRule{{Verbs: all, APIGroups: all, Resources: all, Namespaces: all, ClusterScope: true}},
		NonResourceRules: []flowcontrolv1.NonResourcePolicyRule{{Verbs: all, NonResourceURLs: all}},
	}
}

func groups(names ...string) []flowcontrolv1.Subject {
	out := make([]flowcontrolv1.Subject, len(names))
	for i, name := range names {
		out[i] = flowcontrolv1.Subject{Kind: flowcontrolv1.SubjectKindGroup, Group: &flowcontrolv1.GroupSubject{Name: name}}
	}
	return out
}

func users(names ...string) []flowcontrolv1.Subject {
	out := make([]flowcontrolv1.Subject, len(names))
	for i, name := range names {
		out[i] = flowcontrolv1.Subject{Kind: flowcontrolv1.SubjectKindUser, User: &flowcontrolv1.UserSubject{Name: name}}
	}
	return out
}

// kubeSystemServiceAccounts is every service account of kube-system.
func kubeSystemServiceAccounts() []flowcontrolv1.Subject {
	return []flowcontrolv1.Subject{{
		Kind:           flowcontrolv1.SubjectKindServiceAccount,
		ServiceAccount: &flowcontrolv1.ServiceAccountSubject{Name: flowcontrolv1.NameAll, Namespace: metav1.NamespaceSystem},
	}}
}

// mandatoryFlowSchemaSpecs and mandatoryLevelSpecs are the specs, by
// name, that validation holds the mandatory objects to.
var (
	mandatoryFlowSchemaSpecs = func() map[string]flowcontrolv1.FlowSchemaSpec {
		out := map[string]flowcontrolv1.FlowSchemaSpec{}
		for _, fs := range MandatoryFlowSchemas() {
			out[fs.Name] = fs.Spec
		}
		return out
	}()
	mandatoryLevelSpecs = func() map[string]flowcontrolv1.PriorityLevelConfigurationSpec {
		out := map[string]flowcontrolv1.PriorityLevelConfigurationSpec{}
		for _, pl := range MandatoryPriorityLevelConfigurations() {
			out[pl.Name] = pl.Spec
		}
		return out
	}()
)

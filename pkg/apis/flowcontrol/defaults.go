package flowcontrol

import (
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// kube-apiserver's defaults.
const (
	defaultMatchingPrecedence       int32 = 1000
	defaultNominalConcurrencyShares int32 = 30
	defaultHandSize                 int32 = 8
	defaultQueues                   int32 = 64
	defaultQueueLengthLimit         int32 = 50
)

// AddDefaults registers the defaulting functions of FlowSchema and
// PriorityLevelConfiguration, and of their lists, in scheme.
func AddDefaults(scheme *runtime.Scheme) error {
	scheme.AddTypeDefaultingFunc(&flowcontrolv1.FlowSchema{}, func(obj any) { SetDefaultsFlowSchema(obj.(*flowcontrolv1.FlowSchema)) })
	scheme.AddTypeDefaultingFunc(&flowcontrolv1.FlowSchemaList{}, func(obj any) {
		list := obj.(*flowcontrolv1.FlowSchemaList)
		for i := range list.Items {
			SetDefaultsFlowSchema(&list.Items[i])
		}
	})
	scheme.AddTypeDefaultingFunc(&flowcontrolv1.PriorityLevelConfiguration{}, func(obj any) {
		SetDefaultsPriorityLevelConfiguration(obj.(*flowcontrolv1.PriorityLevelConfiguration))
	})
	scheme.AddTypeDefaultingFunc(&flowcontrolv1.PriorityLevelConfigurationList{}, func(obj any) {
		list := obj.(*flowcontrolv1.PriorityLevelConfigurationList)
		for i := range list.Items {
			SetDefaultsPriorityLevelConfiguration(&list.Items[i])
		}
	})
	return nil
}

// SetDefaultsFlowSchema gives a schema without a matching precedence the
// middle one, 1000.
func SetDefaultsFlowSchema(fs *flowcontrolv1.FlowSchema) {
	if fs.Spec.MatchingPrecedence == 0 {
		fs.Spec.MatchingPrecedence = defaultMatchingPrecedence
	}
}

// SetDefaultsPriorityLevelConfiguration fills in the shares and the
// lendable percentage of either kind of level, and the queuing of a
// limited level that queues. An explicit zero share count is kept: in v1
// it means a level with no concurrency of its own.
func SetDefaultsPriorityLevelConfiguration(pl *flowcontrolv1.PriorityLevelConfiguration) {
	if l := pl.Spec.Limited; l != nil {
		if l.NominalConcurrencyShares == nil {
			l.NominalConcurrencyShares = ptr(defaultNominalConcurrencyShares)
		}
		if l.LendablePercent == nil {
			l.LendablePercent = ptr(int32(0))
		}
		if q := l.LimitResponse.Queuing; q != nil {
			if q.HandSize == 0 {
				q.HandSize = defaultHandSize
			}
			if q.Queues == 0 {
				q.Queues = defaultQueues
			}
			if q.QueueLengthLimit == 0 {
				q.QueueLengthLimit = defaultQueueLengthLimit
			}
		}
	}
	if e := pl.Spec.Exempt; e != nil {
		if e.NominalConcurrencyShares == nil {
			e.NominalConcurrencyShares = ptr(int32(0))
		}
		if e.LendablePercent == nil {
			e.LendablePercent = ptr(int32(0))
		}
	}
}

func ptr[T any](v T) *T { return &v }
